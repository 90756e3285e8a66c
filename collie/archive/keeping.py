"""What a workspace keeps of the pages it fetched: the keep policy (warc.keep), the WARC
files opened for a run or a reprocess (collie.archive.writer writes them) with what they
already hold remembered, and a workspace from before them has its body cache (cache/)
moved in on first use.

The move: each body of cache/ that a page points at becomes a resource record (the body
as collie read it, Content-Encoding undone; the headers were never kept) with a metadata
record saying so, the pages point at it, and the body's file goes. It is done in
chunks: records on disk, then the chunk's rows in one transaction, then the files; a
process killed midway leaves records nobody points at (harmless: written again) and
never a page pointing at nothing. A workspace that keeps no WARC files (warc.keep none)
keeps its cache/.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING

from collie.archive.bodycache import CACHE_FOLDER, read_body
from collie.archive.check import suspect_files
from collie.archive.pointers import ArchiveStore
from collie.archive.reader import WARC_FOLDER
from collie.archive.writer import WarcArchive
from collie.models import WarcLocation
from collie.version import __version__

if TYPE_CHECKING:  # types only: the caller hands these in
    from collie.store.pages import PageTable


log = logging.getLogger(__name__)
MIGRATE_CHUNK = 500  # pages a transaction
MOVED_NOTE = (
    "Moved into the WARC files from collie's body cache (a workspace from before them): "
    "the body as collie read it, its Content-Encoding undone; the HTTP answer's headers "
    "were not kept. The page's HTTP status was {status}; it was fetched at {date}."
)


def keeps(policy: str, target: bool) -> bool:
    """Whether a fetch's exchanges go into the WARC files under warc.keep `policy`: all
    of them; with target, those of a fetch that gave a target-language document (or may
    give one: `target` says so); with none, no WARC files at all (the body cache)."""
    return policy == "all" or (policy == "target" and target)


def open_archive(table: PageTable, max_bytes: int) -> WarcArchive:
    """The workspace's WARC files (warc/) of the workspace `table` is open on, a torn
    last record cut off, the payloads of the pages archived before remembered (a refetch
    of one is a revisit record); a file grows to `max_bytes` (warc.max_bytes)."""
    software = f"collie/{__version__}"
    archive = WarcArchive(table.db.root / WARC_FOLDER, max_bytes, software)
    archive.remember(table.warc_digests())
    damaged = suspect_files(archive.folder, archive.files(), ArchiveStore(table.db).record_ends())
    if damaged:
        log.warning(
            "damaged WARC files: %s. Pages whose body they held cannot be read back; "
            "`collie check` names them, `collie check --repair` has the next run fetch "
            "them again.",
            "; ".join(f"warc/{name} ({what})" for name, what in damaged.items()),
        )
    return archive


def has_body_cache(root: Path) -> bool:
    cache = root / CACHE_FOLDER
    return cache.is_dir() and any(cache.glob("*/*.gz"))


def migrate_body_cache(
    table: PageTable, policy: str, max_bytes: int, archive: WarcArchive | None = None
) -> int:
    """Move cache/ into the WARC files (module docstring), with the run's `archive` or
    one opened here; how many pages now point at a moved body. Nothing to do when
    warc.keep (`policy`) is none or there is no body cache."""
    if policy == "none" or not has_body_cache(table.db.root):
        return 0
    own = archive is None
    archive = archive or open_archive(table, max_bytes)
    cache = table.db.root / CACHE_FOLDER
    moved = 0
    try:
        pending = table.unarchived_bodies()
        for start in range(0, len(pending), MIGRATE_CHUNK):
            chunk = pending[start : start + MIGRATE_CHUNK]
            moved += _move_chunk(cache, table, archive, chunk)
    finally:
        if own:
            archive.close()
    _remove_moved(cache, table)
    if moved:
        log.info("%d pages' bodies moved from cache/ into the WARC files", moved)
    return moved


def _move_chunk(
    cache: Path,
    table: PageTable,
    archive: WarcArchive,
    pages: list[tuple[int, str, str, float, str]],
) -> int:
    written: dict[str, WarcLocation] = {}
    pointed: list[tuple[int, WarcLocation]] = []
    for page_id, url, content_type, fetched_at, sha1 in pages:
        if sha1 not in written:
            body = read_body(cache, sha1)
            if body is None:
                continue
            status = ArchiveStore(table.db).http_status(page_id)
            date = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(fetched_at))
            note = MOVED_NOTE.format(status=status, date=date)
            written[sha1] = archive.write_resource(url, content_type, body, fetched_at, note)
        pointed.append((page_id, written[sha1]))
    archive.flush()  # on disk before any row points at a record
    with table.db.batch():
        for page_id, where in pointed:
            table.set_warc(page_id, where)
    return len(pointed)


def _remove_moved(cache: Path, table: PageTable) -> None:
    """Remove the body files no page needs from cache/ any more (and the emptied
    folders): every page with that body points at the WARC files."""
    needed = ArchiveStore(table.db).cached_bodies_needed()
    for path in sorted(cache.glob("*/*.gz")):
        if path.name.removesuffix(".gz") not in needed:
            path.unlink()
    for folder in sorted(cache.iterdir()):
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
    if not any(cache.iterdir()):
        cache.rmdir()
