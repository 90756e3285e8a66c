"""What `collie reprocess` reads and rewrites in collie.db, in one transaction.

Rewritten, for every page whose raw body is in cache/: its outcome (status, reason),
encoding, title, `lang` attribute, language, probability, target share and text length,
its rights (licence, reservation: from the body and the answer's headers its WARC record
keeps, with its site's tdmrep.json as it was at the fetch) and its language's provenance;
its document (kind, language, text, paragraphs, words, fingerprints), updated in place
so that document ids, and the review judgements that point at them, stay; a document for
a page that now yields one (new id, after all existing ones); no document for a page
that no longer does (kept, and counted, when a reviewer judged it). Then every
near-duplicate decision again, in the order of their pages' URLs (of a group of
near-duplicates the lowest URL is the original, as in a run: collie.decide.dedup
`comes_first`), and the sites' page counts. Untouched: the frontier, links,
fetch facts (URLs, HTTP status, times, bodies), queries, loops, robots.txt, sites
already stopped, and pages without a cached body (dropped before their text was kept).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from collie.models import CachedPage, DocumentRow, PageOutcome
from collie.store.base import Database, from_sqlite
from collie.store.frontier import FrontierTable
from collie.store.pages import (
    DOCUMENT_COLUMNS,
    PageTable,
    document_values,
    langid_values,
    paragraph_texts,
)

HEADER_SOURCES = "'tdmrep-header', 'x-robots-noai'"  # reservations only headers state


class Rewriter:
    """The reprocess writes; the caller wraps them in one transaction (`transaction`).
    It takes the page table (the pages it reads back, their suspects rows, the WARC
    pointers), not the rest of the store (reviews, exports, counts)."""

    def __init__(self, db: Database) -> None:
        self.db, self.conn = db, db.conn
        self.pages = PageTable(db, FrontierTable(db))

    def cached_pages(self) -> list[CachedPage]:
        return self.pages.kept_pages()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """The one transaction of a reprocess (the write lock taken at once), every
        near-duplicate decision cleared at its start, to be decided again."""
        with self.db.batch(immediate=True):
            self.conn.execute("UPDATE documents SET duplicate_of = NULL")
            yield

    def update_page(self, o: PageOutcome, headers_read: bool = True) -> None:
        """The page's outcome, rights and language provenance as examined again; a page
        whose answer's headers are not kept (`headers_read` False: the body cache)
        keeps a reservation its headers stated."""
        header_kept = "" if headers_read else f" WHEN tdm IN ({HEADER_SOURCES}) THEN tdm"
        self.conn.execute(
            "UPDATE pages SET status = ?, reason = ?, encoding = ?, encoding_method = ?, "
            "title = ?, lang_attribute = ?, lang = ?, lang_prob = ?, target_share = ?, "
            f"text_chars = ?, licence = ?, tdm = CASE WHEN ? IS NOT NULL THEN ?{header_kept} "
            "END, lid_model = ?, lid_sha256 = ?, lid_threshold = ?, lid_margin = ?, "
            "lid_chars = ? WHERE id = ?",
            (
                o.status,
                o.reason,
                o.encoding,
                o.encoding_method,
                o.title,
                o.lang_attribute,
                o.lang,
                o.lang_prob,
                o.target_share,
                o.text_chars,
                o.licence,
                o.tdm,
                o.tdm,
                *langid_values(o),
                o.page_id,
            ),
        )

    def put_document(self, page_id: int, doc: DocumentRow) -> str:
        """Update the page's document in place, or add one; "updated" or "added"."""
        assert doc.exact_key is not None and doc.simhash is not None
        values = document_values(doc, doc.exact_key, doc.simhash)
        cursor = self.conn.execute(
            "UPDATE documents SET kind = ?, lang = ?, text = ?, paragraphs = ?, words = ?, "
            "exact_key = ?, simhash = ?, sketch = ? WHERE page_id = ?",
            (*values, page_id),
        )
        if cursor.rowcount:
            return "updated"
        self.conn.execute(
            f"INSERT INTO documents (page_id, loop, {DOCUMENT_COLUMNS}) "
            "SELECT ?, loop, ?, ?, ?, ?, ?, ?, ?, ? FROM pages WHERE id = ?",
            (page_id, *values, page_id),
        )
        return "added"

    def drop_document(self, page_id: int) -> str | None:
        """Remove the page's document: "removed", "reviewed" (kept: a reviewer judged
        it) or None (it had none)."""
        row = self.conn.execute(
            "SELECT d.id, r.label FROM documents d LEFT JOIN reviews r ON r.doc_id = d.id "
            "WHERE d.page_id = ?",
            (page_id,),
        ).fetchone()
        if row is None:
            return None
        if row[1] is not None:
            return "reviewed"
        self.conn.execute("DELETE FROM reviews WHERE doc_id = ?", (row[0],))  # unjudged
        self.conn.execute("DELETE FROM documents WHERE id = ?", (row[0],))
        return "removed"

    def put_suspect(self, o: PageOutcome) -> None:
        """The page's page-level suspects row: written when it is relative-suspected now,
        removed when it no longer is (a speaker's verdict goes with it)."""
        if o.suspect is not None:
            self.pages.insert_suspect(o.page_id, o.suspect)
        else:
            self.conn.execute(
                "DELETE FROM suspects WHERE page_id = ? AND level = 'page'", (o.page_id,)
            )

    def keep_site_suspects(self) -> None:
        """The pages of relatives' sites stay suspects (a site's verdict is not taken
        again: its crawl stopped)."""
        self.conn.execute(
            "UPDATE pages SET status = 'dropped', reason = (SELECT 'relative-suspected:site ' "
            "|| printf('%.2f', s.pass_share) FROM suspects s WHERE s.page_id = pages.id) "
            "WHERE status IN ('kept', 'duplicate') AND id IN "
            "(SELECT page_id FROM suspects WHERE level = 'site')"
        )

    def target_fingerprints(
        self,
    ) -> Iterator[tuple[int, str, int, str | None, list[str] | None]]:
        """(id, exact key, simhash, stored paragraph sketch, the paragraphs' texts when
        none was stored) of every target document, in the order of their pages' URLs
        (the representative rule: collie.decide.dedup.comes_first)."""
        for doc_id, key, value, sketch, paragraphs in self._target_documents():
            yield doc_id, key, from_sqlite(value), sketch, paragraph_texts(paragraphs)

    def set_duplicates(self, decisions: Sequence[tuple[int, int]]) -> None:
        """Mark documents as near-duplicates ((original id, duplicate id)) and their
        pages `duplicate` (the decisions are reprocess's: collie.decide.dedup)."""
        self.conn.executemany("UPDATE documents SET duplicate_of = ? WHERE id = ?", decisions)
        self.conn.execute(
            "UPDATE pages SET status = 'duplicate', reason = 'near-duplicate:' || "
            "(SELECT duplicate_of FROM documents d WHERE d.page_id = pages.id) WHERE id IN "
            "(SELECT page_id FROM documents WHERE kind = 'target' AND duplicate_of IS NOT NULL)"
        )

    def _target_documents(self) -> Iterator[tuple[int, str, int, str | None, str | None]]:
        yield from self.conn.execute(
            "SELECT d.id, d.exact_key, d.simhash, d.sketch, CASE WHEN d.sketch IS NULL THEN "
            "d.paragraphs END FROM documents d JOIN pages p ON "
            "p.id = d.page_id WHERE d.kind = 'target' AND p.status IN ('kept', 'duplicate') "
            "ORDER BY p.url, d.id"
        )

    def recount_sites(self) -> None:
        """Pages kept, in other languages or near-duplicate, and target pages, per site."""
        self.conn.execute(
            "UPDATE sites SET pages = (SELECT COUNT(*) FROM pages p WHERE p.site = sites.site "
            "AND p.status IN ('kept', 'wronglang', 'duplicate')), target = (SELECT COUNT(*) "
            "FROM pages p WHERE p.site = sites.site AND p.status = 'kept')"
        )
