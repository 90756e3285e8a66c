"""The export's per-loop counts and the site labels, kept for `collie status` and
`collie report` (`export_tallies`, `site_labels_kept`), and the counter of changes to
what an export reads (`corpus_version`, moved by the triggers of migrations.py's
"export-tallies")."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from collie.store.base import Database, now_iso

# How long a status waits for another writer (a run's batch) before it leaves the
# counts unkept: a reader never waits the connection's 30 s for a cache.
KEEP_WAIT_MS = 200


class TallyStore:
    """`corpus_version` and `export_tallies`, on one open connection."""

    def __init__(self, db: Database) -> None:
        self.db, self.conn = db, db.conn

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
        return self._keep("export_tallies", "tally", fingerprint, tally)

    def kept_labels(self, fingerprint: str) -> dict[str, list[list[str]]] | None:
        """The site labels kept under `fingerprint` (site -> [[label, reason], ...]),
        or None."""
        row = self.conn.execute(
            "SELECT labels FROM site_labels_kept WHERE fingerprint = ?", (fingerprint,)
        ).fetchone()
        return None if row is None else dict(json.loads(row[0]))

    def keep_labels(self, fingerprint: str, labels: dict[str, list[list[str]]]) -> bool:
        """Keep the site labels under `fingerprint`, as `keep_tally` keeps the counts."""
        return self._keep("site_labels_kept", "labels", fingerprint, labels)

    def _keep(self, table: str, column: str, fingerprint: str, value: Any) -> bool:
        """`value` as the one row of `table` (JSON in `column`); False when the database
        cannot be written now."""
        wait = self.conn.execute("PRAGMA busy_timeout").fetchone()[0]
        self.conn.execute(f"PRAGMA busy_timeout = {KEEP_WAIT_MS}")
        try:
            with self.db.batch():
                self.conn.execute(f"DELETE FROM {table}")
                self.conn.execute(
                    f"INSERT INTO {table} (fingerprint, {column}, computed_at) VALUES (?, ?, ?)",
                    (fingerprint, json.dumps(value, sort_keys=True), now_iso()),
                )
        except sqlite3.OperationalError:
            if self.conn.in_transaction:  # a commit refused leaves its transaction open
                self.conn.rollback()
            return False
        finally:
            self.conn.execute(f"PRAGMA busy_timeout = {int(wait)}")
        return True
