"""The page rows' pointers into the workspace's WARC files, and the pages whose body was
lost with a damaged file (the lost_bodies table): what `collie check` compares with the
files, what `--repair` marks, and what `collie run` fetches again (issue 45)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from collie.models import WarcLocation
from collie.store.base import Database, now_iso

SAME, CHANGED, FAILED = "same", "changed", "failed"


@dataclass(frozen=True)
class RecordRow:
    """A page row that points at a record of the WARC files."""

    page_id: int
    url: str
    file: str
    offset: int
    record_id: str
    digest: str  # the payload digest ('' without one)
    http_status: int | None


@dataclass(frozen=True)
class LostPage:
    """A page whose body is lost: what to fetch again and what it was made from."""

    page_id: int
    url: str
    body_sha1: str | None
    tried: bool  # fetched again before, and that failed


@dataclass(frozen=True)
class LostCounts:
    """The lost bodies: waiting to be fetched again, fetched again (the same body or
    another), fetch failed; and the corpus documents among the waiting and failed."""

    waiting: int = 0
    same: int = 0
    changed: int = 0
    failed: int = 0
    documents: int = 0

    @property
    def unfetched(self) -> int:
        return self.waiting + self.failed


class ArchiveStore:
    """The WARC pointers of page rows and the lost bodies of one open workspace."""

    def __init__(self, db: Database) -> None:
        self.db, self.conn = db, db.conn

    def http_status(self, page_id: int) -> int | None:
        """The HTTP status a page's answer had."""
        row = self.conn.execute("SELECT http_status FROM pages WHERE id = ?", (page_id,)).fetchone()
        return None if row is None else row[0]

    def cached_bodies_needed(self) -> set[str]:
        """The SHA-1s of the bodies in cache/ that a page not in the WARC files needs."""
        return {
            row[0]
            for row in self.conn.execute(
                "SELECT DISTINCT body_sha1 FROM pages "
                "WHERE body_sha1 IS NOT NULL AND warc_file IS NULL"
            )
        }

    def record_rows(self) -> list[RecordRow]:
        """Every page row pointing at a WARC record, in file and offset order."""
        rows = self.conn.execute(
            "SELECT id, url, warc_file, warc_offset, COALESCE(warc_record_id, ''), "
            "COALESCE(warc_digest, ''), http_status FROM pages "
            "WHERE warc_file IS NOT NULL AND warc_offset IS NOT NULL "
            "ORDER BY warc_file, warc_offset, id"
        )
        return [RecordRow(*row) for row in rows]

    def record_ends(self) -> dict[str, int]:
        """Each WARC file page rows name -> where the last record they point at ends."""
        rows = self.conn.execute(
            "SELECT warc_file, MAX(warc_offset + COALESCE(warc_length, 0)) FROM pages "
            "WHERE warc_file IS NOT NULL AND warc_offset IS NOT NULL GROUP BY warc_file"
        )
        return {name: int(end) for name, end in rows}

    def mark_lost(self, lost: Iterable[tuple[RecordRow, str]]) -> int:
        """Record each page's lost body (the row and what was wrong) and clear its
        pointer, in one transaction; how many were marked."""
        when = now_iso()
        marked = 0
        with self.db.batch():
            for row, damage in lost:
                self.conn.execute(
                    "INSERT OR REPLACE INTO lost_bodies (page_id, warc_file, warc_offset, "
                    "damage, marked_at) VALUES (?, ?, ?, ?, ?)",
                    (row.page_id, row.file, row.offset, damage, when),
                )
                self.conn.execute(
                    "UPDATE pages SET warc_file = NULL, warc_offset = NULL, warc_length = NULL, "
                    "warc_record_id = NULL, warc_digest = NULL WHERE id = ?",
                    (row.page_id,),
                )
                marked += 1
        return marked

    def relocate(self, moves: Iterable[tuple[int, int]]) -> None:
        """Page rows follow their records to new offsets in the same file (page id,
        offset), in one transaction."""
        with self.db.batch():
            self.conn.executemany(
                "UPDATE pages SET warc_offset = ? WHERE id = ?",
                [(offset, page_id) for page_id, offset in moves],
            )

    def lost_pages(self, retry_failed: bool) -> list[LostPage]:
        """The pages to fetch again: never tried, and (`retry_failed`) those whose
        fetch failed; in page order."""
        tried = "OR l.outcome LIKE 'failed%'" if retry_failed else ""
        rows = self.conn.execute(
            "SELECT p.id, p.url, p.body_sha1, l.outcome IS NOT NULL FROM lost_bodies l "
            f"JOIN pages p ON p.id = l.page_id WHERE l.outcome IS NULL {tried} ORDER BY p.id"
        )
        return [LostPage(i, u, s, bool(t)) for i, u, s, t in rows]

    def set_refetched(
        self, page_id: int, outcome: str, where: WarcLocation | None, fetched_at: float
    ) -> None:
        """A lost page fetched again (inside a transaction the caller holds): what came
        back, and the record now holding its answer (None: the fetch failed)."""
        self.conn.execute(
            "UPDATE lost_bodies SET refetched_at = ?, outcome = ? WHERE page_id = ?",
            (now_iso(), outcome, page_id),
        )
        if where is not None:
            self.conn.execute(
                "UPDATE pages SET warc_file = ?, warc_offset = ?, warc_length = ?, "
                "warc_record_id = ?, warc_digest = ?, fetched_at = ? WHERE id = ?",
                (
                    where.file,
                    where.offset,
                    where.length,
                    where.record_id,
                    where.digest,
                    fetched_at,
                    page_id,
                ),
            )

    def lost_counts(self) -> LostCounts:
        """What the lost_bodies table holds (LostCounts)."""
        counts = dict(
            self.conn.execute(
                "SELECT CASE WHEN outcome IS NULL THEN 'waiting' WHEN outcome LIKE 'failed%' "
                "THEN 'failed' ELSE outcome END AS o, COUNT(*) FROM lost_bodies GROUP BY o"
            ).fetchall()
        )
        documents = self.conn.execute(
            "SELECT COUNT(*) FROM lost_bodies l JOIN documents d ON d.page_id = l.page_id "
            "JOIN pages p ON p.id = l.page_id "
            "WHERE d.kind = 'target' AND d.duplicate_of IS NULL AND p.status = 'kept' "
            "AND (l.outcome IS NULL OR l.outcome LIKE 'failed%')"
        ).fetchone()[0]
        return LostCounts(
            counts.get("waiting", 0),
            counts.get(SAME, 0),
            counts.get(CHANGED, 0),
            counts.get(FAILED, 0),
            documents,
        )

    def corpus_documents(self, page_ids: Iterable[int]) -> int:
        """How many of these pages' documents are in the corpus as kept (target, not
        duplicates, their page kept: as the review and the site list count them)."""
        ids = sorted(set(page_ids))
        total = 0
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            total += self.conn.execute(
                "SELECT COUNT(*) FROM documents d JOIN pages p ON p.id = d.page_id "
                "WHERE d.kind = 'target' AND d.duplicate_of IS NULL AND p.status = 'kept' "
                f"AND d.page_id IN ({marks})",
                chunk,
            ).fetchone()[0]
        return total
