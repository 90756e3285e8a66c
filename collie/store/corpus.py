"""What the corpus's use cases read (collie.corpus: export, status, report): the export
rows, the suspects, languages, lengths, yields and per-loop counts. Reads only."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

from collie.models import ExportRow
from collie.store.base import Database, from_sqlite

# A page's language provenance (migration page-langid), as ExportRow names it.
LANGID_COLUMNS = "p.lid_model, p.lid_sha256, p.lid_threshold, p.lid_margin, p.lid_chars"

# Where a page was found: search, crawl, or archive (a web-archive file `collie scan`
# read: its pages are crawled pages with a row in archive_pages).
SOURCE = "CASE WHEN p.id IN (SELECT page_id FROM archive_pages) THEN 'archive' ELSE p.source END"


class CorpusStore:
    """The corpus and the counts, on one open connection."""

    def __init__(self, db: Database) -> None:
        self.db, self.conn = db, db.conn

    def export_rows(
        self, loop: int | None = None, source: str | None = None, min_share: float = 0.0
    ) -> Iterator[ExportRow]:
        """The corpus: original target documents with what is known of their pages, their
        teaser paragraphs (collie.decide.teasers) left out (`teasers`: how many)."""
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
            where.append(f"{SOURCE} = ?")
            params.append(source)
        rows = self.conn.execute(
            f"SELECT d.id, p.site, p.url, p.final_url, p.title, d.loop, {SOURCE} AS source, "
            "p.depth, "
            "q.text AS query, r.url AS referrer, d.lang, p.lang_prob, p.target_share, d.words, "
            "p.encoding, p.encoding_method, p.fetched_at, d.simhash, d.paragraphs, "
            "d.teasers, p.warc_file, p.warc_offset, p.warc_length, p.warc_record_id, "
            "p.warc_digest, p.licence, p.tdm, " + LANGID_COLUMNS + " "
            "FROM documents d JOIN pages p ON p.id = d.page_id "
            "LEFT JOIN queries q ON q.id = p.query_id LEFT JOIN pages r ON r.id = p.referrer_id "
            f"WHERE {' AND '.join(where)} ORDER BY d.id",
            params,
        )
        for row in rows:
            data = dict(row)
            data["simhash"] = f"{from_sqlite(data['simhash']):016x}"
            teasers = set(json.loads(data.pop("teasers") or "[]"))
            paragraphs = json.loads(data["paragraphs"])
            data["paragraphs"] = [tuple(p) for i, p in enumerate(paragraphs) if i not in teasers]
            data["teasers"] = len(teasers)
            yield ExportRow(**data)

    def corpus_sites(self) -> int:
        """The sites (registered domains) of the corpus's original documents."""
        row = self.conn.execute(
            "SELECT COUNT(DISTINCT p.site) FROM documents d JOIN pages p ON p.id = d.page_id "
            "WHERE d.kind = 'target' AND d.duplicate_of IS NULL AND p.status = 'kept'"
        ).fetchone()
        return int(row[0])

    def rights_counts(self) -> list[tuple[str | None, str | None, int]]:
        """(licence, TDM reservation, documents) over the corpus's original documents."""
        rows = self.conn.execute(
            "SELECT p.licence, p.tdm, COUNT(*) FROM documents d JOIN pages p ON "
            "p.id = d.page_id WHERE d.kind = 'target' AND d.duplicate_of IS NULL AND "
            "p.status = 'kept' GROUP BY p.licence, p.tdm ORDER BY p.licence, p.tdm"
        )
        return [(r[0], r[1], int(r[2])) for r in rows]

    def langid_counts(self) -> list[tuple[str | None, str | None, int]]:
        """(model version, its SHA-256, documents) over the corpus's original documents:
        the model that identified each (NULL: before collie kept it)."""
        rows = self.conn.execute(
            "SELECT p.lid_model, p.lid_sha256, COUNT(*) FROM documents d JOIN pages p ON "
            "p.id = d.page_id WHERE d.kind = 'target' AND d.duplicate_of IS NULL AND "
            "p.status = 'kept' GROUP BY p.lid_model, p.lid_sha256 "
            "ORDER BY COUNT(*) DESC, p.lid_model, p.lid_sha256"
        )
        return [(r[0], r[1], int(r[2])) for r in rows]

    def archived_documents(self, limit: int) -> list[tuple[str, float]]:
        """(URL, fetched at) of the first target documents whose answer is archived."""
        rows = self.conn.execute(
            "SELECT COALESCE(p.final_url, p.url), p.fetched_at FROM documents d "
            "JOIN pages p ON p.id = d.page_id WHERE d.kind = 'target' AND "
            "p.warc_file IS NOT NULL ORDER BY d.id LIMIT ?",
            (limit,),
        )
        return [(url, float(at or 0.0)) for url, at in rows]

    def warc_files_named(self) -> list[str]:
        """The WARC files (of warc/) that page rows say hold their answers."""
        rows = self.conn.execute(
            "SELECT DISTINCT warc_file FROM pages WHERE warc_file IS NOT NULL ORDER BY warc_file"
        )
        return [name for (name,) in rows]

    def warc_originals(self) -> dict[str, tuple[str, str, int]]:
        """Payload digest -> (record id, WARC file, offset) of its first archived page
        answer: the record a later copy's revisit record refers to (collie.archive.writer)."""
        rows = self.conn.execute(
            "SELECT warc_digest, warc_record_id, warc_file, warc_offset FROM pages "
            "WHERE warc_digest IS NOT NULL AND warc_digest != '' AND http_status = 200 "
            "ORDER BY fetched_at DESC, id DESC"
        )
        return {digest: (record, file, offset) for digest, record, file, offset in rows}

    def suspect_rows(self, loop: int | None = None) -> Iterator[ExportRow]:
        """The relative-suspected pages, as export_rows gives the corpus (with level,
        pass_share and label; the fourth value their paragraphs are stored with, near
        the target but failing it, left out)."""
        where, params = ("WHERE s.loop = ?", [loop]) if loop is not None else ("", [])
        rows = self.conn.execute(
            "SELECT s.page_id AS id, p.site, p.url, p.final_url, p.title, s.loop, p.source, "
            "p.depth, q.text AS query, r.url AS referrer, p.lang, p.lang_prob, p.target_share, "
            "s.words, p.encoding, p.encoding_method, p.fetched_at, NULL AS simhash, "
            "s.paragraphs, s.level, s.pass_share, s.label, p.warc_file, p.warc_offset, "
            "p.warc_length, p.warc_record_id, p.warc_digest, p.licence, p.tdm, "
            + LANGID_COLUMNS
            + " FROM suspects s "
            "JOIN pages p ON p.id = s.page_id LEFT JOIN queries q ON q.id = p.query_id "
            f"LEFT JOIN pages r ON r.id = p.referrer_id {where} ORDER BY s.page_id",
            params,
        )
        for row in rows:
            data = dict(row)
            data["paragraphs"] = [tuple(p[:3]) for p in json.loads(data["paragraphs"])]
            yield ExportRow(**data)

    def language_counts(self) -> dict[str, int]:
        """Fetched pages by the language they were given (the target, others, und)."""
        rows = self.conn.execute(
            "SELECT COALESCE(lang, 'und'), COUNT(*) FROM pages WHERE status IN "
            "('kept', 'duplicate', 'wronglang') GROUP BY 1 ORDER BY 2 DESC, 1"
        )
        return {r[0]: r[1] for r in rows}

    def paragraph_letters(self) -> dict[str, int]:
        """Letters of the corpus's original documents by their paragraphs' language (the
        target, a neighbour it shares pages with, und), the most first."""
        letters: Counter[str] = Counter()
        rows = self.conn.execute(
            "SELECT d.paragraphs FROM documents d JOIN pages p ON p.id = d.page_id WHERE "
            "d.kind = 'target' AND d.duplicate_of IS NULL AND p.status = 'kept'"
        )
        for (paragraphs,) in rows:
            for paragraph in json.loads(paragraphs):
                letters[paragraph[1]] += sum(ch.isalpha() for ch in paragraph[0])
        return dict(sorted(letters.items(), key=lambda kv: (-kv[1], kv[0])))

    def document_lengths(self) -> list[int]:
        """The words of every corpus document (target, near-duplicates left out)."""
        rows = self.conn.execute(
            "SELECT d.words FROM documents d JOIN pages p ON p.id = d.page_id WHERE "
            "d.kind = 'target' AND d.duplicate_of IS NULL AND p.status = 'kept'"
        )
        return [int(r[0] or 0) for r in rows]

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

    def query_leads(self, limit: int = 20) -> list[tuple[str, int, int, int]]:
        """(query, loop, target sites it brought new to the search, target documents
        on the sites its results surfaced first, crawled out or not) of the queries
        that led to the most documents (a query's later pages with its first): what
        each query's results led to, whoever fetched the pages."""
        rows = self.conn.execute(
            "WITH first AS (SELECT p.site, MIN(r.query_id) AS query_id FROM search_results r "
            "JOIN pages p ON p.url = r.canonical_url GROUP BY p.site), "
            "led AS (SELECT f.query_id, COUNT(d.id) AS documents FROM first f "
            "JOIN pages p ON p.site = f.site JOIN documents d ON d.page_id = p.id "
            "WHERE d.kind = 'target' AND d.duplicate_of IS NULL AND p.status = 'kept' "
            "GROUP BY f.query_id) "
            "SELECT q.text, q.loop, COALESCE(SUM(q.new_sites), 0), "
            "SUM(COALESCE(l.documents, 0)) FROM queries q LEFT JOIN led l ON l.query_id = q.id "
            "WHERE q.status = 'done' GROUP BY q.loop, q.text "
            "HAVING SUM(COALESCE(l.documents, 0)) > 0 ORDER BY 4 DESC, MIN(q.id) LIMIT ?",
            (limit,),
        )
        return [(r[0], r[1] or 0, r[2], r[3]) for r in rows]

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
                f"SELECT {SOURCE}, COUNT(*) FROM documents d JOIN pages p ON p.id = d.page_id "
                "WHERE d.loop = ? AND d.kind = 'target' AND d.duplicate_of IS NULL AND "
                f"p.status = 'kept' GROUP BY {SOURCE}",
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
        linked = q(
            "SELECT COUNT(DISTINCT p.site), COUNT(*), COALESCE(SUM(p.status = 'kept'), 0) "
            "FROM pages p WHERE p.loop = ? AND p.status != 'queued' AND p.site IN ("
            "SELECT e.site FROM pages e JOIN pages r ON r.id = e.referrer_id WHERE "
            "e.source = 'crawl' AND e.site != r.site AND e.id = "
            "(SELECT MIN(id) FROM pages WHERE site = e.site))",
            (loop,),
        ).fetchone()
        return {
            "queries": queries,
            "search_urls": found,
            "pages": status,
            "fetched": fetched,
            "dropped": reasons,
            "documents": {k: docs.get(k, 0) for k in ("search", "crawl", "archive")},
            "words": words,
            "relative_suspected": suspects,
            # sites first met through another site's link, and their pages this loop
            "linked_sites": {"sites": linked[0], "pages": linked[1], "documents": linked[2]},
        }
