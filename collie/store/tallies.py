"""The export's per-loop counts, kept for `collie status` and `collie report`
(`export_tallies`), and the counter of changes to what an export reads
(`corpus_version`, moved by the triggers of migrations.py's "export-tallies")."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from collie.store.base import now_iso

# How long a status waits for another writer (a run's batch) before it leaves the
# counts unkept: a reader never waits the connection's 30 s for a cache.
KEEP_WAIT_MS = 200


class TallyStore:
    """`corpus_version` and `export_tallies`, on one open connection."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def corpus_version(self) -> int:
        """How many changes the corpus's documents (and their pages) have seen."""
        row = self.conn.execute("SELECT version FROM corpus_version WHERE id = 1").fetchone()
        return int(row[0]) if row else 0

    def tally(self, fingerprint: str) -> dict[int, dict[str, int]] | None:
        """The per-loop counts kept under `fingerprint`, or None (none kept, or kept
        for another state of the corpus or other settings)."""
        row = self.conn.execute(
            "SELECT tally FROM export_tallies WHERE fingerprint = ?", (fingerprint,)
        ).fetchone()
        if row is None:
            return None
        return {int(loop): counts for loop, counts in json.loads(row[0]).items()}

    def keep_tally(self, fingerprint: str, tally: dict[int, dict[str, Any]]) -> bool:
        """Keep the per-loop counts under `fingerprint` in place of any before; False
        when the database cannot be written now (a read-only workspace, another writer
        holding it): the counts are then only not kept."""
        wait = self.conn.execute("PRAGMA busy_timeout").fetchone()[0]
        self.conn.execute(f"PRAGMA busy_timeout = {KEEP_WAIT_MS}")
        try:
            with self.conn:
                self.conn.execute("DELETE FROM export_tallies")
                self.conn.execute(
                    "INSERT INTO export_tallies (fingerprint, tally, computed_at) VALUES (?, ?, ?)",
                    (fingerprint, json.dumps(tally, sort_keys=True), now_iso()),
                )
        except sqlite3.OperationalError:
            if self.conn.in_transaction:  # a commit refused leaves its transaction open
                self.conn.rollback()
            return False
        finally:
            self.conn.execute(f"PRAGMA busy_timeout = {int(wait)}")
        return True
