"""Loops and the frontier: queued URLs, the next batch, referrers and their votes."""

from __future__ import annotations

from collections.abc import Iterable

from collie.models import LoopState, QueuedPage, QueueEntry, Referrer
from collie.store.base import Database, now_iso


class FrontierTable:
    """Loops and the frontier."""

    def __init__(self, db: Database) -> None:
        self.db, self.conn = db, db.conn

    # -- loops ------------------------------------------------------------------------
    def open_loop(self) -> LoopState:
        """The unfinished loop, or a new one after the last finished loop."""
        row = self.conn.execute(
            "SELECT number, searched_at FROM loops WHERE finished_at IS NULL ORDER BY number"
        ).fetchone()
        if row is not None:
            return LoopState(row[0], row[1] is not None, False)
        number = int(
            self.conn.execute("SELECT COALESCE(MAX(number), 0) + 1 FROM loops").fetchone()[0]
        )
        with self.db.batch():
            self.conn.execute(
                "INSERT INTO loops (number, started_at) VALUES (?, ?)", (number, now_iso())
            )
        return LoopState(number, False, False)

    def mark_searched(self, loop: int, stopped: str | None = None) -> None:
        """The loop's search stage is over (`stopped`: why before its planned queries)."""
        with self.db.batch():
            self.conn.execute(
                "UPDATE loops SET searched_at = ?, search_stopped = ? WHERE number = ?",
                (now_iso(), stopped, loop),
            )

    def add_warc_bytes(self, loop: int, written: int) -> None:
        """What a loop appended to the WARC files (added up over its runs)."""
        with self.db.batch():
            self.conn.execute(
                "UPDATE loops SET warc_bytes = warc_bytes + ? WHERE number = ?", (written, loop)
            )

    def finish_loop(self, loop: int) -> None:
        with self.db.batch():
            self.conn.execute(
                "UPDATE loops SET finished_at = ? WHERE number = ?", (now_iso(), loop)
            )

    # -- the frontier -----------------------------------------------------------------
    def enqueue(self, entries: Iterable[QueueEntry]) -> int:
        """Queue URLs not seen before; return how many were new."""
        with self.db.batch():
            return self.insert_queue(entries)

    def insert_queue(self, entries: Iterable[QueueEntry]) -> int:
        rows = [
            (e.url, e.site, e.loop, e.source, e.depth, e.query_id, e.referrer_id, e.priority)
            for e in entries
            if not self._reached_by_redirect(e.url)
        ]
        before = self.conn.total_changes
        self.conn.executemany(
            "INSERT OR IGNORE INTO pages (url, site, loop, source, depth, query_id, "
            "referrer_id, priority, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'queued')",
            rows,
        )
        added = self.conn.total_changes - before
        # A queued crawl link found again gets the priority its referrers now give it.
        self.conn.executemany(
            "UPDATE pages SET priority = ? WHERE url = ? AND status = 'queued' "
            "AND source = 'crawl' AND priority != ?",
            [(r[7], r[0], r[7]) for r in rows if r[3] == "crawl"],
        )
        return added

    def known_before(self, urls: list[str], loop: int) -> set[str]:
        """Those of `urls` that an earlier loop queued (search, crawl or redirect)."""
        known = set()
        for url in urls:
            row = self.conn.execute(
                "SELECT 1 FROM pages WHERE (url = ? OR final_url = ?) AND loop < ? LIMIT 1",
                (url, url, loop),
            ).fetchone()
            if row is not None:
                known.add(url)
        return known

    def answered_urls(self) -> list[str]:
        """Every URL a server answered for (the final URL of each fetched page)."""
        rows = self.conn.execute(
            "SELECT COALESCE(final_url, url) FROM pages WHERE http_status IS NOT NULL"
        )
        return [r[0] for r in rows]

    def _reached_by_redirect(self, url: str) -> bool:
        """Was `url` already fetched as where another URL redirected to? (It is not
        requested again; its text was recorded under the URL that led there.)"""
        row = self.conn.execute(
            "SELECT 1 FROM pages WHERE final_url = ? AND url != ? LIMIT 1", (url, url)
        ).fetchone()
        return row is not None

    def next_batch(self, limit: int) -> list[QueuedPage]:
        """The most promising queued pages: priority first, then shallow, then oldest."""
        rows = self.conn.execute(
            "SELECT id, url, site, loop, source, depth FROM pages WHERE status = 'queued' "
            "ORDER BY priority DESC, depth, id LIMIT ?",
            (limit,),
        ).fetchall()
        return [QueuedPage(*tuple(r)) for r in rows]

    def next_per_site(self, per_site: int, limit: int) -> list[QueuedPage]:
        """The `per_site` most promising queued pages of each site (as `next_batch`
        orders them), the most promising first, at most `limit`: what keeps every site
        with work busy without taking a whole big site first."""
        rows = self.conn.execute(
            "SELECT id, url, site, loop, source, depth FROM ("
            "SELECT id, url, site, loop, source, depth, priority, ROW_NUMBER() OVER ("
            "PARTITION BY site ORDER BY priority DESC, depth, id) AS rank "
            "FROM pages WHERE status = 'queued') WHERE rank <= ? "
            "ORDER BY rank, priority DESC, depth, id LIMIT ?",
            (per_site, limit),
        ).fetchall()
        return [QueuedPage(*tuple(r)) for r in rows]

    def still_queued(self, ids: list[int]) -> set[int]:
        """Which of these pages are still queued."""
        found: set[int] = set()
        for i in range(0, len(ids), 500):
            part = ids[i : i + 500]
            marks = ",".join("?" * len(part))
            found.update(
                r[0]
                for r in self.conn.execute(
                    f"SELECT id FROM pages WHERE status = 'queued' AND id IN ({marks})", part
                )
            )
        return found

    def queued_count(self) -> int:
        return int(
            self.conn.execute("SELECT COUNT(*) FROM pages WHERE status = 'queued'").fetchone()[0]
        )

    def referrers(self, url: str) -> list[Referrer]:
        """Classified pages linking to `url` (what the link's language is guessed from)."""
        rows = self.conn.execute(
            "SELECT p.lang, p.text_chars, p.lang_attribute FROM links l "
            "JOIN pages p ON p.id = l.from_page WHERE l.to_url = ? AND p.lang IS NOT NULL",
            (url,),
        ).fetchall()
        return [Referrer(r[0], r[1] or 0, r[2] or "") for r in rows]
