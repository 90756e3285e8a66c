"""Recording fetched pages: a batch's outcomes, documents and suspects; the original
documents a new one is compared with (the comparison is the caller's: collie.decide.dedup);
the texts later loops learn their seed words from."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from collie.models import (
    CachedPage,
    DocumentRow,
    PageOutcome,
    QueueEntry,
    SuspectRow,
    WarcLocation,
)
from collie.reasons import NEAR_DUPLICATE, RELATIVE_SUSPECTED, TEASER, TOO_SHORT
from collie.store.base import Database, from_sqlite, to_sqlite
from collie.store.frontier import FrontierTable

# (document id, page id, the page's status, the teaser indices stored, paragraph texts)
TeaserRow = tuple[int, int, str, list[int], list[str]]

DOCUMENT_COLUMNS = "kind, lang, text, paragraphs, words, exact_key, simhash, sketch"


def document_values(doc: DocumentRow, key: str, fingerprint: int) -> tuple[Any, ...]:
    """A document's values for DOCUMENT_COLUMNS, as the store keeps them."""
    sketch = doc.sketch.to_text() if doc.sketch is not None else None
    paragraphs = json.dumps(doc.paragraphs, ensure_ascii=False)
    return (
        doc.kind,
        doc.lang,
        doc.text,
        paragraphs,
        doc.words,
        key,
        to_sqlite(fingerprint),
        sketch,
    )


def paragraph_texts(stored: str | None) -> list[str] | None:
    """The paragraphs' texts of a documents row's `paragraphs` JSON (None stays None)."""
    return None if stored is None else [p[0] for p in json.loads(stored)]


# The record that holds each archived payload: the first page answer archived with it
# (a later one with the same payload digest may be a revisit record, which holds none).
PAYLOAD_RECORDS = (
    "WITH payloads AS (SELECT warc_digest, warc_file, warc_offset, ROW_NUMBER() OVER "
    "(PARTITION BY warc_digest ORDER BY fetched_at, id) AS n FROM pages "
    "WHERE warc_digest IS NOT NULL AND warc_digest != '' AND http_status = 200) "
)


