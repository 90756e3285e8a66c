"""collie.files.atomic_write: a file written whole, or the old one left as it was."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from collie.files import atomic_path, atomic_write


def test_a_binary_write_replaces_the_file_once_complete(tmp_path: Path) -> None:
    out = tmp_path / "body.gz"
    out.write_bytes(b"old")
    with atomic_write(out) as handle:
        handle.write(b"new ")
        assert out.read_bytes() == b"old"  # not replaced before the block ends
        handle.write(b"bytes")
    assert out.read_bytes() == b"new bytes"
    assert [p.name for p in tmp_path.iterdir()] == ["body.gz"]


def test_a_text_write_is_utf8_with_newlines_as_given(tmp_path: Path) -> None:
    out = tmp_path / "collie.toml"
    with atomic_write(out, "w") as handle:
        handle.write('lang = "zul"\nname = "isiZulu ñ"\n')
    assert out.read_bytes() == 'lang = "zul"\nname = "isiZulu ñ"\n'.encode()


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    out = tmp_path / "corpus.txt"
    out.write_text("the earlier export\n", encoding="utf-8")
    for error in (ValueError, KeyboardInterrupt):
        with pytest.raises(error), atomic_write(out, "w") as handle:
            handle.write("half of a new one")
            raise error
    assert out.read_text(encoding="utf-8") == "the earlier export\n"
    assert [p.name for p in tmp_path.iterdir()] == ["corpus.txt"]
    with pytest.raises(RuntimeError), atomic_write(tmp_path / "new.txt") as handle:
        handle.write(b"x")
        raise RuntimeError
    assert [p.name for p in tmp_path.iterdir()] == ["corpus.txt"]  # no new file either


def test_the_file_gets_the_mode_the_umask_gives(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        with atomic_write(tmp_path / "a.txt", "w") as handle:
            handle.write("a")
    finally:
        os.umask(old)
    assert (tmp_path / "a.txt").stat().st_mode & 0o777 == 0o640  # not mkstemp's 0600


def test_a_path_for_a_library_that_writes_by_name(tmp_path: Path) -> None:
    out = tmp_path / "world.db"
    with atomic_path(out) as tmp:
        assert tmp.parent == tmp_path and tmp.name.startswith(".world.db.") and not out.exists()
        with sqlite3.connect(tmp) as db:
            db.execute("CREATE TABLE t (x)")
        db.close()
    assert sqlite3.connect(out).execute("SELECT count(*) FROM t").fetchone() == (0,)
    with pytest.raises(OSError), atomic_path(out) as tmp:
        tmp.write_bytes(b"not a database")
        raise OSError("disk full")
    assert sqlite3.connect(out).execute("SELECT count(*) FROM t").fetchone() == (0,)
    assert [p.name for p in tmp_path.iterdir()] == ["world.db"]


def test_only_binary_or_text_writing() -> None:
    with pytest.raises(ValueError), atomic_write(Path("x"), "a"):  # type: ignore[call-overload]
        pass
