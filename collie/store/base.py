"""The handle on an open workspace database (`Database`: its connection, its folder and
the one way to open a transaction; the workspace holds it, and the store never imports
the workspace); how a 64-bit fingerprint is stored."""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_SIGN = 1 << 63


def to_sqlite(fingerprint: int) -> int:
    """A fingerprint as SQLite stores it: a signed 64-bit integer (two's complement)."""
    return fingerprint - (1 << 64) if fingerprint >= _SIGN else fingerprint


def from_sqlite(value: int) -> int:
    """The fingerprint that `to_sqlite` stored."""
    return value + (1 << 64) if value < 0 else value


def now_iso() -> str:
    """UTC time to the second, as every row records it."""
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def now_iso_precise() -> str:
    """UTC time with microseconds: judgements a second apart must still be ordered."""
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="microseconds")


class Database:
    """One open workspace database: its connection, the workspace's folder, and `batch`,
    the one way a transaction is opened. A workspace has one (Workspace.db), which
    every store and table of it shares, so that a batch opened by one owner holds the
    writes of every other inside it."""

    def __init__(self, conn: sqlite3.Connection, root: Path) -> None:
        self.conn, self.root = conn, root
        self._depth = 0  # batches open: only the outermost commits

    @contextmanager
    def batch(self, immediate: bool = False) -> Iterator[None]:
        """One transaction: every write inside it is committed at its end, or none on any
        error (rolled back). A batch opened inside another is part of it. `immediate`
        takes the write lock now rather than at the first write (a long rewrite that
        must not find another writer half-way)."""
        if self._depth:
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            return
        self._depth = 1
        try:
            if immediate:
                self.conn.execute("BEGIN IMMEDIATE")
            with self.conn:
                yield
        finally:
            self._depth = 0
