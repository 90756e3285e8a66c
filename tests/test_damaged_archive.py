"""The readers of a damaged archive (issue 45, part 2): `reprocess`, `export --format
warc` and `replay --index-only` on a real run's workspace one of whose WARC files is
garbled, truncated or deleted. Each names the file and the damage, makes what it can,
and exits non-zero; none says "unexpected" or blames warc.keep."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from collie.archive.reader import damage
from collie.cli import main
from collie.errors import plural
from collie.mininet.server import MiniWebServer

from .clihelp import rows, run_collie
from .zuluworld import SETTINGS, ZuluWorld


def _collie(*args: str) -> int:
    with pytest.raises(SystemExit) as info:
        main(list(args))
    return info.value.code if isinstance(info.value.code, int) else 1


@pytest.fixture(scope="module")
def mined_once(
    closed_web: tuple[MiniWebServer, ZuluWorld], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """A Zulu workspace after `collie run --loops 2`, its exchanges in several WARC files
    (warc.max_bytes small), built once for the module; tests damage copies of it."""
    server, made = closed_web
    folder = tmp_path_factory.mktemp("damaged")
    docs = folder / "zulu.txt"
    docs.write_text(made.seed_text, encoding="utf-8")
    root = folder / "ws"
    sets = [arg for s in (*SETTINGS, "warc.max_bytes=5000") for arg in ("--set", s)]
    code = _collie("init", "-w", str(root), "--lang", "zul", "--docs", str(docs),
                   "--search", "searxng", "--search-url", server.search_url, *sets)  # fmt: skip
    assert code == 0
    assert _collie("-w", str(root), "-q", "run", "--loops", "2") == 0
    assert len(list((root / "warc").glob("*.warc.gz"))) >= 3
    return root


@pytest.fixture
def copy(mined_once: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    root = tmp_path / "ws"
    shutil.copytree(mined_once, root)
    monkeypatch.chdir(root)
    yield root


EXPORTED = "d.kind = 'target' AND d.duplicate_of IS NULL AND p.status = 'kept'"


def _victim(root: Path) -> Path:
    """The WARC file holding the most records of exported documents."""
    counted = rows(root, "SELECT p.warc_file, COUNT(*) FROM pages p JOIN documents d "
                         f"ON d.page_id = p.id WHERE p.warc_file IS NOT NULL AND {EXPORTED} "
                         "GROUP BY p.warc_file ORDER BY COUNT(*) DESC, p.warc_file")  # fmt: skip
    return root / "warc" / str(counted[0][0])


def _garble(path: Path) -> str:
    path.write_bytes(os.urandom(path.stat().st_size))
    return "garbled"


def _truncate(path: Path) -> str:
    """Cut the file at half its size, or inside its last document's record if that
    comes earlier: the cut always takes a document with it, whatever order the run
    wrote the records in."""
    query = ("SELECT MAX(p.warc_offset) FROM pages p JOIN documents d ON d.page_id = p.id "
             f"WHERE p.warc_file = '{path.name}' AND {EXPORTED}")  # fmt: skip
    last = rows(path.parent.parent, query)[0][0]
    size = path.stat().st_size
    with path.open("r+b") as file:
        file.truncate(min(size // 2, int(str(last)) + 10))
    return "truncated at offset"


def _delete(path: Path) -> str:
    path.unlink()
    return "missing"


DAMAGE = {"garbled": _garble, "truncated": _truncate, "deleted": _delete}


@pytest.mark.parametrize("how", DAMAGE)
def test_damage_is_named(copy: Path, how: str) -> None:
    victim = _victim(copy)
    assert damage(victim) is None
    said = DAMAGE[how](victim)
    found = damage(victim)
    assert found is not None and found.startswith(said)


def _named(err: str, victim: Path, said: str) -> None:
    """The error names the file and its damage, blames no setting, is no crash."""
    assert f"warc/{victim.name}: {said}" in err, err
    assert "unexpected" not in err and "--traceback" not in err and "warc.keep" not in err


@pytest.mark.parametrize("how", DAMAGE)
def test_reprocess_reads_around_a_damaged_file(copy: Path, how: str, capsys) -> None:  # type: ignore[no-untyped-def]
    whole = run_collie(capsys, "reprocess")
    assert whole.code == 0, whole.err
    victim = _victim(copy)
    said = DAMAGE[how](victim)
    done = run_collie(capsys, "reprocess")
    assert done.code == 1, done.err
    _named(done.err, victim, said)
    assert "reprocess is incomplete:" in done.err and "the bodies of" in done.err

    def number(text: str, before: str) -> int:
        return int(text.split(before, 1)[1].split(" ", 1)[0])

    lost = number(done.err, "reprocess is incomplete: the bodies of ")
    assert lost > 0 and number(done.err, "Reprocessed ") > 0  # the rest was reprocessed
    assert number(done.err, "Reprocessed ") + lost == number(whole.err, "Reprocessed ")


@pytest.mark.parametrize("how", DAMAGE)
def test_export_warc_writes_the_whole_records(copy: Path, how: str, capsys) -> None:  # type: ignore[no-untyped-def]
    from warcio.archiveiterator import ArchiveIterator

    whole = run_collie(capsys, "export", "whole.warc.gz", "--format", "warc")
    assert whole.code == 0, whole.err
    victim = _victim(copy)
    said = DAMAGE[how](victim)
    done = run_collie(capsys, "export", "part.warc.gz", "--format", "warc")
    assert done.code == 1, done.err
    _named(done.err, victim, said)
    assert "the export is incomplete:" in done.err and "damaged WARC files" in done.err
    lost = int(done.err.split("incomplete: the answers of ", 1)[1].split(" ", 1)[0])
    written = int(done.err.split(" documents, ", 1)[0].rsplit("\n", 1)[-1])
    assert lost > 0 and written + lost == int(whole.err.split(" documents, ", 1)[0])

    def responses(path: Path) -> set[str]:
        with path.open("rb") as handle:
            return {r.rec_headers.get_header("WARC-Record-ID") for r in ArchiveIterator(handle)
                    if r.rec_type in ("response", "revisit")}  # fmt: skip

    part, everything = responses(copy / "part.warc.gz"), responses(copy / "whole.warc.gz")
    assert part and part < everything  # standard readers read it; only the lost are missing


@pytest.mark.parametrize("how", DAMAGE)
def test_the_index_holds_the_whole_records(copy: Path, how: str, capsys) -> None:  # type: ignore[no-untyped-def]
    whole = run_collie(capsys, "replay", "--index-only")
    assert whole.code == 0, whole.err
    everything = (copy / "warc" / "index.cdxj").read_text().splitlines()
    victim = _victim(copy)
    said = DAMAGE[how](victim)
    for _ in range(2):  # named again the next time: the index is not taken as current
        done = run_collie(capsys, "replay", "--index-only")
        assert done.code == 1, done.err
        _named(done.err, victim, said)
        assert "the index is incomplete:" in done.err and done.out.strip().endswith("index.cdxj")
    lines = (copy / "warc" / "index.cdxj").read_text().splitlines()
    kept = [line for line in everything if f'"filename": "{victim.name}"' not in line]
    assert set(kept) <= set(lines) < set(everything) and kept


def _documents(root: Path) -> list[tuple[object, ...]]:
    return rows(root, "SELECT page_id, text, duplicate_of FROM documents ORDER BY page_id")


def _pointers(root: Path) -> list[tuple[object, ...]]:
    return rows(root, "SELECT id, warc_file, warc_offset FROM pages "
                      "WHERE warc_file IS NOT NULL ORDER BY id")  # fmt: skip


@pytest.mark.parametrize("how", DAMAGE)
def test_check_repair_and_run_restore_the_workspace(  # type: ignore[no-untyped-def]
    copy: Path, how: str, closed_web: tuple[MiniWebServer, ZuluWorld], capsys
) -> None:
    """Issue 45, parts 1 and 5: `check` names the damage and the lost pages, `--repair`
    cuts or moves the file aside (never deletes it) and marks them, `run --refetch-lost`
    fetches only them again, and the workspace is whole again with the same corpus."""
    server = closed_web[0]
    whole = run_collie(capsys, "check")
    assert whole.code == 0 and "Every WARC file is whole" in whole.err, whole.err
    corpus, pointed = _documents(copy), len(_pointers(copy))
    victim = _victim(copy)
    said = DAMAGE[how](victim)
    found = run_collie(capsys, "check")
    assert found.code == 1, found.err
    _named(found.err, victim, said)
    assert "lost the only copy of their body" in found.err and "--repair" in found.err
    status = run_collie(capsys, "status")
    assert f"damaged   warc/{victim.name}: " in status.out and "collie check" in status.out
    fixed = run_collie(capsys, "check", "--repair")
    assert fixed.code == 0, fixed.err
    assert "marked to be fetched again" in fixed.err and "unexpected" not in fixed.err
    if how == "garbled":  # moved aside, not deleted
        assert (copy / "warc" / "damaged" / victim.name).stat().st_size > 0
    lost = {str(url) for (url,) in rows(copy, "SELECT p.url FROM lost_bodies l JOIN pages p "
                                              "ON p.id = l.page_id")}  # fmt: skip
    assert lost and len(_pointers(copy)) == pointed - len(lost)
    waiting = run_collie(capsys, "check")
    assert waiting.code == 1 and "wait to be fetched again" in waiting.err, waiting.err
    status = run_collie(capsys, "status")
    assert "damaged" not in status.out and "--refetch-lost" in status.out, status.out
    before = len(server.log)
    again = run_collie(capsys, "run", "--refetch-lost")
    assert again.code == 0, again.err
    assert f"Fetched again {len(lost)} of {len(lost)} pages" in again.err, again.err
    asked = {e.url for e in server.log[before:] if not e.path.startswith("/robots.txt")}
    assert lost <= asked and len(asked) <= len(lost) + 5  # only the lost (and a redirect's hop)
    assert run_collie(capsys, "check").code == 0
    assert "lost" not in run_collie(capsys, "status").out
    assert _documents(copy) == corpus and len(_pointers(copy)) == pointed
    assert rows(copy, "SELECT DISTINCT outcome FROM lost_bodies") == [("same",)]
    assert run_collie(capsys, "reprocess").code == 0
    exported = run_collie(capsys, "export", "all.warc.gz", "--format", "warc")
    assert exported.code == 0, exported.err
    assert _documents(copy) == corpus


def test_check_finds_a_record_with_a_wrong_digest(copy: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """A record whose gzip member is whole but whose content was changed (the digest
    no longer matches) is found, and its page lost."""
    import gzip

    page, file, offset, length = rows(copy, "SELECT id, warc_file, warc_offset, warc_length "
                                            "FROM pages WHERE warc_file IS NOT NULL AND "
                                            "http_status = 200 ORDER BY id LIMIT 1")[0]  # fmt: skip
    path = copy / "warc" / str(file)
    data = path.read_bytes()
    start, end = int(str(offset)), int(str(offset)) + int(str(length))
    record = gzip.decompress(data[start:end])
    cut = record.index(b"\r\n\r\n", record.index(b"HTTP/")) + 4  # the payload's first byte
    changed = record[:cut] + bytes([record[cut] ^ 1]) + record[cut + 1 :]
    path.write_bytes(data[:start] + gzip.compress(changed) + data[end:])
    found = run_collie(capsys, "check")
    assert found.code == 1, found.err
    assert f"warc/{file}: 1 record with a wrong digest, the first at offset {start}" in found.err
    assert run_collie(capsys, "check", "--repair").code == 0
    assert rows(copy, "SELECT page_id FROM lost_bodies") == [(page,)] or rows(
        copy, f"SELECT COUNT(*) FROM lost_bodies WHERE page_id = {page}"
    ) == [(1,)]
    assert (copy / "warc" / "damaged" / str(file)).exists()


def test_a_pass_reading_a_damaged_file_warns_once(copy: Path, caplog) -> None:  # type: ignore[no-untyped-def]
    """The short pages' vote and the relatives pass read kept bodies back: pages in a
    damaged file are left as they were, with one warning naming the file and the count,
    not one a page."""
    import logging

    from collie.archive.bodies import note_unread
    from collie.mining.config import RunConfig
    from collie.mining.examine import MISSING, examine_cached
    from collie.store import Store
    from collie.workspace.folder import open_workspace

    victim = _victim(copy)
    _truncate(victim)
    with open_workspace(copy, {}, {}) as ws:
        pages = Store(ws.db).pages.kept_pages("p.warc_file = ?", (victim.name,))
        rules, model = RunConfig.of(ws).rules, ws.model()
        with caplog.at_level(logging.DEBUG):
            examined = [(p, examine_cached(p, copy, model, rules)) for p in pages]
            unread = [p for p, one in examined if one.outcome.reason == MISSING]
            assert unread and note_unread("the short pages' vote", unread) == len(unread)
    warned = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warned) == 1, warned
    assert f"{len(unread)} pages' kept bodies could not be read" in warned[0]
    assert f"warc/{victim.name} ({len(unread)})" in warned[0] and "collie check" in warned[0]


def test_a_run_never_cuts_a_garbled_newest_file(copy: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """The archive cuts a torn last record off when a run opens it (a crash's), but
    garbled bytes inside the newest file may have whole records after them: the run
    stops, names the file and cuts nothing; after `check --repair` the next plain run
    fetches the lost pages again."""
    newest = sorted((copy / "warc").glob("collie-*.warc.gz"))[-1]
    data = bytearray(newest.read_bytes())
    pointed = rows(copy, "SELECT warc_offset, warc_length FROM pages "
                         f"WHERE warc_file = '{newest.name}' ORDER BY warc_offset")  # fmt: skip
    assert pointed  # a page's record is garbled (the records after it are read on)
    offset, length = (int(str(v)) for v in pointed[len(pointed) // 2])
    middle = offset + length // 2 - 32
    data[middle : middle + 64] = os.urandom(64)
    newest.write_bytes(bytes(data))
    stopped = run_collie(capsys, "run", "--loops", "3")
    assert stopped.code == 1, stopped.err
    assert f"warc/{newest.name}, the newest WARC file, is damaged (garbled at offset" in stopped.err
    assert "collie check --repair" in stopped.err and "unexpected" not in stopped.err
    assert newest.read_bytes() == bytes(data)  # nothing cut
    assert run_collie(capsys, "check", "--repair").code == 0
    lost = rows(copy, "SELECT COUNT(*) FROM lost_bodies")[0][0]
    again = run_collie(capsys, "run", "--loops", "2")  # no loop to run: only the lost pages
    said = f"Fetched again {lost} of {plural(int(str(lost)), 'page', 'pages')} whose body"
    assert again.code == 0 and said in again.err, again.err
    assert run_collie(capsys, "check").code == 0


def test_the_python_api_checks_repairs_and_fetches_again(copy: Path) -> None:
    """`Workspace.check`, `check(repair=True)` and `refetch_lost` do what the commands do."""
    import collie

    ws = collie.Workspace(copy)
    assert ws.check().healthy and ws.refetch_lost() is None
    victim = _victim(copy)
    _truncate(victim)
    found = ws.check()
    assert not found.healthy and found.found.lost
    assert any(f.name == victim.name and not f.whole for f in found.found.files)
    fixed = ws.check(repair=True)
    assert fixed.healthy and fixed.repaired is not None
    assert fixed.repaired.marked == len(found.found.lost)
    done = ws.refetch_lost()
    assert done is not None and done.same == done.asked == len(found.found.lost)
    assert ws.check().healthy


def test_lost_pages_the_network_cannot_give_again_stay_lost_and_are_tried_again(  # type: ignore[no-untyped-def]
    copy: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`run --refetch-lost` with the sites unreachable: exit 1 naming the pages still
    lost, nothing else changed; a later plain run reports its loops first and does not
    try them again; `--refetch-lost` with the network back fetches them."""
    import socket

    _delete(_victim(copy))
    assert run_collie(capsys, "check", "--repair").code == 0
    lost = rows(copy, "SELECT COUNT(*) FROM lost_bodies")[0][0]
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{sock.getsockname()[1]}"
    with monkeypatch.context() as offline:
        for name in ("HTTP_PROXY", "http_proxy"):
            offline.setenv(name, dead)
        offline.setenv("COLLIE_FETCH_RETRIES", "0")
        failed = run_collie(capsys, "run", "--refetch-lost")
    assert failed.code == 1, failed.err
    assert f"{plural(int(str(lost)), 'lost page', 'lost pages')} could not be fetched again (" in (
        failed.err
    )
    assert "unexpected" not in failed.err and "--refetch-lost` later" in failed.err
    assert rows(copy, "SELECT COUNT(*) FROM lost_bodies WHERE outcome LIKE 'failed%'") == [(lost,)]
    plain = run_collie(capsys, "run", "--loops", "2")  # failed ones wait for --refetch-lost
    assert plain.code == 0 and "nothing to do" in plain.err and "Fetched again" not in plain.err
    again = run_collie(capsys, "run", "--refetch-lost")
    assert again.code == 0, again.err
    assert run_collie(capsys, "check").code == 0


def test_one_bad_record_costs_its_own_pages_only(copy: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """Issue 58, point 3: a byte flipped inside one record in the middle of a file. The
    check reads on past it; `--repair` keeps every other record of the file (the rows
    follow them to their new offsets) and marks only the pages of that record; a
    repair killed after the new file is written is finished by the next check."""
    from .warchelp import assert_archive

    victim = _victim(copy)
    pointed = rows(copy, "SELECT id, warc_offset, warc_length, warc_digest FROM pages "
                         f"WHERE warc_file = '{victim.name}' ORDER BY warc_offset")  # fmt: skip
    page, offset, length, digest = pointed[len(pointed) // 2]
    start = int(str(offset)) + int(str(length)) // 2
    data = bytearray(victim.read_bytes())
    data[start] ^= 0xFF
    victim.write_bytes(bytes(data))
    sharing = {pid for pid, _, _, d in pointed if d == digest}  # revisits of its payload
    found = run_collie(capsys, "check")
    assert found.code == 1 and f"warc/{victim.name}: garbled at offset {offset}" in found.err
    assert "whole records after it" in found.err, found.err
    fixed = run_collie(capsys, "check", "--repair")
    assert fixed.code == 0, fixed.err
    lost = {pid for (pid,) in rows(copy, "SELECT page_id FROM lost_bodies")}
    assert page in lost and lost <= sharing, (lost, sharing)
    assert len(pointed) - len(lost) == len(
        rows(copy, f"SELECT id FROM pages WHERE warc_file = '{victim.name}'")
    )
    assert (copy / "warc" / "damaged" / victim.name).read_bytes() == bytes(data)  # kept
    assert assert_archive(copy) > 0  # every file passes warcio check; every row finds its record
    assert run_collie(capsys, "check").code == 1  # only the lost pages wait to be fetched

    # a repair killed after writing the new file and before the rows followed it
    import sqlite3

    conn = sqlite3.connect(copy / "collie.db")
    moved = conn.execute(
        "SELECT id, warc_offset FROM pages WHERE warc_file = ? ORDER BY warc_offset DESC LIMIT 3",
        (victim.name,),
    ).fetchall()
    with conn:
        conn.executemany("UPDATE pages SET warc_offset = warc_offset + 7 WHERE id = ?",
                         [(pid,) for pid, _ in moved])  # fmt: skip
    conn.close()
    again = run_collie(capsys, "check")
    # every row moved is found whole elsewhere (the victim holds three rows or more, its
    # lost ones no longer point at it: the last three left, or fewer)
    assert moved
    rows_point = "page row points" if len(moved) == 1 else "page rows point"
    expected = f"{len(moved)} {rows_point} at a record that is whole at another offset"
    assert expected in again.err, again.err
    assert run_collie(capsys, "check", "--repair").code == 0
    assert rows(copy, "SELECT id, warc_offset FROM pages WHERE id IN "
                      f"({', '.join(str(pid) for pid, _ in moved)}) ORDER BY warc_offset DESC"
                ) == moved  # fmt: skip
    assert {pid for (pid,) in rows(copy, "SELECT page_id FROM lost_bodies")} == lost
