"""`collie review`: the sample, the next page to judge, judgements and their undo."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from collie.store.base import Database, now_iso_precise

# Where the page's answer is archived: its URL and fetch time, for a replay link (or NULL).
ARCHIVED = (
    "CASE WHEN p.warc_file IS NULL THEN NULL ELSE COALESCE(p.final_url, p.url) END, "
    "CASE WHEN p.warc_file IS NULL THEN NULL ELSE p.fetched_at END"
)

# What the review page is given of a document (`next_review`), in the queries' order.
REVIEW_KEYS: tuple[str, ...] = ("position", "doc_id", "url", "title", "text", "paragraphs")
REVIEW_KEYS += ("archived", "at", "site")


def _document(keys: tuple[str, ...], row: Any) -> dict[str, Any]:
    """A row as the review page takes it: the paragraphs as [text, language] pairs (the
    language collie gave each); `archived`, [URL, fetched at] when the answer is in the
    WARC files."""
    doc = dict(zip(keys, tuple(row), strict=True))
    doc["paragraphs"] = [[p[0], p[1]] for p in json.loads(doc["paragraphs"] or "[]")]
    at = doc.pop("at")
    doc["archived"] = [doc["archived"], at] if doc["archived"] and at is not None else None
    return doc


class ReviewStore:
    """Reviews, on one open connection."""

    def __init__(self, db: Database) -> None:
        self.db, self.conn = db, db.conn

    # -- reviews (collie review) -----------------------------------------------------------
    def review_sample_size(self) -> int:
        return int(self.conn.execute("SELECT COUNT(*) FROM reviews").fetchone()[0])

    def review_candidates(self) -> list[tuple[int, str, int, bool]]:
        """The documents a review sample may draw, the original target documents of the
        corpus: (document id, site, loop, found by a scan) each, by id."""
        rows = self.conn.execute(
            "SELECT d.id, p.site, d.loop, a.page_id IS NOT NULL FROM documents d "
            "JOIN pages p ON p.id = d.page_id LEFT JOIN archive_pages a ON a.page_id = p.id "
            "WHERE d.kind = 'target' AND d.duplicate_of IS NULL AND p.status = 'kept' "
            "ORDER BY d.id"
        )
        return [(int(r[0]), str(r[1]), int(r[2]), bool(r[3])) for r in rows]

    def add_review_sample(self, doc_ids: Sequence[int]) -> int:
        """Store a sample drawn (its order: the order the speaker sees) unless one is
        stored already, in one transaction; returns the sample's size."""
        with self.db.batch():
            existing = self.conn.execute("SELECT COUNT(*) FROM reviews").fetchone()[0]
            if existing:
                return int(existing)
            self.conn.executemany(
                "INSERT INTO reviews (position, doc_id) VALUES (?, ?)",
                list(enumerate(doc_ids, start=1)),
            )
        return len(doc_ids)

    def review_sample(self) -> list[dict[str, Any]]:
        """The sample, in its order: each document's id, URL, site, loop, whether a scan
        found it, title, text, and its judgement so far (label, reviewer, or None)."""
        keys = ("position", "doc_id", "url", "final_url", "site", "loop", "scanned",
                "title", "text", "label", "reviewer")  # fmt: skip
        rows = self.conn.execute(
            "SELECT r.position, d.id, p.url, p.final_url, p.site, d.loop, "
            "a.page_id IS NOT NULL, p.title, d.text, r.label, r.reviewer FROM reviews r "
            "JOIN documents d ON d.id = r.doc_id JOIN pages p ON p.id = d.page_id "
            "LEFT JOIN archive_pages a ON a.page_id = p.id ORDER BY r.position"
        )
        return [dict(zip(keys, row, strict=True)) for row in rows]

    def set_judgements(self, judgements: Sequence[tuple[int, str, str]]) -> None:
        """(document id, label, reviewer) of sampled documents, in one transaction: all
        recorded or none."""
        at = now_iso_precise()
        with self.db.batch():
            self.conn.executemany(
                "UPDATE reviews SET label = ?, reviewer = ?, judged_at = ? WHERE doc_id = ?",
                [(label, reviewer, at, doc_id) for doc_id, label, reviewer in judgements],
            )

    def next_review(self) -> dict[str, Any] | None:
        """The next page to judge, with the progress: first the relative-suspected pages
        not settled yet (`suspect` true; their `doc_id` is minus the page id), then the
        first document of the sample not judged yet."""
        total, judged = self.conn.execute(
            "SELECT (SELECT COUNT(*) FROM reviews) + (SELECT COUNT(*) FROM suspects), "
            "(SELECT COUNT(label) FROM reviews) + (SELECT COUNT(label) FROM suspects)"
        ).fetchone()
        keys = REVIEW_KEYS
        row = self.conn.execute(
            f"SELECT 0, -s.page_id, p.url, p.title, s.text, s.paragraphs, {ARCHIVED}, p.site "
            "FROM suspects s "
            "JOIN pages p ON p.id = s.page_id WHERE s.label IS NULL ORDER BY s.page_id LIMIT 1"
        ).fetchone()
        if row is not None:
            aside = {**_document(keys, row), "suspect": True}
            return {"total": total, "judged": judged, "document": aside}
        row = self.conn.execute(
            f"SELECT r.position, d.id, p.url, p.title, d.text, d.paragraphs, {ARCHIVED}, p.site "
            "FROM reviews r "
            "JOIN documents d ON d.id = r.doc_id JOIN pages p ON p.id = d.page_id "
            "WHERE r.label IS NULL ORDER BY r.position LIMIT 1"
        ).fetchone()
        doc = None if row is None else {**_document(keys, row), "suspect": False}
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
        with self.db.batch():
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
        with self.db.batch():
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
