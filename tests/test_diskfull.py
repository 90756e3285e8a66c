"""A full disk is one clear line, exit 1, and the same command run again goes on
(issue 45, part 4).

The full disk is met here, on any machine, at the boundaries below the filesystem:
SQLite's own "database or disk is full" (a real one, from a page limit), an
OSError(ENOSPC) as the kernel gives it, and, through the CLI, `collie run` whose WARC
file's fsync answers ENOSPC. tests/mining/test_small_disk.py fills a real small tmpfs
during a run and a scan, where one can be mounted."""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path

import pytest

from collie.errors import DiskFull, disk_full_error, find_disk_full

from .clihelp import rows, run_collie
from .warchelp import assert_archive
from .zuluworld import build_zulu_world, zulu_workspace


def _sqlite_full(tmp_path: Path) -> sqlite3.OperationalError:
    conn = sqlite3.connect(tmp_path / "tiny.db")
    try:
        conn.execute("CREATE TABLE t (x BLOB)")
        conn.execute(f"PRAGMA max_page_count = {conn.execute('PRAGMA page_count').fetchone()[0]}")
        with pytest.raises(sqlite3.OperationalError) as info:
            conn.execute("INSERT INTO t VALUES (zeroblob(100000))")
        return info.value
    finally:
        conn.close()


def _no_space(fd: int) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_the_errors_of_a_full_disk_are_found(tmp_path: Path) -> None:
    full = _sqlite_full(tmp_path)
    assert "full" in str(full)
    assert find_disk_full(full) is full
    nospace = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    quota = OSError(errno.EDQUOT, os.strerror(errno.EDQUOT))
    assert find_disk_full(nospace) is nospace and find_disk_full(quota) is quota
    try:  # wrapped, as a worker's error is
        try:
            raise nospace
        except OSError as exc:
            raise RuntimeError("a worker failed") from exc
    except RuntimeError as wrapped:
        assert find_disk_full(wrapped) is nospace
    assert find_disk_full(OSError(errno.EACCES, "Permission denied")) is None
    assert find_disk_full(sqlite3.OperationalError("database is locked")) is None
    error = disk_full_error(tmp_path / "ws")  # not there yet (init): its parent is measured
    assert isinstance(error, DiskFull)
    assert str(error).startswith(f"the disk holding {tmp_path / 'ws'} is full (")
    assert "MB free): free space, then run the same command again; nothing is lost" in str(error)


def test_a_run_on_a_full_disk_says_so_and_goes_on_after(  # type: ignore[no-untyped-def]
    tmp_path, capsys, web, world, monkeypatch
) -> None:
    root, _ = zulu_workspace(tmp_path, capsys, web, world)
    monkeypatch.chdir(root)
    real_fsync = os.fsync
    calls = {"n": 0}

    def fsync_on_a_full_disk(fd: int) -> None:  # the WARC file's flush, after some pages
        calls["n"] += 1
        if calls["n"] > 3:
            _no_space(fd)
        real_fsync(fd)

    with monkeypatch.context() as patch:
        patch.setattr(os, "fsync", fsync_on_a_full_disk)
        failed = run_collie(capsys, "run", "--loops", "1")
    assert failed.code == 1, failed.err
    lines = [line for line in failed.err.splitlines() if line.startswith("collie: error:")]
    assert lines == [lines[0]] and f"the disk holding {root.resolve()} is full (" in lines[0], (
        failed.err
    )
    assert "nothing is lost" in lines[0] and "unexpected" not in failed.err
    assert "--traceback" not in failed.err
    done = run_collie(capsys, "run", "--loops", "1")  # space freed: the same command goes on
    assert done.code == 0, done.err
    assert assert_archive(root) > 0
    assert rows(root, "SELECT COUNT(*) FROM pages WHERE status = 'kept'")[0][0] > 0
    outside = tmp_path / "exports"
    outside.mkdir()
    with monkeypatch.context() as patch:  # an export whose file cannot be put on disk
        patch.setattr(os, "fsync", _no_space)
        failed = run_collie(capsys, "export", str(outside / "corpus.txt"))
    assert failed.code == 1 and "unexpected" not in failed.err, failed.err
    assert "is full (" in failed.err and "nothing is lost" in failed.err
    assert not (outside / "corpus.txt").exists()  # no half-written export left behind
    assert run_collie(capsys, "export", str(outside / "corpus.txt")).code == 0


