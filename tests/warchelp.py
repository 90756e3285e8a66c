"""Checks of a workspace's WARC files shared by the tests (collie.archive.writer)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any


def record_at(path: Path, offset: int) -> tuple[Any, bytes]:
    """(the record at an offset of a WARC file, its payload as stored)."""
    from warcio.archiveiterator import ArchiveIterator

    with path.open("rb") as handle:
        handle.seek(offset)
        record = next(iter(ArchiveIterator(handle)))
        return record, record.raw_stream.read()


def warcio_check(files: list[Path]) -> subprocess.CompletedProcess[str]:
    """`warcio check` (digests verified) over the files."""
    command = [sys.executable, "-m", "warcio.cli", "check", *map(str, files)]
    return subprocess.run(command, capture_output=True, text=True, check=False)


def assert_archive(root: Path) -> int:
    """Every WARC file of the workspace passes `warcio check`, and every page row that
    points at a record finds it there: a response or revisit record with that id, for the
    page's final URL. Returns how many rows point at one."""
    files = sorted((root / "warc").glob("*.warc.gz"))
    assert files, "no WARC file"
    checked = warcio_check(files)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    conn = sqlite3.connect(root / "collie.db")
    rows = conn.execute(
        "SELECT final_url, warc_file, warc_offset, warc_length, warc_record_id FROM pages "
        "WHERE warc_file IS NOT NULL"
    ).fetchall()
    conn.close()
    for final_url, name, offset, length, record_id in rows:
        assert offset + length <= (root / "warc" / name).stat().st_size
        record, _ = record_at(root / "warc" / name, offset)
        assert record.rec_headers.get_header("WARC-Record-ID") == record_id
        assert record.rec_type in ("response", "revisit")
        assert record.rec_headers.get_header("WARC-Target-URI") == final_url
    return len(rows)
