"""Running the real `collie` entry point in-process, with its exit-code mapping."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

import pytest

from collie.cli import main


@dataclass
class Run:
    code: int
    out: str
    err: str


def run_collie(capsys: pytest.CaptureFixture[str], *args: str) -> Run:
    capsys.readouterr()
    with pytest.raises(SystemExit) as info:
        main(list(args))
    captured = capsys.readouterr()
    code = info.value.code if isinstance(info.value.code, int) else 1
    return Run(code, captured.out, captured.err)


def rows(root: Path, sql: str) -> list[tuple[object, ...]]:
    """The rows of `sql` in the workspace's database, read and closed."""
    conn = sqlite3.connect(root / "collie.db")
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()