def test_init_on_a_full_disk_says_so_and_leaves_nothing(  # type: ignore[no-untyped-def]
    tmp_path, capsys, web, world, monkeypatch
) -> None:
    """The database meets SQLite's own "database or disk is full": every connection is
    given a page limit a few pages past the schema's start (a real SQLITE_FULL)."""
    real_connect = sqlite3.connect

    def small_disk(*args, **kwargs):  # type: ignore[no-untyped-def]
        conn = real_connect(*args, **kwargs)
        conn.execute("PRAGMA max_page_count = 4")
        return conn

    made = build_zulu_world(world)
    docs = tmp_path / "zulu.txt"
    docs.write_text(made.seed_text, encoding="utf-8")
    root = tmp_path / "ws"
    init = ("init", "-w", str(root), "--lang", "zul", "--docs", str(docs), "--search", "searxng",
            "--search-url", web.search_url)  # fmt: skip
    with monkeypatch.context() as patch:
        patch.setattr(sqlite3, "connect", small_disk)
        failed = run_collie(capsys, *init)
    assert failed.code == 1, failed.err
    assert failed.err.startswith(f"collie: error: the disk holding {root.resolve()} is full ("), (
        failed.err
    )
    assert "nothing is lost" in failed.err and "unexpected" not in failed.err
    assert not root.exists() or not any(root.iterdir())  # init leaves nothing behind
    done = run_collie(capsys, *init)  # space freed: the same command goes on
    assert done.code == 0, done.err


def test_init_is_whole_or_absent_when_the_model_meets_a_full_disk(  # type: ignore[no-untyped-def]
    tmp_path, capsys, web, world, monkeypatch
) -> None:
    """The disk fills while the language model is written, after collie.db and seed/
    (issue 58): the workspace was built beside and is not there, so the same command
    run again makes it; in an existing folder (the current directory) too."""
    import zipfile

    made = build_zulu_world(world)
    docs = tmp_path / "zulu.txt"
    docs.write_text(made.seed_text, encoding="utf-8")
    real_writestr = zipfile.ZipFile.writestr
    calls = {"n": 0}

    def writestr_on_a_full_disk(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_writestr(self, *args, **kwargs)

    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("the user's own file\n", encoding="utf-8")
    for root in (tmp_path / "new" / "ws", mine):
        init = ("init", "-w", str(root), "--lang", "zul", "--docs", str(docs), "--search",
                "searxng", "--search-url", web.search_url)  # fmt: skip
        calls["n"] = 0
        with monkeypatch.context() as patch:
            patch.setattr(zipfile.ZipFile, "writestr", writestr_on_a_full_disk)
            failed = run_collie(capsys, *init)
        assert failed.code == 1, failed.err
        assert "is full (" in failed.err and "run the same command again" in failed.err
        assert "unexpected" not in failed.err
        if root == mine:
            assert sorted(p.name for p in mine.iterdir()) == ["notes.txt"]
        else:
            assert not (tmp_path / "new").exists()  # the folders made for it are gone too
        done = run_collie(capsys, *init)
        assert done.code == 0, done.err
        assert (root / "collie.toml").is_file() and (root / "models" / "langid.npz").is_file()
        assert not [p for p in root.parent.iterdir() if p.name.startswith(".collie-init")]
        assert not [p for p in root.iterdir() if p.name.startswith(".collie-init")]
    assert run_collie(capsys, "-w", str(mine), "status").code == 0


@pytest.mark.parametrize("damage", ["damaged", "missing"])
def test_a_damaged_model_is_named_with_the_command_that_rebuilds_it(  # type: ignore[no-untyped-def]
    damage, tmp_path, capsys, web, world, monkeypatch
) -> None:
    root, _ = zulu_workspace(tmp_path, capsys, web, world)
    model = root / "models" / "langid.npz"
    whole = model.read_bytes()
    if damage == "damaged":
        model.write_bytes(whole[: len(whole) // 2])  # cut, as a full disk left it before
    else:  # deleted: the bundled model, which init fitted Zulu to, is not what was made
        model.unlink()
    sample = tmp_path / "sample.txt"
    sample.write_text("Umuntu ngumuntu ngabantu.\n", encoding="utf-8")
    monkeypatch.chdir(root)
    for command in (("run", "--loops", "1"), ("langid", "identify", str(sample))):
        failed = run_collie(capsys, *command)
        assert failed.code == 1, failed.err
        assert failed.err.startswith(
            f"collie: error: the workspace's language model {model} is {damage}"
        ), failed.err
        assert "`collie init --recover`" in failed.err and "unexpected" not in failed.err
    rebuilt = run_collie(capsys, "init", "--recover")
    assert rebuilt.code == 0, rebuilt.err
    assert f"Rebuilt {model}" in rebuilt.err
    assert model.read_bytes() == whole  # the same model init trained
    assert run_collie(capsys, "langid", "identify", str(sample)).code == 0
    again = run_collie(capsys, "init", "--recover")
    assert again.code == 1 and "nothing to recover" in again.err
