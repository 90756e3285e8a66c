"""Workspace creation, discovery, refusal, seed documents, migrations."""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
from pathlib import Path

import pytest

from collie.errors import WorkspaceError
from collie.store.migrations import MIGRATIONS
from collie.workspace import folder as ws_module
from collie.workspace.folder import find_workspace, open_workspace

from .clihelp import run_collie

LUO = "Ng'ato ka ng'ato nyalo bedo gi thuolo mar paro.\nJi duto onyuol ka gin thuolo.\n"


def snapshot(root: Path) -> dict[str, str]:
    """Every file under root with a hash of its bytes."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def init_luo(capsys: pytest.CaptureFixture[str], root: Path, doc: Path) -> None:
    result = run_collie(
        capsys, "init", "-w", str(root), "--lang", "luo", "--force", "--docs", str(doc)
    )
    assert result.code == 0, result.err


@pytest.fixture
def luo_doc(tmp_path: Path) -> Path:
    path = tmp_path / "input" / "some.txt"
    path.parent.mkdir()
    path.write_text(LUO, encoding="utf-8")
    return path


def test_init_creates_the_layout(tmp_path: Path, luo_doc: Path, capsys, monkeypatch) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    monkeypatch.chdir(root)
    result = run_collie(capsys, "init", "--lang", "Dholuo", "--force", "--docs", str(luo_doc))
    assert result.code == 0, result.err
    assert result.out == ""
    assert "1 seed document" in result.err
    assert not (root / "cache").exists()  # bodies go to warc/ with the first run
    for name in ("collie.toml", "collie.db", "seed", "models", "exports", "logs"):
        assert (root / name).exists(), name
    assert (root / "seed" / "docs" / "some.txt").read_text(encoding="utf-8") == LUO
    toml = (root / "collie.toml").read_text()
    assert 'code = "luo"' in toml
    assert re.search(r"^seed = [1-9][0-9]*$", toml, flags=re.M), "init picks the RNG seed"
    status = run_collie(capsys, "status", "--json")
    data = json.loads(status.out)
    assert data["language"] == "luo"
    assert data["seed_documents"]["count"] == 1
    assert data["seed_documents"]["words"] == 15
    assert data["loops"] == []
    other = tmp_path / "ws2"
    made = run_collie(capsys, "-w", str(other), "init", "--lang", "luo", "--force", "--docs",
                      str(luo_doc), "--json")  # fmt: skip
    assert made.code == 0, made.err
    answer = json.loads(made.out)
    warnings = answer.pop("warnings")  # what init warned of (issue 46): 15 words train nothing
    assert warnings[0].startswith("collie's model does not know luo")
    assert warnings[-1].startswith("no language model was trained")
    assert answer == {
        "workspace": str(other.resolve()),
        "language": {"code": "luo", "name": "Luo"},
        "seed_documents": {"target": 1, "words": 15},
        "wronglang_documents": 0,
        "seed_words": 0,
        "skipped": [],
    }


def test_database_is_wal_with_foreign_keys_and_recorded_migrations(
    tmp_path: Path, luo_doc: Path, capsys
) -> None:
    root = tmp_path / "ws"
    init_luo(capsys, root, luo_doc)
    conn = sqlite3.connect(root / "collie.db")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    names = [r[0] for r in conn.execute("SELECT name FROM migrations ORDER BY id")]
    assert names == [name for name, _ in MIGRATIONS]
    conn.close()
    with open_workspace(root, {}, {}) as ws:
        assert ws.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert ws.migrated == []


def test_second_init_refuses_and_changes_nothing(tmp_path: Path, luo_doc: Path, capsys) -> None:
    root = tmp_path / "ws"
    init_luo(capsys, root, luo_doc)
    before = snapshot(root)
    again = run_collie(capsys, "init", "-w", str(root), "--lang", "sw", "--docs", str(luo_doc))
    assert again.code == 1
    assert "already a collie workspace" in again.err
    assert snapshot(root) == before


def test_unknown_language_exits_2_and_creates_nothing(
    tmp_path: Path, luo_doc: Path, capsys
) -> None:
    root = tmp_path / "ws"
    result = run_collie(
        capsys, "init", "-w", str(root), "--lang", "xx-nonsense", "--docs", str(luo_doc)
    )
    assert result.code == 2
    assert "Closest matches" in result.err
    assert not root.exists()


def test_discovery_from_subdirectory_env_and_flag(
    tmp_path: Path, luo_doc: Path, capsys, monkeypatch
) -> None:
    root = tmp_path / "ws"
    init_luo(capsys, root, luo_doc)
    deep = root / "exports" / "a" / "b"
    deep.mkdir(parents=True)
    assert find_workspace(None, {}, deep) == root.resolve()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert find_workspace(None, {"COLLIE_WORKSPACE": str(root)}, elsewhere) == root.resolve()
    assert find_workspace(root, {"COLLIE_WORKSPACE": str(elsewhere)}, elsewhere) == root.resolve()
    with pytest.raises(WorkspaceError, match="No collie workspace"):
        find_workspace(None, {}, elsewhere)
    with pytest.raises(WorkspaceError, match="COLLIE_WORKSPACE"):
        find_workspace(None, {"COLLIE_WORKSPACE": str(elsewhere)}, elsewhere)
    monkeypatch.chdir(deep)
    assert json.loads(run_collie(capsys, "status", "--json").out)["language"] == "luo"
    monkeypatch.chdir(elsewhere)
    missing = run_collie(capsys, "status")
    assert missing.code == 1 and "collie init" in missing.err
    assert run_collie(capsys, "status", "-w", str(root)).code == 0
    assert run_collie(capsys, "-w", str(root), "status").code == 0


def test_an_empty_or_damaged_database_is_refused_with_the_fix(
    capsys, tmp_path: Path, luo_doc: Path
) -> None:
    root = tmp_path / "ws"
    init_luo(capsys, root, luo_doc)
    db = root / "collie.db"
    for name in ("collie.db-wal", "collie.db-shm"):
        (root / name).unlink(missing_ok=True)
    db.write_bytes(b"")
    empty = run_collie(capsys, "-w", str(root), "status")
    assert empty.code == 1 and "empty (0 bytes)" in empty.err and "backup" in empty.err
    assert db.stat().st_size == 0  # nothing was written into it
    db.write_bytes(b"not a database, just text " * 100)
    damaged = run_collie(capsys, "-w", str(root), "status")
    assert damaged.code == 1 and "not a usable SQLite database" in damaged.err
    assert "backup" in damaged.err and "Traceback" not in damaged.err


def test_directories_are_walked_and_legacy_encodings_converted(tmp_path: Path, capsys) -> None:
    docs = tmp_path / "texts"
    (docs / "sub").mkdir(parents=True)
    japanese = "すべての人間は、生まれながらにして自由であり、" * 6
    (docs / "ja.txt").write_bytes(japanese.encode("shift_jis"))
    russian = "Все люди рождаются свободными и равными в своем достоинстве и правах. " * 8
    (docs / "ru.txt").write_bytes(russian.encode("cp1251"))
    (docs / "utf16.txt").write_bytes(("Ji duto onyuol ka gin thuolo. " * 5).encode("utf-16"))
    (docs / "sub" / "a.txt").write_text(LUO, encoding="utf-8")
    (docs / "sub" / "copy.txt").write_text(LUO, encoding="utf-8")
    (docs / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    (docs / ".hidden").write_text("ignored", encoding="utf-8")
    root = tmp_path / "ws"
    result = run_collie(
        capsys, "init", "-w", str(root), "--lang", "luo", "--force", "--docs", str(docs)
    )
    assert result.code == 0, result.err
    assert "converted" in result.err and "ja.txt from cp932" in result.err
    assert "skipped" in result.err and "image.png: not a text file" in result.err
    assert "ru.txt: encoding uncertain (best guess windows-1251" in result.err
    assert "--encoding NAME" in result.err
    assert "same text as" in result.err
    stored = root / "seed" / "docs" / "texts" / "ja.txt"
    assert stored.read_text(encoding="utf-8") == japanese
    assert not (root / "seed" / "docs" / "texts" / "ru.txt").exists()
    status = json.loads(run_collie(capsys, "-w", str(root), "status", "--json").out)
    assert status["seed_documents"]["count"] == 3


def test_explicit_unusable_file_refuses_and_creates_nothing(tmp_path: Path, capsys) -> None:
    binary = tmp_path / "photo.jpg"
    binary.write_bytes(b"\xff\xd8\xff\xe0" + bytes(range(256)) * 8)
    root = tmp_path / "ws"
    result = run_collie(
        capsys, "init", "-w", str(root), "--lang", "luo", "--force", "--docs", str(binary)
    )
    assert result.code == 1
    assert "not a text file" in result.err
    assert not root.exists()


def test_docs_with_no_usable_file_say_why_each_was_skipped(tmp_path: Path, capsys) -> None:
    docs = tmp_path / "texts"
    docs.mkdir()
    (docs / "empty.txt").write_bytes(b"")
    (docs / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    (docs / "acholi.txt").write_text(LUO, encoding="utf-8")  # also given with --wronglang
    (docs / "numbers.txt").write_text("1984 2001 2024\n", encoding="utf-8")
    (docs / "numbers-copy.txt").write_text("1984 2001 2024\n", encoding="utf-8")
    (docs / ".DS_Store").write_bytes(b"\0\0\0\1Bud1")
    root = tmp_path / "ws"
    args = ["init", "-w", str(root), "--lang", "luo", "--force", "--docs", str(docs),
            "--wronglang", f"ach={docs / 'acholi.txt'}"]  # fmt: skip
    reasons = {
        "empty.txt": "empty (0 bytes)",
        "photo.png": "not a text file",
        "acholi.txt": f"same text as {docs / 'acholi.txt'}, kept as wrong-language text",
        "numbers.txt": "holds no words",
        "numbers-copy.txt": "holds no words",
        ".DS_Store": "hidden file (its name starts with '.'), not read",
    }
    refused = run_collie(capsys, *args)
    assert refused.code == 2 and "None of the --docs files holds usable text" in refused.err
    assert "6 files were skipped" in refused.err and "1 more (-v lists them all)" in refused.err
    assert refused.err.count("  skipped ") == 5
    verbose = run_collie(capsys, *args, "-v")
    assert verbose.code == 2
    for name, reason in reasons.items():
        assert f"skipped {docs / name}: {reason}" in verbose.err, name
    as_json = run_collie(capsys, *args, "--json")
    assert as_json.code == 2
    listed = {Path(s["file"]).name: s["reason"] for s in json.loads(as_json.out)["skipped"]}
    assert listed.keys() == reasons.keys()
    assert all(listed[name].startswith(reason) for name, reason in reasons.items())
    assert not root.exists()


def test_uncertain_encoding_needs_an_explicit_one(tmp_path: Path, capsys) -> None:
    latin = tmp_path / "short.txt"
    latin.write_bytes("Café naïve façade.".encode("latin-1"))
    root = tmp_path / "ws"
    refused = run_collie(capsys, "init", "-w", str(root), "--lang", "fra", "--docs", str(latin))
    assert refused.code == 1 and "encoding uncertain" in refused.err
    assert "--encoding" in refused.err
    assert not root.exists()
    ok = run_collie(
        capsys,
        "init",
        "-w",
        str(root),
        "--lang",
        "fra",
        "--docs",
        str(latin),
        "--encoding",
        "latin-1",
    )
    assert ok.code == 0, ok.err
    stored = (root / "seed" / "docs" / "short.txt").read_text(encoding="utf-8")
    assert stored == "Café naïve façade."


def test_wronglang_and_seed_words(tmp_path: Path, luo_doc: Path, capsys) -> None:
    acholi = tmp_path / "acholi.txt"
    acholi.write_text("Dano ducu kinywalo ki agonya.\n", encoding="utf-8")
    other = tmp_path / "other.txt"
    other.write_text("Some text that is not Luo at all.\n", encoding="utf-8")
    words = tmp_path / "seeds.txt"
    words.write_text("# seed words\nThuolo\nng'ato\n\nthuolo\n", encoding="utf-8")
    root = tmp_path / "ws"
    result = run_collie(
        capsys, "init", "-w", str(root), "--lang", "luo", "--force", "--docs", str(luo_doc),
        "--wronglang", f"ach={acholi}", "--wronglang", str(other), "--seed-words", str(words),
    )  # fmt: skip
    assert result.code == 0, result.err
    assert (root / "seed" / "wronglang" / "ach" / "acholi.txt").is_file()
    assert (root / "seed" / "wronglang" / "any" / "other.txt").is_file()
    assert (root / "seed" / "seed-words.txt").read_text() == "thuolo\nng'ato\n"
    data = json.loads(run_collie(capsys, "-w", str(root), "status", "--json").out)
    assert data["wronglang_documents"]["by_language"] == {
        "ach": {"count": 1, "words": 5},
        "any": {"count": 1, "words": 8},
    }
    assert data["seed_words"] == 2
    assert data["settings"]["seeds.manual"]["value"] == "seed/seed-words.txt"


def test_init_needs_documents_or_seed_words(tmp_path: Path, capsys) -> None:
    result = run_collie(capsys, "init", "-w", str(tmp_path / "ws"), "--lang", "luo")
    assert result.code == 2 and "--docs" in result.err
    assert not (tmp_path / "ws").exists()


def test_failed_init_removes_what_it_created(
    tmp_path: Path, luo_doc: Path, capsys, monkeypatch
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "mine.txt").write_text("the user's own file", encoding="utf-8")
    before = snapshot(root)

    def broken(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(ws_module, "create_database", broken)
    result = run_collie(
        capsys, "init", "-w", str(root), "--lang", "luo", "--force", "--docs", str(luo_doc)
    )
    assert result.code == 1
    assert snapshot(root) == before
    assert sorted(p.name for p in root.iterdir()) == ["mine.txt"]


def test_interrupted_init_is_detected(tmp_path: Path, luo_doc: Path, capsys) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "collie.db").write_bytes(b"")
    result = run_collie(
        capsys, "init", "-w", str(root), "--lang", "luo", "--force", "--docs", str(luo_doc)
    )
    assert result.code == 1 and "an interrupted `collie init` left it" in result.err
    assert "Move collie.db and seed/ aside" in result.err and "Remove" not in result.err
    status = run_collie(capsys, "-w", str(root), "status")
    assert status.code == 1 and "an interrupted `collie init` left it" in status.err
    recover = run_collie(capsys, "-w", str(root), "init", "--recover")
    assert recover.code == 1 and "cannot be recovered" in recover.err
    assert (root / "collie.db").read_bytes() == b""


def test_newer_schema_is_refused(tmp_path: Path, luo_doc: Path, capsys) -> None:
    root = tmp_path / "ws"
    init_luo(capsys, root, luo_doc)
    conn = sqlite3.connect(root / "collie.db")
    conn.execute("INSERT INTO migrations VALUES (999, 'future', 'later')")
    conn.commit()
    conn.close()
    result = run_collie(capsys, "-w", str(root), "status")
    assert result.code == 1 and "Upgrade collie" in result.err


def test_missing_database_is_a_broken_workspace(tmp_path: Path, luo_doc: Path, capsys) -> None:
    root = tmp_path / "ws"
    init_luo(capsys, root, luo_doc)
    (root / "collie.db").unlink()
    result = run_collie(capsys, "-w", str(root), "status")
    assert result.code == 1 and "broken" in result.err


def test_a_url_reached_by_a_redirect_is_not_queued_again(tmp_path: Path) -> None:

    from collie.models import QueueEntry
    from collie.store import Database, Store
    from collie.store.database import connect
    from collie.store.migrations import migrate

    conn = connect(tmp_path / "collie.db")
    migrate(conn)
    store = Store(Database(conn, tmp_path))
    old, new = "http://a.ke/old/story.html", "http://a.ke/news/story-1.html"
    assert store.frontier.enqueue([QueueEntry(old, "a.ke", 1, "search", 0, 2.0)]) == 1
    with conn:
        conn.execute("UPDATE pages SET status = 'kept', final_url = ? WHERE url = ?", (new, old))
    entries = [
        QueueEntry(new, "a.ke", 1, "crawl", 1, 0.5),
        QueueEntry(old, "a.ke", 1, "crawl", 1, 0.5),
    ]
    other = QueueEntry("http://a.ke/news/story-2.html", "a.ke", 1, "crawl", 1, 0.5)
    assert (
        store.frontier.enqueue([*entries, other]) == 1
    )  # the redirect's target and the old URL: seen
    assert store.frontier.queued_count() == 1
    conn.close()


def test_too_few_seed_words_to_make_a_query_is_an_error(
    capsys, tmp_path: Path, luo_doc: Path
) -> None:
    root = tmp_path / "ws"
    init_luo(capsys, root, luo_doc)
    (root / "seed" / "manual.txt").write_text("duto\nthuolo\n", encoding="utf-8")
    few = run_collie(capsys, "-w", str(root), "--set", "seeds.manual=seed/manual.txt", "queries")
    assert few.code == 1 and "2 seed words, fewer than a query needs" in few.err
    assert "seeds.manual" in few.err
    assert run_collie(capsys, "-w", str(root), "queries").code == 0


def _rows(root: Path) -> dict[str, list[tuple[object, ...]]]:
    """The rows of the tables a lost collie.toml must leave as they were."""
    conn = sqlite3.connect(root / "collie.db")
    tables = ("workspace_info", "seed_documents", "queries", "search_results")
    rows = {t: conn.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall() for t in tables}
    conn.close()
    return rows


def test_a_lost_collie_toml_is_recovered_never_deleted(
    tmp_path: Path, capsys, web, world, monkeypatch
) -> None:
    from .zuluworld import zulu_workspace

    root, _made = zulu_workspace(tmp_path, capsys, web, world)
    assert run_collie(capsys, "-w", str(root), "search", "umuntu").code == 0  # fills the db
    settings = json.loads(run_collie(capsys, "-w", str(root), "config", "--json").out)
    seed_files, rows = snapshot(root / "seed"), _rows(root)
    (root / "collie.toml").unlink()
    monkeypatch.chdir(root / "seed")  # found from a folder inside it, as a workspace is
    for command in (["status"], ["config"], ["run"], ["export", "-"]):
        refused = run_collie(capsys, *command)
        assert refused.code == 1, command
        assert "whose settings file, collie.toml, is missing" in refused.err, command
        assert f"collie init --recover -w {root}" in refused.err, command
    again = run_collie(capsys, "-w", str(root), "init", "--lang", "zul", "--docs", str(root))
    assert again.code == 1 and "collie init --recover" in again.err
    for result in (refused, again):
        assert "Remove" not in result.err and "delete" not in result.err.lower()
    assert not (root / "collie.toml").exists()
    recovered = run_collie(capsys, "-w", str(root), "init", "--recover")
    assert recovered.code == 0, recovered.err
    assert "recovered search.url" in recovered.err and "not recovered" in recovered.err
    after = json.loads(run_collie(capsys, "-w", str(root), "config", "--json").out)
    assert {k: v["value"] for k, v in after.items()} == {k: v["value"] for k, v in settings.items()}
    assert run_collie(capsys, "-w", str(root), "status").code == 0
    assert snapshot(root / "seed") == seed_files and _rows(root) == rows
    done = run_collie(capsys, "-w", str(root), "init", "--recover")
    assert done.code == 1 and "nothing to recover" in done.err


def test_an_older_workspace_recovers_from_its_language_and_last_query(
    tmp_path: Path, capsys, web, world
) -> None:
    from .zuluworld import zulu_workspace

    root, _made = zulu_workspace(tmp_path, capsys, web, world)
    assert run_collie(capsys, "-w", str(root), "search", "umuntu").code == 0
    conn = sqlite3.connect(root / "collie.db")  # as collie before 0.3 left it
    with conn:
        conn.execute("DELETE FROM workspace_info WHERE key = 'settings'")
    conn.close()
    (root / "collie.toml").unlink()
    recovered = run_collie(capsys, "-w", str(root), "init", "--recover", "--json")
    assert recovered.code == 0, recovered.err
    data = json.loads(recovered.out)
    assert data["recovered"]["language.code"]["value"] == "zul"
    assert data["recovered"]["search.backend"] == {
        "value": "searxng",
        "source": "the last query in collie.db",
    }
    lost = " ".join(data["not_recovered"])
    assert "run.seed" in lost and "--search-url" in lost
    status = json.loads(run_collie(capsys, "-w", str(root), "status", "--json").out)
    assert status["language"] == "zul"


def test_a_killed_inits_staging_folder_is_removed_by_the_next_init_of_the_path(
    tmp_path: Path,
) -> None:
    """`init` builds beside or inside the path in `.collie-init-*` (its PID in the name);
    one left by a process that is gone (kill -9) is removed, one of a live process and
    anything else is not."""
    import subprocess
    import sys

    from collie.workspace.folder import clear_stale_staging, staged_workspace

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    alive = os.getppid()
    mine = tmp_path / "mine"
    mine.mkdir()
    stale = [mine / f".collie-init-{gone}-0a1b2c3d", tmp_path / f".collie-init-ws-{gone}-0a1b2c3d"]
    kept = [
        mine / f".collie-init-{alive}-0a1b2c3d",  # an init still running
        tmp_path / f".collie-init-ws2-{gone}-0a1b2c3d",  # another path's (ws2)
        mine / ".collie-init-notes",  # not one of init's names
    ]
    for folder in stale + kept:
        folder.mkdir()
        (folder / "collie.db").write_bytes(b"half made")
    assert sorted(clear_stale_staging(mine)) == [stale[0]]
    with staged_workspace(tmp_path / "ws") as staging:
        assert staging.name.startswith(f".collie-init-ws-{os.getpid()}-")
    assert not any(p.exists() for p in stale) and all(p.exists() for p in kept)
