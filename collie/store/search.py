"""The search cache: every query sent from the workspace (committed as pending before it is
sent, so a crash never sends it twice), its results and the distinct result URLs."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

from collie.errors import WorkspaceError
from collie.models import SearchResponse, SearchResult
from collie.store.base import Database, now_iso
from collie.urls import canonical_url

# A query's first page (its next pages are requests with an offset, rows of their own).
FIRST_PAGE = "COALESCE(json_extract(params, '$.offset'), 0) = 0"


@dataclass(frozen=True)
class QueryRecord:
    id: int
    backend: str
    text: str
    status: str  # pending, done, failed, lost
    attempts: int
    created_at: str
    finished_at: str | None
    result_count: int | None
    error: str | None


@dataclass(frozen=True)
class ResultUrl:
    canonical_url: str
    url: str  # as the first query that found it gave it
    query_ids: list[int]


class QueryCache:
    """The `queries` and `search_results` tables of one open workspace."""

    def __init__(self, db: Database, run_id: int | None = None) -> None:
        self.db, self.conn = db, db.conn
        self.run_id = run_id  # the search run whose requests are counted (begin_run)

    def begin_run(self, backend: str) -> int:
        """A run that may search begins: its requests are counted from now on."""
        with self.db.batch():
            cursor = self.conn.execute(
                "INSERT INTO search_runs (started_at, backend) VALUES (?, ?)",
                (now_iso(), backend),
            )
        self.run_id = cursor.lastrowid
        return int(cursor.lastrowid or 0)

    def search_runs(self) -> list[tuple[str, str, int]]:
        """(started at, backend, requests sent) of every run that sent a request."""
        rows = self.conn.execute(
            "SELECT started_at, backend, requests FROM search_runs WHERE requests > 0 ORDER BY id"
        )
        return [(r[0], r[1], int(r[2])) for r in rows]

    def query_record(self, backend: str, text: str, params: str) -> QueryRecord | None:
        row = self.conn.execute(
            "SELECT * FROM queries WHERE backend = ? AND text = ? AND params = ?",
            (backend, text, params),
        ).fetchone()
        return _query_record(row) if row else None

    def last_query(self) -> tuple[str, str, dict[str, object]] | None:
        """(backend, text, parameters) of the query sent last, or None before any."""
        row = self.conn.execute(
            "SELECT backend, text, params FROM queries ORDER BY id DESC LIMIT 1"
        ).fetchone()
        if row is None:
            return None
        try:
            params = json.loads(row[2])
        except ValueError:
            params = {}
        return row[0], row[1], params if isinstance(params, dict) else {}

    def begin_query(
        self, backend: str, text: str, params: str, loop: int | None, words: list[str] | None
    ) -> int:
        """Record a query as pending, committed before it is sent; return its id.

        Only a new query or one that failed before may be (re)sent: a query that is done,
        lost or pending (another run, or a crash) raises WorkspaceError.
        """
        with self.db.batch():
            cursor = self.conn.execute(
                "INSERT INTO queries (backend, text, params, loop, words, status, attempts, "
                "created_at) VALUES (?, ?, ?, ?, ?, 'pending', 1, ?) "
                "ON CONFLICT (backend, text, params) DO UPDATE SET status = 'pending', "
                "attempts = attempts + 1, error = NULL WHERE status = 'failed'",
                (backend, text, params, loop, json.dumps(words) if words else None, now_iso()),
            )
            if cursor.rowcount == 1 and self.run_id is not None:
                self.conn.execute(
                    "UPDATE search_runs SET requests = requests + 1 WHERE id = ?", (self.run_id,)
                )
        record = self.query_record(backend, text, params)
        if cursor.rowcount != 1 or record is None:
            raise WorkspaceError(
                f"The query {text!r} was already sent from this workspace; it is not sent twice."
            )
        return record.id

    def finish_query(self, query_id: int, response: SearchResponse) -> None:
        """Store a query's results and mark it done, in one transaction."""
        rows = [
            (query_id, r.rank, r.url, canonical_url(r.url), r.title, r.snippet)
            for r in response.results
        ]
        with self.db.batch():
            self.conn.execute("DELETE FROM search_results WHERE query_id = ?", (query_id,))
            self.conn.executemany(
                "INSERT INTO search_results (query_id, rank, url, canonical_url, title, snippet) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                rows,
            )
            self.conn.execute(
                "UPDATE queries SET status = 'done', finished_at = ?, result_count = ?, raw = ? "
                "WHERE id = ?",
                (now_iso(), len(rows), json.dumps(response.raw, ensure_ascii=False), query_id),
            )

    def fail_query(self, query_id: int, error: str) -> None:
        with self.db.batch():
            self.conn.execute(
                "UPDATE queries SET status = 'failed', finished_at = ?, error = ? WHERE id = ?",
                (now_iso(), error, query_id),
            )

    def mark_pending_lost(self) -> int:
        """Queries left pending by a crash: their results are unknown; never re-sent."""
        with self.db.batch():
            cursor = self.conn.execute(
                "UPDATE queries SET status = 'lost', error = 'results lost in an interrupted "
                "run' WHERE status = 'pending'"
            )
        return cursor.rowcount

    def query_results(self, query_id: int, backend: str) -> list[SearchResult]:
        rows = self.conn.execute(
            "SELECT rank, url, title, snippet FROM search_results WHERE query_id = ? ORDER BY rank",
            (query_id,),
        ).fetchall()
        return [SearchResult(r["url"], r["title"], r["snippet"], r["rank"], backend) for r in rows]

    def loop_queries(self, loop: int) -> list[tuple[str, list[str], str]]:
        """(text, seed words, status) of the queries recorded for a loop, in order (their
        first pages: a later page is asked for by the loop again, or not)."""
        rows = self.conn.execute(
            "SELECT text, words, status FROM queries WHERE loop = ? AND words IS NOT NULL "
            "AND COALESCE(json_extract(params, '$.offset'), 0) = 0 ORDER BY id",
            (loop,),
        )
        return [(r[0], json.loads(r[1]), r[2]) for r in rows]

    def loop_seed_words(self) -> dict[int, list[str]]:
        """Per loop, the seed words its queries were made of, as they were stored when
        each was sent (in the order the queries first used them; every query recorded,
        answered or not). A loop that recorded no query is not in it."""
        rows = self.conn.execute(
            "SELECT loop, words FROM queries WHERE loop IS NOT NULL AND words IS NOT NULL "
            "ORDER BY loop, id"
        )
        words: dict[int, dict[str, None]] = {}
        for loop, stored in rows:
            words.setdefault(loop, {}).update(dict.fromkeys(json.loads(stored)))
        return {loop: list(used) for loop, used in words.items()}

    def judgements(self, query_id: int) -> list[bool | None]:
        """Whether each result of a query (in rank order) was judged to be in the target
        language (None: not judged yet)."""
        rows = self.conn.execute(
            "SELECT target FROM search_results WHERE query_id = ? ORDER BY rank", (query_id,)
        )
        return [None if r[0] is None else bool(r[0]) for r in rows]

    def record_judgements(self, query_id: int, targets: list[bool], new_sites: int) -> None:
        """A query's results judged (in rank order) and the target sites they brought
        new to the search, in one transaction."""
        rows = self.conn.execute(
            "SELECT rank FROM search_results WHERE query_id = ? ORDER BY rank", (query_id,)
        )
        ranks = [r[0] for r in rows]
        with self.db.batch():
            self.conn.executemany(
                "UPDATE search_results SET target = ? WHERE query_id = ? AND rank = ?",
                [(int(t), query_id, rank) for rank, t in zip(ranks, targets, strict=True)],
            )
            self.conn.execute(
                "UPDATE queries SET new_sites = ? WHERE id = ?", (new_sites, query_id)
            )

    def judged_results(self) -> list[JudgedResult]:
        """Every answered query's results with their judgements, in the order the
        queries were sent (a query's later pages with its first: one sample)."""
        rows = self.conn.execute(
            "SELECT q.id, q.loop, q.text, r.url, r.target, COALESCE(r.title, ''), "
            "COALESCE(r.snippet, ''), COALESCE(r.rank, 0) FROM queries q "
            "LEFT JOIN search_results r ON r.query_id = q.id WHERE q.status = 'done' "
            "ORDER BY q.id, r.rank"
        )
        return [
            JudgedResult(q, loop, text, url, None if t is None else bool(t), title, snippet, rank)
            for q, loop, text, url, t, title, snippet, rank in rows
        ]

    def update_judgements(self, changed: list[tuple[int, int, bool]]) -> None:
        """Results judged again ((query id, rank, target)), in one transaction."""
        with self.db.batch():
            self.conn.executemany(
                "UPDATE search_results SET target = ? WHERE query_id = ? AND rank = ?",
                [(int(t), query_id, rank) for query_id, rank, t in changed],
            )

    def word_yields(self, before_loop: int) -> dict[str, tuple[int, int]]:
        """Per seed word, over the queries of earlier loops that were answered: (queries
        that brought a target document, queries that brought none). A query brought
        every target-language document among its results, whoever queued the page first
        (a crawl may have, meanwhile) and whichever copy was kept: what the queries send
        next must not depend on fetch timing."""
        rows = self.conn.execute(
            "SELECT q.words, EXISTS (SELECT 1 FROM search_results r JOIN pages p ON "
            "p.url = r.canonical_url JOIN documents d ON d.page_id = p.id WHERE "
            "r.query_id = q.id AND d.kind = 'target') FROM queries q WHERE "
            "q.status = 'done' AND q.loop < ? AND q.words IS NOT NULL",
            (before_loop,),
        )
        yields: dict[str, list[int]] = {}
        for words, brought in rows:
            for word in json.loads(words):
                counts = yields.setdefault(word, [0, 0])
                counts[0 if brought else 1] += 1
        return {word: (hits, misses) for word, (hits, misses) in yields.items()}

    def sent_combinations(self) -> set[tuple[str, ...]]:
        """Seed-word combinations of every query recorded, sent or not (order-free)."""
        rows = self.conn.execute("SELECT words FROM queries WHERE words IS NOT NULL")
        return {tuple(sorted(json.loads(row[0]))) for row in rows}

    def requests_sent(self) -> int:
        """Search requests made in this workspace (what a query budget counts)."""
        return int(
            self.conn.execute("SELECT COALESCE(SUM(attempts), 0) FROM queries").fetchone()[0]
        )

    def requests_since(self, iso_time: str) -> int:
        """Search requests made in this workspace since `iso_time` (UTC, ISO 8601)."""
        row = self.conn.execute(
            "SELECT COALESCE(SUM(attempts), 0) FROM queries WHERE created_at >= ?", (iso_time,)
        )
        return int(row.fetchone()[0])

    def query_counts(self) -> dict[str, int]:
        """Queries by status: a query's first page, its next pages being requests of
        their own (`requests_sent` counts every request)."""
        rows = self.conn.execute(
            f"SELECT status, COUNT(*) FROM queries WHERE {FIRST_PAGE} GROUP BY status"
        )
        return {r[0]: r[1] for r in rows}

    def backends_used(self) -> list[str]:
        """The backends queries were sent to, the most used first."""
        rows = self.conn.execute(
            f"SELECT backend FROM queries WHERE {FIRST_PAGE} GROUP BY backend "
            "ORDER BY COUNT(*) DESC, backend"
        )
        return [r[0] for r in rows]

    def result_url_count(self) -> int:
        row = self.conn.execute("SELECT COUNT(DISTINCT canonical_url) FROM search_results")
        return int(row.fetchone()[0])

    def result_urls(self) -> list[ResultUrl]:
        """Distinct result URLs (by canonical form) with every query that found each."""
        rows = self.conn.execute(
            "SELECT canonical_url, url, query_id FROM search_results ORDER BY query_id, rank"
        ).fetchall()
        found: dict[str, ResultUrl] = {}
        for row in rows:
            entry = found.setdefault(row[0], ResultUrl(row[0], row[1], []))
            if row[2] not in entry.query_ids:
                entry.query_ids.append(row[2])
        return list(found.values())


@dataclass(frozen=True)
class JudgedResult:
    """One result of an answered query (url None: a query that brought no result)."""

    query_id: int
    loop: int | None
    text: str
    url: str | None
    target: bool | None
    title: str = ""
    snippet: str = ""
    rank: int = 0


def _query_record(row: sqlite3.Row) -> QueryRecord:
    return QueryRecord(
        row["id"],
        row["backend"],
        row["text"],
        row["status"],
        row["attempts"],
        row["created_at"],
        row["finished_at"],
        row["result_count"],
        row["error"],
    )
