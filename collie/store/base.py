"""The store's handle on an open workspace database: its connection and folder (taken
from any object that has them, the workspace's handle among them: the store never
imports the workspace); how a 64-bit fingerprint is stored."""

from __future__ import annotations

import datetime as dt
import sqlite3
from pathlib import Path
from typing import Protocol

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


class OpenDatabase(Protocol):
    """An open workspace database: its connection and the workspace's folder
    (collie.workspace.folder.Workspace is one)."""

    @property
    def conn(self) -> sqlite3.Connection: ...

    @property
    def root(self) -> Path: ...


class StoreBase:
    """Reads and writes of the mining tables of one open workspace (the base of the chain)."""

    def __init__(self, ws: OpenDatabase, max_distance: int = 3) -> None:
        self.conn: sqlite3.Connection = ws.conn
        self.root = ws.root
        self.max_distance = max_distance