class PageTable:
    """Recording fetched pages and their documents."""

    def __init__(self, db: Database, frontier: FrontierTable) -> None:
        self.db, self.conn = db, db.conn
        self.frontier = frontier  # a batch queues the links of the pages it records

    # -- recording fetched pages --------------------------------------------------------
    def kept_pages(self, where: str = "", params: tuple[Any, ...] = ()) -> list[CachedPage]:
        """Recorded pages whose raw body was kept (and `where`), in id order, each with
        the WARC record holding its payload when it was archived, and the archive file's
        record of a page a scan found (collie.archive.bodies reads them)."""
        rows = self.conn.execute(
            PAYLOAD_RECORDS + "SELECT p.id, p.url, p.site, p.loop, p.source, p.depth, "
            "p.final_url, p.http_status, p.fetched_at, p.content_type, p.encoding, "
            "p.encoding_method, p.body_sha1, p.status, COALESCE(o.warc_file, p.warc_file), "
            "COALESCE(o.warc_offset, p.warc_offset), a.source, a.offset, a.kind, p.tdm_file "
            "FROM pages p LEFT JOIN payloads o ON o.warc_digest = p.warc_digest AND o.n = 1 "
            "LEFT JOIN archive_pages a ON a.page_id = p.id "
            f"WHERE p.body_sha1 IS NOT NULL {'AND ' + where if where else ''} ORDER BY p.id",
            params,
        )
        return [CachedPage(*tuple(row)) for row in rows]

    def short_pages(self, loop: int) -> list[CachedPage]:
        """The loop's pages dropped as too short (too few linking pages had voted yet)."""
        return self.kept_pages(
            "p.loop = ? AND p.status = 'dropped' AND p.reason = ?", (loop, TOO_SHORT)
        )

    def page_suspects(self) -> list[CachedPage]:
        """The pages relative-suspected on their own (not with their site) that no
        reviewer has called a relative's."""
        return self.kept_pages(
            f"p.status = 'dropped' AND p.reason LIKE '{RELATIVE_SUSPECTED}:page%' AND p.id "
            "NOT IN (SELECT page_id FROM suspects WHERE label IS NOT NULL)"
        )

    def enqueue_in_batch(self, entries: Iterable[QueueEntry]) -> int:
        """Queue URLs not seen before, inside `batch`; return how many were new."""
        return self.frontier.insert_queue(entries)

    def set_warc(self, page_id: int, where: WarcLocation) -> None:
        """The record of the page's answer in the WARC files."""
        self.conn.execute(
            "UPDATE pages SET warc_file = ?, warc_offset = ?, warc_length = ?, "
            "warc_record_id = ?, warc_digest = ? WHERE id = ?",
            (where.file, where.offset, where.length, where.record_id, where.digest, page_id),
        )

    def unarchived_bodies(self) -> list[tuple[int, str, str, float, str]]:
        """(page id, URL, content type, fetched at, body SHA-1) of the pages whose body
        is kept in cache/ and not in the WARC files (a workspace from before them)."""
        rows = self.conn.execute(
            "SELECT id, COALESCE(final_url, url), COALESCE(content_type, ''), "
            "COALESCE(fetched_at, 0), body_sha1 FROM pages "
            "WHERE body_sha1 IS NOT NULL AND warc_file IS NULL ORDER BY id"
        )
        return [(i, u, t, float(f), s) for i, u, t, f, s in rows]

    def warc_digests(self) -> list[tuple[str, str, float, str]]:
        """(payload digest, URL, fetched at, record id) of every page answer archived in
        the WARC files, the first of each payload (collie.archive.writer: revisits)."""
        rows = self.conn.execute(
            "SELECT warc_digest, final_url, fetched_at, warc_record_id FROM pages "
            "WHERE warc_digest IS NOT NULL AND warc_digest != '' AND http_status = 200 "
            "ORDER BY fetched_at, id"
        ).fetchall()
        return [(d, u, float(f or 0.0), r) for d, u, f, r in rows]

    def write(self, o: PageOutcome) -> int | None:
        """A page's outcome, its document, links, suspicion and site counts (inside
        `batch`); returns the document's id (None without one). The document's
        fingerprints must be computed (collie.decide.dedup.fingerprints)."""
        doc_id = self._insert_document(o) if o.document is not None else None
        self.conn.execute(
            "UPDATE pages SET status = ?, reason = ?, final_url = ?, http_status = ?, "
            "fetched_at = ?, encoding = ?, encoding_method = ?, title = ?, "
            "lang_attribute = ?, lang = ?, lang_prob = ?, target_share = ?, text_chars = ?, "
            "body_sha1 = ?, content_type = ?, licence = ?, tdm = ?, tdm_file = ?, lid_model = ?, "
            "lid_sha256 = ?, lid_threshold = ?, lid_margin = ?, lid_chars = ? WHERE id = ?",
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
                o.licence,
                o.tdm,
                o.tdm_file,
                *langid_values(o),
                o.page_id,
            ),
        )
        self.conn.executemany(
            "INSERT OR IGNORE INTO links (from_page, to_url, anchor) VALUES (?, ?, ?)",
            [(o.page_id, url, anchor[:200]) for url, anchor in o.links],
        )
        if o.warc is not None:  # a rewrite by reprocess keeps the page's record
            self.set_warc(o.page_id, o.warc)
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
        return doc_id

    def set_langid(self, rows: Iterable[tuple[Any, ...]]) -> None:
        """The language provenance of pages labelled again ((model, SHA-256, threshold,
        margin, characters, page id): collie.mining.provenance.stamped_figures), in one
        transaction."""
        with self.db.batch():
            self.conn.executemany(
                "UPDATE pages SET lid_model = ?, lid_sha256 = ?, lid_threshold = ?, "
                "lid_margin = ?, lid_chars = ? WHERE id = ?",
                list(rows),
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

    def _insert_document(self, o: PageOutcome) -> int:
        doc = o.document
        assert doc is not None and doc.exact_key is not None and doc.simhash is not None
        return self.insert_document(o.page_id, doc, doc.exact_key, doc.simhash)

    def insert_document(self, page_id: int, doc: DocumentRow, key: str, fingerprint: int) -> int:
        """One documents row (in the caller's transaction); an original target document
        joins the near-duplicate index."""
        cursor = self.conn.execute(
            f"INSERT INTO documents (page_id, loop, {DOCUMENT_COLUMNS}, duplicate_of) "
            "SELECT ?, loop, ?, ?, ?, ?, ?, ?, ?, ?, ? FROM pages WHERE id = ?",
            (page_id, *document_values(doc, key, fingerprint), doc.duplicate_of, page_id),
        )
        return int(cursor.lastrowid or 0)

    def original_fingerprints(self) -> Iterator[tuple[int, int, str | None, list[str] | None]]:
        """(id, simhash, stored paragraph sketch, the paragraphs' texts when no sketch was
        stored) of the original target documents of the corpus, in id order: what a new
        document is compared with."""
        rows = self.conn.execute(
            "SELECT d.id, d.simhash, d.sketch, CASE WHEN d.sketch IS NULL THEN d.paragraphs END "
            "FROM documents d JOIN pages p ON p.id = d.page_id "
            "WHERE d.kind = 'target' AND d.duplicate_of IS NULL AND p.status = 'kept' "
            "ORDER BY d.id"
        )
        return (
            (doc_id, from_sqlite(value), sketch, paragraph_texts(para))
            for doc_id, value, sketch, para in rows
        )

    def page_url(self, page_id: int) -> str:
        row = self.conn.execute("SELECT url FROM pages WHERE id = ?", (page_id,)).fetchone()
        return str(row[0]) if row else ""

    def document_url(self, doc_id: int) -> str:
        """The URL of a document's page."""
        row = self.conn.execute(
            "SELECT p.url FROM documents d JOIN pages p ON p.id = d.page_id WHERE d.id = ?",
            (doc_id,),
        ).fetchone()
        return str(row[0]) if row else ""

    def displace_original(self, old: int, new: int) -> tuple[int, str] | None:
        """The original document `old` and its near-duplicates become near-duplicates of
        the new original `new` (inside `batch`; the representative rule is
        collie.decide.dedup.comes_first): its page `duplicate`, its site one target
        document fewer. Returns the old original's (page id, site), if it was one."""
        row = self.conn.execute(
            "SELECT p.id, p.site FROM documents d JOIN pages p ON p.id = d.page_id "
            "WHERE d.id = ? AND p.status = 'kept' AND d.duplicate_of IS NULL",
            (old,),
        ).fetchone()
        if row is None:
            return None
        page_id, site = int(row[0]), str(row[1])
        self.conn.execute(
            "UPDATE documents SET duplicate_of = ? WHERE id = ? OR duplicate_of = ?",
            (new, old, old),
        )
        self.conn.execute(
            "UPDATE pages SET status = 'duplicate', reason = ? WHERE id = ? OR (id IN "
            "(SELECT page_id FROM documents WHERE duplicate_of = ?) AND status = 'duplicate')",
            (f"{NEAR_DUPLICATE}:{new}", page_id, new),
        )
        self.conn.execute("UPDATE sites SET target = target - 1 WHERE site = ?", (site,))
        return page_id, site

    def exact_original(self, key: str) -> int | None:
        """The first original target document of the corpus with this exact key."""
        row = self.conn.execute(
            "SELECT MIN(d.id) FROM documents d JOIN pages p ON p.id = d.page_id WHERE "
            "d.exact_key = ? AND d.kind = 'target' AND d.duplicate_of IS NULL "
            "AND p.status = 'kept'",
            (key,),
        ).fetchone()
        return int(row[0]) if row[0] is not None else None

    # -- teasers (collie.decide.teasers) ----------------------------------------------------
    def teaser_candidates(self) -> Iterator[tuple[str, list[TeaserRow]]]:
        """Per site, in site order: the original target documents of the corpus and those
        whose pages were dropped as `teaser`, by id."""
        rows = self.conn.execute(
            "SELECT p.site, d.id, d.page_id, p.status, d.teasers, d.paragraphs "
            "FROM documents d JOIN pages p ON p.id = d.page_id "
            "WHERE d.kind = 'target' AND d.duplicate_of IS NULL AND (p.status = 'kept' "
            "OR (p.status = 'dropped' AND p.reason = ?)) ORDER BY p.site, d.id",
            (TEASER,),
        )
        site: str | None = None
        docs: list[TeaserRow] = []
        for name, doc_id, page_id, status, teasers, paragraphs in rows:
            if name != site and docs:
                yield site or "", docs
                docs = []
            site = name
            texts = paragraph_texts(paragraphs) or []
            docs.append((doc_id, page_id, status, json.loads(teasers or "[]"), texts))
        if docs:
            yield site or "", docs

    def set_teasers(self, doc_id: int, page_id: int, teasers: list[int], empty: bool) -> None:
        """A document's teaser paragraphs; its page dropped as `teaser` when nothing of its
        own is left (`empty`), kept again when something is (in the caller's transaction)."""
        self.conn.execute(
            "UPDATE documents SET teasers = ? WHERE id = ?",
            (json.dumps(teasers) if teasers else None, doc_id),
        )
        status, reason = ("dropped", TEASER) if empty else ("kept", None)
        self.conn.execute(
            "UPDATE pages SET status = ?, reason = ? WHERE id = ?", (status, reason, page_id)
        )

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


def langid_values(o: PageOutcome) -> tuple[Any, ...]:
    """The provenance of a page's language (models.PageOutcome's lid_* fields), in the
    order of the pages table's lid_* columns."""
    return (o.lid_model, o.lid_sha256, o.lid_threshold, o.lid_margin, o.lid_chars)
