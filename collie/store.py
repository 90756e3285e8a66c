"""The mining loop's state in the workspace database: loops, the frontier, pages,
documents and their fingerprints, links, sites, robots.txt records.

workspace.py opens the workspace and keeps the seed documents and the search cache;
this module reads and writes what a run harvests (tables of the `mining` migration).
Every batch of fetched pages is recorded in one transaction, so a run killed at any
moment leaves each page either still queued (fetched again on resume) or recorded with
its document: never half.

Near-duplicates: a new target document is compared with every earlier target document
that is not itself a duplicate: by exact key (an indexed column), then by simhash within
`dedup.max_distance` through a `Deduplicator` built from the stored fingerprints when a
run first needs it and kept up to date as documents are recorded. Measured against four
indexed 16-bit block columns in SQLite (benchmarks/bench_dedup.py): random inserts into
four B-trees rewrite most of their pages at every commit, 43 s for 200,000 documents and
growing faster than linearly, while this design takes 45 s for 1,000,000 (insert and
query, 319 MB peak). A failed batch resets the index, rebuilt from what was committed.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from collie.bodycache import CompressedBody, compress_body, write_body
from collie.crawl import SHORT_REFERRER_BYTES, Referrer
from collie.dedup import Deduplicator, fingerprints, from_sqlite, mark_duplicate, to_sqlite
from collie.models import (
    DocumentRow,
    LoopState,
    PageOutcome,
    QueuedPage,
    QueueEntry,
    SuspectRow,
)
from collie.reasons import RELATIVE_SUSPECTED
from collie.robots import RobotsRecord
from collie.workspace import Workspace, now_iso


def now_iso_precise() -> str:
    """UTC time with microseconds: judgements a second apart must still be ordered."""
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="microseconds")


class Store:
    """Reads and writes of the mining tables of one open workspace."""

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
        with self.conn:
            self.conn.execute(
                "INSERT INTO loops (number, started_at) VALUES (?, ?)", (number, now_iso())
            )
        return LoopState(number, False, False)

    def mark_searched(self, loop: int) -> None:
        with self.conn:
            self.conn.execute(
                "UPDATE loops SET searched_at = ? WHERE number = ?", (now_iso(), loop)
            )

    def finish_loop(self, loop: int) -> None:
        with self.conn:
            self.conn.execute(
                "UPDATE loops SET finished_at = ? WHERE number = ?", (now_iso(), loop)
            )

    # -- the frontier -----------------------------------------------------------------
    def enqueue(self, entries: Iterable[QueueEntry]) -> int:
        """Queue URLs not seen before; return how many were new."""
        with self.conn:
            return self._insert_queue(entries)

    def _insert_queue(self, entries: Iterable[QueueEntry]) -> int:
        rows = [
            (e.url, e.site, e.loop, e.source, e.depth, e.query_id, e.referrer_id, e.priority)
            for e in entries
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

    def next_batch(self, limit: int) -> list[QueuedPage]:
        """The most promising queued pages: priority first, then shallow, then oldest."""
        rows = self.conn.execute(
            "SELECT id, url, site, loop, source, depth FROM pages WHERE status = 'queued' "
            "ORDER BY priority DESC, depth, id LIMIT ?",
            (limit,),
        ).fetchall()
        return [QueuedPage(*tuple(r)) for r in rows]

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

    def vote(self, url: str, min_votes: int) -> str | None:
        """The majority language of the long referrers of `url` when at least
        `min_votes` voted (Hayati's inlink vote for short pages), else None."""
        votes = [r.lang for r in self.referrers(url) if r.text_bytes >= SHORT_REFERRER_BYTES]
        if len(votes) < min_votes:
            return None
        best = max(sorted(set(votes)), key=votes.count)
        return best if votes.count(best) * 2 > len(votes) else None

    # -- sites ------------------------------------------------------------------------
    def site_counts(self, site: str) -> tuple[int, int, str | None]:
        """(pages fetched, target pages, stop reason) of a site."""
        row = self.conn.execute(
            "SELECT pages, target, stopped FROM sites WHERE site = ?", (site,)
        ).fetchone()
        return (row[0], row[1], row[2]) if row else (0, 0, None)

    def site_letters(self, site: str) -> tuple[int, int]:
        """(letters taken for the target, letters nearest to it that failed its tests) of
        a site's fetched pages."""
        row = self.conn.execute(
            "SELECT target_letters, near_letters FROM sites WHERE site = ?", (site,)
        ).fetchone()
        return (row[0], row[1]) if row else (0, 0)

    def suspect_site(self, site: str, pass_share: float) -> int:
        """A relatives' site: stop crawling it and make its target documents suspects
        (level "site"; their documents rows stay, out of the corpus). Returns how many."""
        reason = f"{RELATIVE_SUSPECTED}:site {pass_share:.2f}"
        rows = self.conn.execute(
            "SELECT p.id, d.text, d.paragraphs, d.words FROM pages p JOIN documents d ON "
            "d.page_id = p.id WHERE p.site = ? AND p.status IN ('kept', 'duplicate')",
            (site,),
        ).fetchall()
        self.stop_site(site, reason)
        with self.conn:
            for page_id, text, paragraphs, words in rows:
                marked = [(*p[:3], p[1] == "und") for p in json.loads(paragraphs)]
                self.insert_suspect(page_id, SuspectRow("site", pass_share, text, marked, words))
            self.conn.executemany(
                "UPDATE pages SET status = 'dropped', reason = ? WHERE id = ?",
                [(reason, r[0]) for r in rows],
            )
        self._index = None  # built again without them
        return len(rows)

    def corpus_paragraphs(self) -> list[tuple[int, str, str, list[Any], int]]:
        """(page id, site, text, labelled paragraphs, words) of the corpus's pages: kept
        target documents, near-duplicates not included."""
        rows = self.conn.execute(
            "SELECT p.id, p.site, d.text, d.paragraphs, d.words FROM pages p JOIN documents d "
            "ON d.page_id = p.id WHERE p.status = 'kept' AND d.kind = 'target' ORDER BY p.id"
        )
        return [(r[0], r[1], r[2], json.loads(r[3]), r[4]) for r in rows]

    def suspect_paragraphs(self) -> list[tuple[str, str, list[Any]]]:
        """(site, text, paragraphs with the near flag) of the relative-suspected pages
        that no reviewer has called target text."""
        rows = self.conn.execute(
            "SELECT p.site, s.text, s.paragraphs FROM suspects s JOIN pages p ON "
            "p.id = s.page_id WHERE COALESCE(s.label, '') != 'target' ORDER BY s.page_id"
        )
        return [(r[0], r[1], json.loads(r[2])) for r in rows]

    def forget_suspects(self, page_ids: Sequence[int]) -> list[int]:
        """Drop the suspects rows of pages about to be recorded as documents after all
        (and the documents rows a suspected corpus page kept: recorded again). A page
        whose documents row another row refers to (a near-duplicate of it, a review)
        stays a suspect. Returns the pages freed."""
        rows = self.conn.execute(
            "SELECT d.page_id FROM documents d WHERE d.id IN (SELECT duplicate_of FROM "
            "documents WHERE duplicate_of IS NOT NULL UNION SELECT doc_id FROM reviews)"
        )
        referred = {r[0] for r in rows}
        freed = [i for i in page_ids if i not in referred]
        with self.conn:
            for table in ("suspects", "documents"):
                self.conn.executemany(
                    f"DELETE FROM {table} WHERE page_id = ?", [(i,) for i in freed]
                )
        self._index = None
        return freed

    def judge_again(
        self,
        relabelled: Sequence[tuple[int, Sequence[Any], float]],
        suspected: Sequence[tuple[int, SuspectRow]],
        site_letters: dict[str, tuple[int, int]],
    ) -> None:
        """In one transaction: the corpus pages' paragraphs labelled again by a new model
        ((page id, paragraphs, target share)), the pages it makes relative-suspected
        (status dropped, documents rows kept), and the sites' letters counted again."""
        with self.conn:
            for page_id, paragraphs, share in relabelled:
                self.conn.execute(
                    "UPDATE documents SET paragraphs = ? WHERE page_id = ?",
                    (json.dumps(paragraphs, ensure_ascii=False), page_id),
                )
                self.conn.execute(
                    "UPDATE pages SET target_share = ? WHERE id = ?", (round(share, 4), page_id)
                )
            for page_id, suspect in suspected:
                self.insert_suspect(page_id, suspect)
                reason = f"{RELATIVE_SUSPECTED}:{suspect.level} {suspect.pass_share:.2f}"
                self.conn.execute(
                    "UPDATE pages SET status = 'dropped', reason = ?, lang = 'und' WHERE id = ?",
                    (reason, page_id),
                )
            self.conn.executemany(
                "UPDATE sites SET target_letters = ?, near_letters = ? WHERE site = ?",
                [(mine, near, site) for site, (mine, near) in sorted(site_letters.items())],
            )
        if suspected:
            self._index = None  # built again without them

    def site_size(self, site: str) -> int:
        """Pages of the site known to the frontier (queued or done)."""
        return int(
            self.conn.execute("SELECT COUNT(*) FROM pages WHERE site = ?", (site,)).fetchone()[0]
        )

    def stop_site(self, site: str, reason: str) -> None:
        with self.conn:
            self.conn.execute(
                "INSERT INTO sites (site, stopped) VALUES (?, ?) "
                "ON CONFLICT (site) DO UPDATE SET stopped = excluded.stopped",
                (site, reason),
            )
            self.conn.execute(
                "UPDATE pages SET status = 'dropped', reason = ? "
                "WHERE site = ? AND status = 'queued'",
                (f"site-stopped:{reason}", site),
            )

    # -- recording fetched pages --------------------------------------------------------
    @contextmanager
    def batch(self) -> Iterator[Store]:
        """One transaction for a batch's writes (`write`, `enqueue_in_batch`); reads
        inside it see them. On any error everything is rolled back, and the near-duplicate
        index, which may hold rolled-back documents, is built again when next needed."""
        try:
            with self.conn:
                yield self
        except BaseException:
            self._index = None
            raise

    def record(self, outcomes: Sequence[PageOutcome]) -> None:
        """Record a batch in one transaction, near-duplicates marked (tests, benchmarks;
        the run records through `batch`, planning links in the same transaction)."""
        with self.batch():
            for outcome in outcomes:
                mark_duplicate(outcome, self.find_duplicate)
                self.write(outcome)

    def enqueue_in_batch(self, entries: Iterable[QueueEntry]) -> int:
        """Queue URLs not seen before, inside `batch`; return how many were new."""
        return self._insert_queue(entries)

    def write(self, o: PageOutcome) -> None:
        """A page's outcome, its document (an original target document joins the
        near-duplicate index), links, suspicion and site counts (inside `batch`)."""
        self._record_one(o)

    def _record_one(self, o: PageOutcome) -> None:
        if o.document is not None:
            self._insert_document(o)
        self.conn.execute(
            "UPDATE pages SET status = ?, reason = ?, final_url = ?, http_status = ?, "
            "fetched_at = ?, encoding = ?, encoding_method = ?, title = ?, "
            "lang_attribute = ?, lang = ?, lang_prob = ?, target_share = ?, text_chars = ?, "
            "body_sha1 = ?, content_type = ? WHERE id = ?",
            (
                o.status,
                o.reason,
                o.final_url,
                o.http_status,
                o.fetched_at,
                o.encoding,
                o.encoding_method,
                o.title,
                o.lang_attribute,
                o.lang,
                o.lang_prob,
                o.target_share,
                o.text_chars,
                o.body_sha1,
                o.content_type,
                o.page_id,
            ),
        )
        self.conn.executemany(
            "INSERT OR IGNORE INTO links (from_page, to_url, anchor) VALUES (?, ?, ?)",
            [(o.page_id, url, anchor[:200]) for url, anchor in o.links],
        )
        if o.suspect is not None:
            self.insert_suspect(o.page_id, o.suspect)
        if o.status in ("kept", "wronglang", "duplicate") or o.suspect is not None:
            self.conn.execute(
                "INSERT INTO sites (site, pages, target, target_letters, near_letters) "
                "VALUES (?, 1, ?, ?, ?) ON CONFLICT (site) DO UPDATE SET pages = pages + 1, "
                "target = target + excluded.target, "
                "target_letters = target_letters + excluded.target_letters, "
                "near_letters = near_letters + excluded.near_letters",
                (o.site, int(o.status == "kept"), o.target_letters, o.near_letters),
            )

    def insert_suspect(self, page_id: int, suspect: SuspectRow) -> None:
        """The suspects row of a page (in the caller's transaction)."""
        self.conn.execute(
            "INSERT OR REPLACE INTO suspects (page_id, loop, level, pass_share, text, "
            "paragraphs, words) SELECT ?, loop, ?, ?, ?, ?, ? FROM pages WHERE id = ?",
            (
                page_id,
                suspect.level,
                round(suspect.pass_share, 4),
                suspect.text,
                json.dumps(suspect.paragraphs, ensure_ascii=False),
                suspect.words,
                page_id,
            ),
        )

    def _insert_document(self, o: PageOutcome) -> None:
        doc = o.document
        assert doc is not None
        key, fingerprint = fingerprints(doc)
        self.insert_document(o.page_id, doc, key, fingerprint)

    def insert_document(self, page_id: int, doc: DocumentRow, key: str, fingerprint: int) -> int:
        """One documents row (in the caller's transaction); an original target document
        joins the near-duplicate index."""
        cursor = self.conn.execute(
            "INSERT INTO documents (page_id, loop, kind, lang, text, paragraphs, words, "
            "exact_key, simhash, duplicate_of) "
            "SELECT ?, loop, ?, ?, ?, ?, ?, ?, ?, ? FROM pages WHERE id = ?",
            (
                page_id,
                doc.kind,
                doc.lang,
                doc.text,
                json.dumps(doc.paragraphs, ensure_ascii=False),
                doc.words,
                key,
                to_sqlite(fingerprint),
                doc.duplicate_of,
                page_id,
            ),
        )
        doc_id = int(cursor.lastrowid or 0)
        if doc.kind == "target" and doc.duplicate_of is None:
            self.deduplicator().add(doc_id, key, fingerprint)
        return doc_id

    def deduplicator(self) -> Deduplicator:
        """The near-duplicate lookups over the original target documents (fingerprints
        loaded on first use, exact keys from their indexed column)."""
        if self._index is None:
            found = Deduplicator(self.max_distance, self._exact_original)
            rows = self.conn.execute(
                "SELECT d.id, d.simhash FROM documents d JOIN pages p ON p.id = d.page_id "
                "WHERE d.kind = 'target' AND d.duplicate_of IS NULL AND p.status = 'kept' "
                "ORDER BY d.id"
            )
            found.index.add_all((doc_id, from_sqlite(value)) for doc_id, value in rows)
            self._index = found
        return self._index

    def _exact_original(self, key: str) -> int | None:
        row = self.conn.execute(
            "SELECT MIN(d.id) FROM documents d JOIN pages p ON p.id = d.page_id WHERE "
            "d.exact_key = ? AND d.kind = 'target' AND d.duplicate_of IS NULL "
            "AND p.status = 'kept'",
            (key,),
        ).fetchone()
        return int(row[0]) if row[0] is not None else None

    def find_duplicate(self, key: str, fingerprint: int) -> int | None:
        """The first original target document with the same exact key, else the closest
        within the Hamming distance, else None."""
        return self.deduplicator().find(key, fingerprint)

    # -- what later loops learn from ------------------------------------------------------
    def document_texts(self, kind: str, before_loop: int) -> list[str]:
        """Texts of the documents of a kind harvested before a loop (target: not the
        near-duplicates)."""
        rows = self.conn.execute(
            "SELECT d.text FROM documents d JOIN pages p ON p.id = d.page_id WHERE d.kind = ? "
            "AND d.duplicate_of IS NULL AND d.loop < ? AND p.status IN ('kept', 'wronglang') "
            "ORDER BY d.id",
            (kind, before_loop),
        )
        return [r[0] for r in rows]

    def suspect_texts(self, before_loop: int) -> list[str]:
        """Texts of the relative-suspected pages of the loops before `before_loop`
        (the seed list's wrong-language text: their words are the relatives')."""
        rows = self.conn.execute(
            "SELECT text FROM suspects WHERE loop < ? AND COALESCE(label, '') != 'target' "
            "ORDER BY page_id",
            (before_loop,),
        )
        return [r[0] for r in rows]

    def export_rows(
        self, loop: int | None = None, source: str | None = None, min_share: float = 0.0
    ) -> Iterator[dict[str, Any]]:
        """The corpus: original target documents with what is known of their pages."""
        where = [
            "d.kind = 'target'",
            "d.duplicate_of IS NULL",
            "p.status = 'kept'",
            "COALESCE(p.target_share, 1) >= ?",
        ]
        params: list[Any] = [min_share]
        if loop is not None:
            where.append("d.loop = ?")
            params.append(loop)
        if source is not None:
            where.append("p.source = ?")
            params.append(source)
        rows = self.conn.execute(
            "SELECT d.id, p.url, p.final_url, p.title, d.loop, p.source, p.depth, q.text AS "
            "query, r.url AS referrer, d.lang, p.lang_prob, p.target_share, d.words, "
            "p.encoding, p.encoding_method, p.fetched_at, d.simhash, d.text, d.paragraphs "
            "FROM documents d JOIN pages p ON p.id = d.page_id "
            "LEFT JOIN queries q ON q.id = p.query_id LEFT JOIN pages r ON r.id = p.referrer_id "
            f"WHERE {' AND '.join(where)} ORDER BY d.id",
            params,
        )
        for row in rows:
            data = dict(row)
            data["simhash"] = f"{from_sqlite(data['simhash']):016x}"
            data["paragraphs"] = json.loads(data["paragraphs"])
            yield data

    def suspect_rows(self, loop: int | None = None) -> Iterator[dict[str, Any]]:
        """The relative-suspected pages, in export_rows' shape (level and pass_share
        added; their paragraphs carry a fourth value: near the target but failing it)."""
        where, params = ("WHERE s.loop = ?", [loop]) if loop is not None else ("", [])
        rows = self.conn.execute(
            "SELECT s.page_id AS id, p.url, p.final_url, p.title, s.loop, p.source, p.depth, "
            "q.text AS query, r.url AS referrer, p.lang, p.lang_prob, p.target_share, "
            "s.words, p.encoding, p.encoding_method, p.fetched_at, NULL AS simhash, s.text, "
            "s.paragraphs, s.level, s.pass_share, s.label FROM suspects s "
            "JOIN pages p ON p.id = s.page_id LEFT JOIN queries q ON q.id = p.query_id "
            f"LEFT JOIN pages r ON r.id = p.referrer_id {where} ORDER BY s.page_id",
            params,
        )
        for row in rows:
            data = dict(row)
            data["paragraphs"] = [tuple(p[:3]) for p in json.loads(data["paragraphs"])]
            yield data

    def language_counts(self) -> dict[str, int]:
        """Fetched pages by the language they were given (the target, others, und)."""
        rows = self.conn.execute(
            "SELECT COALESCE(lang, 'und'), COUNT(*) FROM pages WHERE status IN "
            "('kept', 'duplicate', 'wronglang') GROUP BY 1 ORDER BY 2 DESC, 1"
        )
        return {r[0]: r[1] for r in rows}

    def site_yields(self, limit: int = 20) -> list[tuple[str, int, int]]:
        """(site, target documents, pages fetched) of the best-yielding sites."""
        rows = self.conn.execute(
            "SELECT site, SUM(status = 'kept'), SUM(status != 'queued') FROM pages "
            "GROUP BY site HAVING SUM(status = 'kept') > 0 ORDER BY 2 DESC, 3, 1 LIMIT ?",
            (limit,),
        )
        return [(r[0], r[1], r[2]) for r in rows]

    def query_yields(self, limit: int = 20) -> list[tuple[str, int, int]]:
        """(query, target documents found directly, result URLs) of the best queries."""
        rows = self.conn.execute(
            "SELECT q.text, SUM(p.status = 'kept'), COUNT(p.id) FROM queries q "
            "JOIN pages p ON p.query_id = q.id GROUP BY q.id "
            "HAVING SUM(p.status = 'kept') > 0 ORDER BY 2 DESC, 3, 1 LIMIT ?",
            (limit,),
        )
        return [(r[0], r[1], r[2]) for r in rows]

    # -- reviews (collie review) -----------------------------------------------------------
    def draw_review_sample(self, size: int, seed: int) -> int:
        """The review sample: `size` random original target documents, drawn once (an
        existing sample is kept and continued); returns its size."""
        existing = self.conn.execute("SELECT COUNT(*) FROM reviews").fetchone()[0]
        if existing:
            return int(existing)
        ids = [
            r[0]
            for r in self.conn.execute(
                "SELECT d.id FROM documents d JOIN pages p ON p.id = d.page_id WHERE d.kind = "
                "'target' AND d.duplicate_of IS NULL AND p.status = 'kept' ORDER BY d.id"
            )
        ]
        chosen = random.Random(seed).sample(ids, min(size, len(ids)))
        with self.conn:
            self.conn.executemany(
                "INSERT INTO reviews (position, doc_id) VALUES (?, ?)",
                list(enumerate(chosen, start=1)),
            )
        return len(chosen)

    def next_review(self) -> dict[str, Any] | None:
        """The next page to judge, with the progress: first the relative-suspected pages
        not settled yet (`suspect` true; their `doc_id` is minus the page id), then the
        first document of the sample not judged yet."""
        total, judged = self.conn.execute(
            "SELECT (SELECT COUNT(*) FROM reviews) + (SELECT COUNT(*) FROM suspects), "
            "(SELECT COUNT(label) FROM reviews) + (SELECT COUNT(label) FROM suspects)"
        ).fetchone()
        keys = ("position", "doc_id", "url", "title", "text")
        row = self.conn.execute(
            "SELECT 0, -s.page_id, p.url, p.title, s.text FROM suspects s "
            "JOIN pages p ON p.id = s.page_id WHERE s.label IS NULL ORDER BY s.page_id LIMIT 1"
        ).fetchone()
        if row is not None:
            aside = {**dict(zip(keys, tuple(row), strict=True)), "suspect": True}
            return {"total": total, "judged": judged, "document": aside}
        row = self.conn.execute(
            "SELECT r.position, d.id, p.url, p.title, d.text FROM reviews r "
            "JOIN documents d ON d.id = r.doc_id JOIN pages p ON p.id = d.page_id "
            "WHERE r.label IS NULL ORDER BY r.position LIMIT 1"
        ).fetchone()
        doc = (
            None if row is None else {**dict(zip(keys, tuple(row), strict=True)), "suspect": False}
        )
        return {"total": total, "judged": judged, "document": doc}

    def judge(self, doc_id: int, label: str, reviewer: str) -> bool:
        """Record a judgement of a sampled document (or, for a negative `doc_id`, settle
        a relative-suspected page: mainly/some: the target, none: a relative); False
        when it is not in the sample (or not a suspect)."""
        if doc_id < 0:
            verdict = {"mainly": "target", "some": "target", "none": "relative"}.get(label, label)
            sql = "UPDATE suspects SET label = ?, reviewer = ?, judged_at = ? WHERE page_id = ?"
            doc_id = -doc_id
        else:
            verdict = label
            sql = "UPDATE reviews SET label = ?, reviewer = ?, judged_at = ? WHERE doc_id = ?"
        with self.conn:
            cursor = self.conn.execute(sql, (verdict, reviewer, now_iso_precise(), doc_id))
        return cursor.rowcount == 1

    def undo_judgement(self) -> int | None:
        """Forget the latest judgement (of a document or a suspect); return the document
        it was about (minus the page id for a suspect), or None."""
        row = self.conn.execute(
            "SELECT doc_id, judged_at, position FROM reviews WHERE label IS NOT NULL UNION ALL "
            "SELECT -page_id, judged_at, 0 FROM suspects WHERE label IS NOT NULL "
            "ORDER BY 2 DESC, 3 DESC LIMIT 1"
        ).fetchone()
        if row is None:
            return None
        with self.conn:
            if row[0] < 0:
                self.conn.execute(
                    "UPDATE suspects SET label = NULL, reviewer = NULL, "
                    "judged_at = NULL WHERE page_id = ?",
                    (-row[0],),
                )
            else:
                self.conn.execute(
                    "UPDATE reviews SET label = NULL, reviewer = NULL, "
                    "judged_at = NULL WHERE doc_id = ?",
                    (row[0],),
                )
        return int(row[0])

    def review_labels(self) -> dict[str, int]:
        rows = self.conn.execute(
            "SELECT label, COUNT(*) FROM reviews WHERE label IS NOT NULL GROUP BY label"
        )
        return {r[0]: r[1] for r in rows}

    # -- robots.txt -------------------------------------------------------------------
    def robots_records(self) -> list[RobotsRecord]:
        rows = self.conn.execute("SELECT origin, kind, body, status, fetched_at FROM robots")
        return [RobotsRecord(r[0], r[1], r[2], r[3], r[4]) for r in rows]

    def save_robots(self, records: Iterable[RobotsRecord]) -> None:
        with self.conn:
            self.conn.executemany(
                "INSERT OR REPLACE INTO robots (origin, kind, body, status, fetched_at) "
                "VALUES (?, ?, ?, ?, ?)",
                [(r.origin, r.kind, r.body, r.status, r.fetched_at) for r in records],
            )

    # -- counts -----------------------------------------------------------------------
    def loop_counts(self) -> dict[int, dict[str, object]]:
        """Per loop: queries, result URLs, pages by status and drop reason, documents
        from search and from crawling, words."""
        out: dict[int, dict[str, object]] = {}
        for (loop,) in self.conn.execute("SELECT number FROM loops ORDER BY number"):
            out[loop] = self._counts_of(loop)
        return out

    def _counts_of(self, loop: int) -> dict[str, object]:
        q = self.conn.execute
        status = dict(
            q(
                "SELECT status, COUNT(*) FROM pages WHERE loop = ? GROUP BY status", (loop,)
            ).fetchall()
        )
        reasons = dict(
            q(
                "SELECT CASE WHEN instr(reason, ':') > 0 THEN substr(reason, 1, instr(reason, ':')"
                " - 1) ELSE reason END AS r, COUNT(*) FROM pages WHERE loop = ? AND status IN "
                "('dropped', 'duplicate') GROUP BY r ORDER BY 2 DESC",
                (loop,),
            ).fetchall()
        )
        docs = dict(
            q(
                "SELECT p.source, COUNT(*) FROM documents d JOIN pages p ON p.id = d.page_id "
                "WHERE d.loop = ? AND d.kind = 'target' AND d.duplicate_of IS NULL AND "
                "p.status = 'kept' GROUP BY p.source",
                (loop,),
            ).fetchall()
        )
        words = q(
            "SELECT COALESCE(SUM(d.words), 0) FROM documents d JOIN pages p ON "
            "p.id = d.page_id WHERE d.loop = ? AND d.kind = 'target' AND "
            "d.duplicate_of IS NULL AND p.status = 'kept'",
            (loop,),
        ).fetchone()[0]
        suspects = q("SELECT COUNT(*) FROM suspects WHERE loop = ?", (loop,)).fetchone()[0]
        queries = q(
            "SELECT COUNT(*) FROM queries WHERE loop = ? AND status = 'done'", (loop,)
        ).fetchone()[0]
        found = q(
            "SELECT COUNT(*) FROM pages WHERE loop = ? AND source = 'search'", (loop,)
        ).fetchone()[0]
        fetched = sum(v for k, v in status.items() if k != "queued")
        return {
            "queries": queries,
            "search_urls": found,
            "pages": status,
            "fetched": fetched,
            "dropped": reasons,
            "documents": {"search": docs.get("search", 0), "crawl": docs.get("crawl", 0)},
            "words": words,
            "relative_suspected": suspects,
        }
