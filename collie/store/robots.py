"""robots.txt records kept for the next run: only real answers (rules, allow-all), never
an unreachable robots.txt (collie.robots.UNREACHABLE) nor the "disallow-all" records
older versions wrote for one; each with its origin's tdmrep.json (collie.fetch.tdmrep)."""

from __future__ import annotations

from collections.abc import Iterable

from collie.fetch.robots import KEPT_KINDS, RobotsRecord
from collie.store.base import Database

_KEPT = ", ".join(f"'{kind}'" for kind in sorted(KEPT_KINDS))


class RobotsTable:
    """robots.txt records."""

    def __init__(self, db: Database) -> None:
        self.db, self.conn = db, db.conn

    # -- robots.txt -------------------------------------------------------------------
    def robots_records(self) -> list[RobotsRecord]:
        rows = self.conn.execute(
            "SELECT origin, kind, body, status, fetched_at, tdmrep FROM robots "
            f"WHERE kind IN ({_KEPT})"
        )
        return [RobotsRecord(r[0], r[1], r[2], r[3], r[4], r[5]) for r in rows]

    def save_robots(self, records: Iterable[RobotsRecord]) -> None:
        with self.db.batch():
            self.conn.executemany(
                "INSERT OR REPLACE INTO robots (origin, kind, body, status, fetched_at, "
                "tdmrep) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (r.origin, r.kind, r.body, r.status, r.fetched_at, r.tdmrep)
                    for r in records
                    if r.kind in KEPT_KINDS
                ],
            )
