"""What `collie scan` records beside the pages (collie.mining.scan): the archive files
scanned, and where each page found in one came from."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from collie.store.base import Database, now_iso


@dataclass(frozen=True)
class ScannedFile:
    """An archive file scanned before: to its end (`whole`) or to the end of its last
    whole record (`end`, a partial download), with its size and first bytes' hash when
    known, and what it held."""

    source: str
    whole: bool
    end: int | None
    size: int | None
    head: str | None
    counts: dict[str, Any]


COUNTS = ("records", "pages", "candidates", "documents", "seconds")


class ScanTable:
    """The scan's reads and writes, on the workspace's connection."""

    def __init__(self, db: Database) -> None:
        self.db, self.conn = db, db.conn

    def scanned_sources(self) -> set[str]:
        """The files scanned to their end (a partial one is not among them)."""
        rows = self.conn.execute("SELECT source FROM scanned_files WHERE whole = 1")
        return {row[0] for row in rows}

    def scanned_files(self) -> dict[str, ScannedFile]:
        """Every file scanned, whole or partial, by its name."""
        rows = self.conn.execute(
            "SELECT source, whole, end_offset, size, head, records, pages, candidates, "
            "documents, seconds FROM scanned_files"
        )
        return {
            row[0]: ScannedFile(
                row[0],
                bool(row[1]),
                row[2],
                row[3],
                row[4],
                dict(zip(COUNTS, row[5:], strict=True)),
            )
            for row in rows
        }

    def queued_ids(self, urls: Iterable[str]) -> dict[str, int]:
        """The page ids of those of `urls` that are queued (not fetched, not recorded)."""
        found = {}
        for url in urls:
            row = self.conn.execute(
                "SELECT id FROM pages WHERE url = ? AND status = 'queued'", (url,)
            ).fetchone()
            if row is not None:
                found[url] = int(row[0])
        return found

    def add_archive_pages(self, rows: Iterable[tuple[int, str, int, str, str]]) -> None:
        """(page id, source file, offset, record id, kind) of pages found in archives."""
        self.conn.executemany(
            "INSERT OR REPLACE INTO archive_pages (page_id, source, offset, record_id, kind) "
            "VALUES (?, ?, ?, ?, ?)",
            list(rows),
        )

    def mark_scanned(
        self,
        source: str,
        loop: int,
        counts: dict[str, Any],
        identity: tuple[int, str] | None = None,
        end: int | None = None,
        whole: bool = True,
    ) -> None:
        """A file scanned to its end, or (`whole` False) to `end`, the offset after its
        last whole record, where a rerun resumes; `identity` its size and first bytes'
        hash (scanfile.file_identity)."""
        size, head = identity if identity is not None else (None, None)
        with self.db.batch():
            self.conn.execute(
                "INSERT OR REPLACE INTO scanned_files (source, loop, records, pages, "
                "candidates, documents, seconds, error, scanned_at, size, head, whole, "
                "end_offset) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    source,
                    loop,
                    counts["records"],
                    counts["pages"],
                    counts["candidates"],
                    counts["documents"],
                    counts["seconds"],
                    counts.get("error"),
                    now_iso(),
                    size,
                    head,
                    int(whole),
                    end,
                ),
            )

    def scan_totals(self) -> dict[str, Any]:
        """Files scanned (partial ones among them) and what they held; documents found in
        them, kept now."""
        row = self.conn.execute(
            "SELECT COUNT(*), COALESCE(SUM(records), 0), COALESCE(SUM(pages), 0), "
            "COALESCE(SUM(candidates), 0), COALESCE(SUM(seconds), 0), "
            "COALESCE(SUM(whole = 0), 0) FROM scanned_files"
        ).fetchone()
        documents = self.conn.execute(
            "SELECT COUNT(*) FROM archive_pages a JOIN documents d ON d.page_id = a.page_id "
            "JOIN pages p ON p.id = a.page_id WHERE d.kind = 'target' AND p.status = 'kept'"
        ).fetchone()[0]
        return {
            "files": row[0],
            "records": row[1],
            "pages": row[2],
            "candidates": row[3],
            "seconds": round(row[4], 1),
            "partial": row[5],  # files that ended mid-record: read on when complete
            "documents": documents,
        }
