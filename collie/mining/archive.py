"""The workspace's WARC files for a run or a reprocess (collie.store.warc writes them):
opened with what they already hold remembered, and a workspace from before them has its
body cache (cache/) moved in on first use.

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

from collie.fetch.bodycache import CACHE_FOLDER, read_body
from collie.mining.config import KeepConfig, RunConfig
from collie.models import WarcLocation
from collie.store.archived import ArchiveStore
from collie.store.warc import WARC_FOLDER, WarcArchive
from collie.store.warccheck import suspect_files
from collie.version import __version__

if TYPE_CHECKING:  # types only: the caller hands these in
    from collie.store.pages import PageStore
    from collie.workspace.folder import Workspace


log = logging.getLogger(__name__)
MIGRATE_CHUNK = 500  # pages a transaction
MOVED_NOTE = (
    "Moved into the WARC files from collie's body cache (a workspace from before them): "
    "the body as collie read it, its Content-Encoding undone; the HTTP answer's headers "
    "were not kept. The page's HTTP status was {status}; it was fetched at {date}."
)


def open_archive(ws: Workspace, store: PageStore, keep: KeepConfig) -> WarcArchive:
    """The workspace's WARC files (warc/), a torn last record cut off, the payloads of
    the pages archived before remembered (a refetch of one is a revisit record)."""
    software = f"collie/{__version__}"
    archive = WarcArchive(ws.root / WARC_FOLDER, keep.warc_max_bytes, software)
    archive.remember(store.warc_digests())
    damaged = suspect_files(archive.folder, archive.files(), ArchiveStore(ws).record_ends())
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
    ws: Workspace,
    store: PageStore,
    archive: WarcArchive | None = None,
    keep: KeepConfig | None = None,
) -> int:
    """Move cache/ into the WARC files (module docstring), with the run's `archive` or
    one opened here; how many pages now point at a moved body. Nothing to do when
    warc.keep is none or there is no body cache."""
    keep = keep or RunConfig.of(ws).keep
    if keep.warc == "none" or not has_body_cache(ws.root):
        return 0
    own = archive is None
    archive = archive or open_archive(ws, store, keep)
    moved = 0
    try:
        pending = store.unarchived_bodies()
        for start in range(0, len(pending), MIGRATE_CHUNK):
            chunk = pending[start : start + MIGRATE_CHUNK]
            moved += _move_chunk(store.cache, store, archive, chunk)
    finally:
        if own:
            archive.close()
    _remove_moved(store.cache, store)
    if moved:
        log.info("%d pages' bodies moved from cache/ into the WARC files", moved)
    return moved


def _move_chunk(
    cache: Path,
    store: PageStore,
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
            status = store.conn.execute(
                "SELECT http_status FROM pages WHERE id = ?", (page_id,)
            ).fetchone()[0]
            date = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(fetched_at))
            note = MOVED_NOTE.format(status=status, date=date)
            written[sha1] = archive.write_resource(url, content_type, body, fetched_at, note)
        pointed.append((page_id, written[sha1]))
    archive.flush()  # on disk before any row points at a record
    with store.conn:
        for page_id, where in pointed:
            store.set_warc(page_id, where)
    return len(pointed)


def _remove_moved(cache: Path, store: PageStore) -> None:
    """Remove the body files no page needs from cache/ any more (and the emptied
    folders): every page with that body points at the WARC files."""
    needed = {
        row[0]
        for row in store.conn.execute(
            "SELECT DISTINCT body_sha1 FROM pages WHERE body_sha1 IS NOT NULL AND warc_file IS NULL"
        )
    }
    for path in sorted(cache.glob("*/*.gz")):
        if path.name.removesuffix(".gz") not in needed:
            path.unlink()
    for folder in sorted(cache.iterdir()):
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
    if not any(cache.iterdir()):
        cache.rmdir()
