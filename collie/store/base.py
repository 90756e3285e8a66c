"""The store's handle on an open workspace: its connection, cache/ and the near-duplicate
lookups; bodies in cache/."""

from __future__ import annotations

import datetime as dt
import sqlite3

from collie.bodycache import CompressedBody, compress_body, write_body
from collie.dedup import Deduplicator
from collie.workspace import Workspace


def now_iso_precise() -> str:
    """UTC time with microseconds: judgements a second apart must still be ordered."""
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="microseconds")


class StoreBase:
    """Reads and writes of the mining tables of one open workspace (the base of the chain)."""

    def __init__(self, ws: Workspace, max_distance: int = 3) -> None:
        self.conn: sqlite3.Connection = ws.conn
        self.cache = ws.root / "cache"
        self.max_distance = max_distance
        self._index: Deduplicator | None = None

    def save_body(self, body: bytes | CompressedBody) -> str:
        """Keep a fetched body in cache/ (gzip, named by its SHA-1); return the SHA-1.
        Written before the page is recorded, so a recorded page always has its body."""
        return write_body(
            self.cache, body if isinstance(body, CompressedBody) else compress_body(body)
        )
