"""Web-archive files: mining Common Crawl's WARC or WET files (any WARC) for a
workspace's language, what `collie scan` does (collie.mining.scan); and checking and
repairing the workspace's own WARC files, what `collie check` does
(collie.archive.repair). For the command line and for Python."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from pathlib import Path

from collie.api.executors import open_executor
from collie.api.options import Notes, Opener, no_note
from collie.archive.bodycache import CACHE_FOLDER
from collie.archive.check import FileCheck, check_file
from collie.archive.pointers import ArchiveStore
from collie.archive.reader import WARC_FOLDER
from collie.archive.repair import ArchiveCheck, Repair, check_archive, repair_archive
from collie.corpus.replay import ensure_index
from collie.errors import CollieError
from collie.mining.config import RunConfig
from collie.mining.records import RunEvents
from collie.mining.reprocess import ReprocessReport, reprocess
from collie.mining.scan import ScanReport, expand_sources, scan
from collie.page.maintext import check_installed
from collie.store import CorpusStore
from collie.workspace.folder import RunLock, Workspace


def scan_archives(
    open_workspace: Opener,
    files: Sequence[str],
    base: str = "",
    prefilter: bool = True,
    threads: int = 1,
    events: RunEvents | None = None,
    notes: Notes = no_note,
) -> ScanReport:
    """Scan `files` (paths, globs, URLs, Common Crawl paths files under `base`) into the
    workspace's open loop, one task a file on the executor the settings ask for (local:
    `threads` files at once); files scanned before are skipped."""
    check_installed()
    sources = expand_sources(files, base)
    with open_workspace() as ws, RunLock(ws.root):
        config = RunConfig.of(ws)  # the scan's one configuration
        model = ws.model()
        with open_executor(config.executor, threads, notes) as executor:
            return scan(ws, model, executor, sources, config, events, prefilter=prefilter)


def reprocess_workspace(
    open_workspace: Opener,
    threads: int = 1,
    events: RunEvents | None = None,
    notes: Notes = no_note,
) -> ReprocessReport:
    """Process the workspace's fetched pages again from its WARC files (`collie
    reprocess`: collie.mining.reprocess), on the executor the settings ask for (local:
    `threads` threads), with the settings and model of now; refused beside a run."""
    check_installed()
    with open_workspace() as ws, RunLock(ws.root):
        if not any((ws.root / name).is_dir() for name in (WARC_FOLDER, CACHE_FOLDER)):
            raise CollieError(
                "This workspace has no fetched pages yet (no warc/ or cache/ folder).",
                "Run `collie run` first; it keeps every page it reads.",
            )
        config = RunConfig.of(ws)  # the reprocess's one configuration
        model = ws.model()
        with open_executor(config.executor, threads, notes) as executor:
            return reprocess(ws, model, executor, config, events)


@dataclass(frozen=True)
class ReplayIndex:
    """The workspace's CDXJ index, written again if a WARC file is newer (`collie
    replay`), the damaged files in it, and a document to show as an example."""

    root: Path
    index: Path
    damaged: dict[str, tuple[str, int]]
    example: tuple[str, float] | None  # (URL, fetched at) of an archived document


def replay_index(open_workspace: Opener) -> ReplayIndex:
    """warc/index.cdxj brought up to date (corpus.replay.ensure_index), the files the
    page rows name checked among them."""
    with open_workspace() as ws:
        store = CorpusStore(ws.db)
        index, damaged = ensure_index(ws.root, store.warc_files_named())
        first = next(iter(store.archived_documents(1)), None)
        return ReplayIndex(ws.root, index, damaged, first)


@dataclass(frozen=True)
class Checked:
    """What `collie check` found (ArchiveCheck), what `--repair` did, and the repaired
    files checked again (None without a repair)."""

    found: ArchiveCheck
    repaired: Repair | None = None
    after: list[FileCheck] | None = None

    @property
    def healthy(self) -> bool:
        """Every file whole, and no lost body waiting to be marked or fetched again; after
        a repair, every file it left whole (the pages it marked wait for `collie run`)."""
        if self.after is None:
            return self.found.healthy
        return all(f.whole for f in self.after)


def check_workspace(open_workspace: Opener, repair: bool = False) -> Checked:
    """Check the workspace's WARC files against its page rows (collie.archive.repair);
    with `repair`, cut or move aside what is damaged and mark the lost pages, which
    `collie run` (or `run(refetch_lost=True)`) fetches again. Refused beside a run; in
    a read-only workspace, the check only (the repair writes)."""
    with open_workspace() as ws, _lock(ws, repair):
        store = ArchiveStore(ws.db)
        found = check_archive(ws.root, store)
        if not repair or not (found.damaged or found.lost or found.moved):
            return Checked(found)
        done = repair_archive(ws.root, store, found)
        folder = ws.root / WARC_FOLDER
        after = [check_file(folder / f.name) for f in found.damaged if (folder / f.name).exists()]
        return Checked(replace(found, marked=store.lost_counts()), done, after)


def _lock(ws: Workspace, repair: bool) -> AbstractContextManager[object]:
    """The run lock, but a read-only workspace's check reads only (nothing to lock)."""
    return contextlib.nullcontext() if ws.read_only and not repair else RunLock(ws.root)
