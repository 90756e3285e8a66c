"""The workspace database's schema: ordered migrations, recorded in table `migrations`.

Never edit a migration that has been released; append a new one. A database whose schema
is newer than this collie knows is refused rather than guessed at.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from pathlib import Path

from collie.errors import WorkspaceError
from collie.store.base import Database
from collie.version import __version__

MIGRATIONS: list[tuple[str, list[str]]] = [
    (
        "initial",
        [
            """CREATE TABLE workspace_info (
                key TEXT PRIMARY KEY,
                value TEXT NOT NULL
            )""",
            """CREATE TABLE seed_documents (
                id INTEGER PRIMARY KEY,
                role TEXT NOT NULL CHECK (role IN ('target', 'wronglang')),
                lang TEXT,
                path TEXT NOT NULL UNIQUE,
                source TEXT NOT NULL,
                sha256 TEXT NOT NULL,
                encoding TEXT NOT NULL,
                encoding_method TEXT NOT NULL,
                encoding_confidence REAL NOT NULL,
                chars INTEGER NOT NULL,
                words INTEGER NOT NULL,
                added_at TEXT NOT NULL
            )""",
            """CREATE TABLE loops (
                number INTEGER PRIMARY KEY CHECK (number >= 1),
                started_at TEXT NOT NULL,
                finished_at TEXT
            )""",
        ],
    ),
    (
        "search-cache",
        [
            # One row per distinct query; status 'pending' is written before the request
            # is sent, so a crash leaves 'pending' (turned 'lost', never re-sent).
            """CREATE TABLE queries (
                id INTEGER PRIMARY KEY,
                backend TEXT NOT NULL,
                text TEXT NOT NULL,
                params TEXT NOT NULL,
                loop INTEGER,
                words TEXT,
                status TEXT NOT NULL CHECK (status IN ('pending', 'done', 'failed', 'lost')),
                attempts INTEGER NOT NULL DEFAULT 0,
                created_at TEXT NOT NULL,
                finished_at TEXT,
                result_count INTEGER,
                raw TEXT,
                error TEXT,
                UNIQUE (backend, text, params)
            )""",
            """CREATE TABLE search_results (
                query_id INTEGER NOT NULL REFERENCES queries (id) ON DELETE CASCADE,
                rank INTEGER NOT NULL,
                url TEXT NOT NULL,
                canonical_url TEXT NOT NULL,
                title TEXT NOT NULL,
                snippet TEXT NOT NULL,
                PRIMARY KEY (query_id, rank)
            )""",
            "CREATE INDEX search_results_by_url ON search_results (canonical_url)",
        ],
    ),
    (
        "mining",
        [
            # Every URL the loop meets: queued (the frontier), then fetched or dropped.
            """CREATE TABLE pages (
                id INTEGER PRIMARY KEY,
                url TEXT NOT NULL UNIQUE,
                site TEXT NOT NULL,
                loop INTEGER NOT NULL,
                source TEXT NOT NULL CHECK (source IN ('search', 'crawl')),
                depth INTEGER NOT NULL,
                query_id INTEGER REFERENCES queries (id),
                referrer_id INTEGER REFERENCES pages (id),
                priority REAL NOT NULL DEFAULT 0,
                status TEXT NOT NULL CHECK (status IN
                    ('queued', 'kept', 'duplicate', 'wronglang', 'dropped')),
                reason TEXT,
                final_url TEXT,
                http_status INTEGER,
                fetched_at REAL,
                encoding TEXT,
                encoding_method TEXT,
                title TEXT,
                lang_attribute TEXT,
                lang TEXT,
                lang_prob REAL,
                target_share REAL,
                text_chars INTEGER,
                body_sha1 TEXT
            )""",
            "CREATE INDEX pages_frontier ON pages (status, priority DESC, depth, id)",
            "CREATE INDEX pages_by_site ON pages (site, status)",
            """CREATE TABLE links (
                from_page INTEGER NOT NULL REFERENCES pages (id),
                to_url TEXT NOT NULL,
                anchor TEXT NOT NULL,
                PRIMARY KEY (from_page, to_url)
            )""",
            "CREATE INDEX links_to ON links (to_url)",
            # Text of fetched pages: target-language documents (the corpus, unless they
            # duplicate an earlier one) and wrong-language text (for the odds ratio).
            """CREATE TABLE documents (
                id INTEGER PRIMARY KEY,
                page_id INTEGER NOT NULL UNIQUE REFERENCES pages (id),
                loop INTEGER NOT NULL,
                kind TEXT NOT NULL CHECK (kind IN ('target', 'wronglang')),
                lang TEXT NOT NULL,
                text TEXT NOT NULL,
                paragraphs TEXT NOT NULL,
                words INTEGER NOT NULL,
                exact_key TEXT NOT NULL,
                simhash INTEGER NOT NULL,
                duplicate_of INTEGER REFERENCES documents (id)
            )""",
            # Only the documents later ones are compared with (see collie/store/).
            "CREATE INDEX documents_exact ON documents (exact_key) "
            "WHERE kind = 'target' AND duplicate_of IS NULL",
            """CREATE TABLE sites (
                site TEXT PRIMARY KEY,
                pages INTEGER NOT NULL DEFAULT 0,
                target INTEGER NOT NULL DEFAULT 0,
                stopped TEXT
            )""",
            "ALTER TABLE loops ADD COLUMN searched_at TEXT",
            """CREATE TABLE robots (
                origin TEXT PRIMARY KEY,
                kind TEXT NOT NULL,
                body TEXT NOT NULL,
                status INTEGER,
                fetched_at REAL NOT NULL
            )""",
        ],
    ),
    (
        "reviews",
        [
            # A native speaker's judgements of a sample of the corpus (collie review).
            """CREATE TABLE reviews (
                id INTEGER PRIMARY KEY,
                position INTEGER NOT NULL UNIQUE,
                doc_id INTEGER NOT NULL UNIQUE REFERENCES documents (id),
                label TEXT CHECK (label IN ('mainly', 'some', 'none', 'skip')),
                reviewer TEXT,
                judged_at TEXT
            )""",
        ],
    ),
    (
        "content-type",
        [
            # The Content-Type a page was served with, for `collie reprocess` (its
            # charset decides the decoding); NULL for pages recorded before.
            "ALTER TABLE pages ADD COLUMN content_type TEXT",
        ],
    ),
    (
        "relatives",
        [
            # Letters of a site's text identified as a language learnt from documents, and
            # nearest to it but failing its open-set tests (a close relative's, maybe).
            "ALTER TABLE sites ADD COLUMN target_letters INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE sites ADD COLUMN near_letters INTEGER NOT NULL DEFAULT 0",
            # Pages that look like a close relative of the target (status 'dropped', reason
            # 'relative-suspected:...'): their text and evidence, and a speaker's verdict.
            """CREATE TABLE suspects (
                page_id INTEGER PRIMARY KEY REFERENCES pages (id),
                loop INTEGER NOT NULL,
                level TEXT NOT NULL CHECK (level IN ('page', 'site')),
                pass_share REAL NOT NULL,
                text TEXT NOT NULL,
                paragraphs TEXT NOT NULL,
                words INTEGER NOT NULL,
                label TEXT CHECK (label IN ('target', 'relative', 'skip')),
                reviewer TEXT,
                judged_at TEXT
            )""",
        ],
    ),
    (
        "paragraph-sketches",
        [
            # A document's long paragraphs as the near-duplicate lookups compare them
            # (collie.dedup.ParagraphSketch: "chars:key,key,..."); NULL for documents
            # recorded before, whose sketch is computed from `paragraphs` when loaded.
            "ALTER TABLE documents ADD COLUMN sketch TEXT",
        ],
    ),
    (
        "final-url-index",
        [
            # A URL some earlier request was redirected to is not queued again.
            "CREATE INDEX pages_final_url ON pages (final_url) WHERE final_url IS NOT NULL",
        ],
    ),
    (
        "listings",
        [
            # The sitemaps and feeds read for a site (collie.listings): each once.
            """CREATE TABLE listings (
                url TEXT PRIMARY KEY,
                site TEXT NOT NULL,
                loop INTEGER NOT NULL,
                http_status INTEGER,
                reason TEXT,
                urls INTEGER NOT NULL DEFAULT 0,
                queued INTEGER NOT NULL DEFAULT 0,
                fetched_at TEXT NOT NULL
            )""",
            "CREATE INDEX listings_by_site ON listings (site)",
        ],
    ),
    (
        "robots-failures-forgotten",
        [
            # Before, a robots.txt that could not be fetched (network error, 5xx, 429) was
            # kept 24 h as kind 'disallow-all' (the only way that kind was ever written)
            # and its origin's pages recorded as dropped 'robots'. Such a failure is not the
            # site's rules: those pages are queued again and the records forgotten.
            """UPDATE pages SET status = 'queued', reason = NULL, final_url = NULL,
                http_status = NULL, fetched_at = NULL
            WHERE status = 'dropped' AND reason = 'robots' AND EXISTS (
                SELECT 1 FROM robots r WHERE r.kind = 'disallow-all'
                AND substr(lower(COALESCE(pages.final_url, pages.url)), 1,
                           length(r.origin) + 1) = r.origin || '/')""",
            "DELETE FROM robots WHERE kind = 'disallow-all'",
        ],
    ),
    (
        "teaser-paragraphs",
        [
            # The paragraphs of a document that are truncated copies of another document
            # of its site (collie.decide.teasers): a JSON list of their indices in
            # `paragraphs`, NULL for none; exports leave them out.
            "ALTER TABLE documents ADD COLUMN teasers TEXT",
        ],
    ),
    (
        "search-coverage",
        [
            # Whether a result looked like the target language by its title and snippet
            # (collie.decide.snippets; NULL: not judged yet), judged once, when the loop
            # took the query's answer: the coverage estimate (collie.search.coverage) is
            # replayed from these, so a resumed run reaches the same stop.
            "ALTER TABLE search_results ADD COLUMN target INTEGER",
            # Target sites a query's results brought that no earlier query had.
            "ALTER TABLE queries ADD COLUMN new_sites INTEGER",
            # Why a loop's search stage stopped before its planned queries, if it did.
            "ALTER TABLE loops ADD COLUMN search_stopped TEXT",
        ],
    ),
    (
        "warc-records",
        [
            # Where a page's final answer is in the workspace's WARC files
            # (collie.archive.writer): the file under warc/, the offset and length of the
            # record's gzip member, its WARC-Record-ID, and the payload digest that a
            # later copy of the same payload is a revisit record of. NULL: fetched
            # before WARC files were written, or no answer.
            "ALTER TABLE pages ADD COLUMN warc_file TEXT",
            "ALTER TABLE pages ADD COLUMN warc_offset INTEGER",
            "ALTER TABLE pages ADD COLUMN warc_length INTEGER",
            "ALTER TABLE pages ADD COLUMN warc_record_id TEXT",
            "ALTER TABLE pages ADD COLUMN warc_digest TEXT",
        ],
    ),
    (
        "loop-warc-bytes",
        [
            # The bytes a loop appended to the WARC files (compressed, as stored): the
            # size bill per loop in status and the report.
            "ALTER TABLE loops ADD COLUMN warc_bytes INTEGER NOT NULL DEFAULT 0",
        ],
    ),
    (
        "archive-scan",
        [
            # `collie scan` (collie.mining.scan): each archive file scanned to its end, with
            # what it held; a file listed here is not scanned again.
            """CREATE TABLE scanned_files (
                source TEXT PRIMARY KEY,
                loop INTEGER NOT NULL,
                records INTEGER NOT NULL,
                pages INTEGER NOT NULL,
                candidates INTEGER NOT NULL,
                documents INTEGER NOT NULL,
                seconds REAL NOT NULL,
                error TEXT,
                scanned_at TEXT NOT NULL
            )""",
            # A page found in an archive file: where its record is there (its provenance;
            # the page's own row says when it was captured, fetched_at).
            """CREATE TABLE archive_pages (
                page_id INTEGER PRIMARY KEY REFERENCES pages(id),
                source TEXT NOT NULL,
                offset INTEGER NOT NULL,
                record_id TEXT NOT NULL,
                kind TEXT NOT NULL
            )""",
        ],
    ),
    (
        "export-tallies",
        [
            # A counter of the changes to what an export of the corpus reads (the target
            # documents, their pages' status, site and source, the archive pages), kept by
            # the triggers below whoever writes: the export's per-loop counts
            # (export_tallies) are still right while it has not moved.
            """CREATE TABLE corpus_version (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                version INTEGER NOT NULL
            )""",
            "INSERT INTO corpus_version (id, version) VALUES (1, 0)",
            (
                "CREATE TRIGGER corpus_documents_added AFTER INSERT ON documents WHEN "
                "NEW.kind = 'target' BEGIN UPDATE corpus_version SET version = version + 1 "
                "WHERE id = 1; END"
            ),
            (
                "CREATE TRIGGER corpus_documents_removed AFTER DELETE ON documents WHEN "
                "OLD.kind = 'target' BEGIN UPDATE corpus_version SET version = version + 1 "
                "WHERE id = 1; END"
            ),
            (
                "CREATE TRIGGER corpus_documents_changed AFTER UPDATE OF kind, loop, page_id, "
                "paragraphs, teasers, duplicate_of ON documents WHEN (OLD.kind = 'target' OR "
                "NEW.kind = 'target') AND (OLD.kind IS NOT NEW.kind OR OLD.loop IS NOT "
                "NEW.loop OR OLD.page_id IS NOT NEW.page_id OR OLD.paragraphs IS NOT "
                "NEW.paragraphs OR OLD.teasers IS NOT NEW.teasers OR OLD.duplicate_of IS NOT "
                "NEW.duplicate_of) BEGIN UPDATE corpus_version SET version = version + 1 "
                "WHERE id = 1; END"
            ),
            (
                "CREATE TRIGGER corpus_pages_added AFTER INSERT ON pages WHEN NEW.status = "
                "'kept' BEGIN UPDATE corpus_version SET version = version + 1 WHERE id = 1; "
                "END"
            ),
            (
                "CREATE TRIGGER corpus_pages_removed AFTER DELETE ON pages WHEN OLD.status = "
                "'kept' BEGIN UPDATE corpus_version SET version = version + 1 WHERE id = 1; "
                "END"
            ),
            (
                "CREATE TRIGGER corpus_pages_changed AFTER UPDATE OF status, site, source ON "
                "pages WHEN (OLD.status = 'kept' OR NEW.status = 'kept') AND (OLD.status IS "
                "NOT NEW.status OR OLD.site IS NOT NEW.site OR OLD.source IS NOT NEW.source) "
                "BEGIN UPDATE corpus_version SET version = version + 1 WHERE id = 1; END"
            ),
            (
                "CREATE TRIGGER corpus_archive_pages_added AFTER INSERT ON archive_pages "
                "BEGIN UPDATE corpus_version SET version = version + 1 WHERE id = 1; END"
            ),
            (
                "CREATE TRIGGER corpus_archive_pages_removed AFTER DELETE ON archive_pages "
                "BEGIN UPDATE corpus_version SET version = version + 1 WHERE id = 1; END"
            ),
            (
                "CREATE TRIGGER corpus_archive_pages_changed AFTER UPDATE OF page_id ON "
                "archive_pages BEGIN UPDATE corpus_version SET version = version + 1 "
                "WHERE id = 1; END"
            ),
            # The per-loop counts of a default export (collie.corpus.export: documents by
            # source, words, documents without target text) as JSON, and what they were
            # computed from (the corpus version, the settings and the language model they
            # depend on): what `collie status` shows without exporting again.
            """CREATE TABLE export_tallies (
                fingerprint TEXT PRIMARY KEY,
                tally TEXT NOT NULL,
                computed_at TEXT NOT NULL
            )""",
        ],
    ),
    (
        "scan-partial-files",
        [
            # An archive file's identity beside its name (collie.mining.scan): its size and
            # the SHA-1 of its first bytes (scanfile.IDENTITY_BYTES), NULL for a URL or a
            # file scanned before this migration; `whole` 0 for a file that ended
            # mid-record (a partial download), which a rerun resumes at `end_offset`, the
            # offset after its last whole record (a file that grew is resumed there too).
            "ALTER TABLE scanned_files ADD COLUMN size INTEGER",
            "ALTER TABLE scanned_files ADD COLUMN head TEXT",
            "ALTER TABLE scanned_files ADD COLUMN whole INTEGER NOT NULL DEFAULT 1",
            "ALTER TABLE scanned_files ADD COLUMN end_offset INTEGER",
        ],
    ),
    (
        "lost-bodies",
        [
            # Pages whose only copy of the body was in a damaged WARC file
            # (collie.archive.repair: `collie check --repair`): where the record was and
            # what was wrong, kept when the page row's warc_* columns are cleared; then
            # when `collie run` fetched the page again and what came back: 'same' (the
            # body the page was made from), 'changed' (another body: `collie reprocess`
            # decides the page again) or 'failed:REASON' (still lost).
            """CREATE TABLE lost_bodies (
                page_id INTEGER PRIMARY KEY REFERENCES pages (id),
                warc_file TEXT NOT NULL,
                warc_offset INTEGER,
                damage TEXT NOT NULL,
                marked_at TEXT NOT NULL,
                refetched_at TEXT,
                outcome TEXT
            )""",
        ],
    ),
    (
        "site-labels-kept",
        [
            # The site labels (collie.corpus.sites) as last decided, under the state of
            # the workspace they were decided in: what `collie status` and `collie
            # report` show without reading every site's documents again.
            """CREATE TABLE site_labels_kept (
                fingerprint TEXT PRIMARY KEY,
                labels TEXT NOT NULL,
                computed_at TEXT NOT NULL
            )""",
        ],
    ),
    (
        "search-runs",
        [
            # Each `collie run` that searched: when, with which backend, and the search
            # requests it sent (counted in the transaction that commits each one as
            # pending, so a killed run's count is right): status and report price them.
            """CREATE TABLE search_runs (
                id INTEGER PRIMARY KEY,
                started_at TEXT NOT NULL,
                backend TEXT NOT NULL,
                requests INTEGER NOT NULL DEFAULT 0
            )""",
        ],
    ),
    (
        "page-rights",
        [
            # What a page states of its rights (collie.page.rights): the licence, as an
            # SPDX identifier (CC-BY-SA-4.0), and where it reserves text and data mining
            # (tdmrep-header, tdmrep-meta, robots-noai, x-robots-noai); NULL: none found,
            # or a page fetched before this migration (`collie reprocess` does not fill
            # them: the HTTP headers are not read back).
            "ALTER TABLE pages ADD COLUMN licence TEXT",
            "ALTER TABLE pages ADD COLUMN tdm TEXT",
        ],
    ),
    (
        "page-langid",
        [
            # How a page's language was identified (collie.mining.provenance): the
            # model's version ("bundled, collie 0.1.0", "workspace") and the SHA-256 of
            # its file, its langid.threshold, the margin between the top two languages'
            # shares of the page's letters, and the characters the model classified;
            # NULL: not identified, or before this migration (`collie reprocess` fills
            # them in).
            "ALTER TABLE pages ADD COLUMN lid_model TEXT",
            "ALTER TABLE pages ADD COLUMN lid_sha256 TEXT",
            "ALTER TABLE pages ADD COLUMN lid_threshold REAL",
            "ALTER TABLE pages ADD COLUMN lid_margin REAL",
            "ALTER TABLE pages ADD COLUMN lid_chars INTEGER",
        ],
    ),
    (
        "tdmrep-file",
        [
            # An origin's /.well-known/tdmrep.json (W3C TDMRep; collie.fetch.tdmrep), kept
            # with its robots.txt record: its text, '' when it has none, NULL when not
            # asked yet (a record from before: asked on its origin's next fetch).
            "ALTER TABLE robots ADD COLUMN tdmrep TEXT",
            # What it said of the page when the page was fetched: 1 reserved, 0 not,
            # NULL nothing (no file, no rule); `collie reprocess` weighs it again with
            # the page's own statements.
            "ALTER TABLE pages ADD COLUMN tdm_file INTEGER",
        ],
    ),
]


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def schema_version(conn: sqlite3.Connection) -> int:
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'migrations'"
    ).fetchone()
    if not exists:
        return 0
    row = conn.execute("SELECT MAX(id) FROM migrations").fetchone()
    return int(row[0] or 0)


def migrate(conn: sqlite3.Connection) -> list[str]:
    """Apply pending migrations in order, one transaction each; return their names."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS migrations ("
        "id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
    )
    current = schema_version(conn)
    if current > len(MIGRATIONS):
        raise WorkspaceError(
            f"This workspace's database is at schema version {current}, newer than this "
            f"collie ({__version__}) knows ({len(MIGRATIONS)}).",
            "Upgrade collie to work with this workspace.",
        )
    applied = []
    for number, (name, statements) in enumerate(MIGRATIONS, start=1):
        if number <= current:
            continue
        with Database(conn, Path()).batch():  # the folder plays no part in a migration
            for statement in statements:
                conn.execute(statement)
            conn.execute(
                "INSERT INTO migrations (id, name, applied_at) VALUES (?, ?, ?)",
                (number, name, _now()),
            )
        applied.append(name)
    return applied
