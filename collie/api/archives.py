"""Mining web-archive files (Common Crawl's WARC or WET files, any WARC) for a
workspace's language: what `collie scan` does (collie.mining.scan), for the command line
and for Python."""

from __future__ import annotations

from collections.abc import Sequence

from collie.api.executors import open_executor
from collie.api.options import Notes, Opener, no_note
from collie.mining.records import RunEvents
from collie.mining.scan import ScanReport, expand_sources, scan
from collie.page.maintext import check_installed
from collie.workspace.folder import RunLock


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
        model = ws.model()
        with open_executor(ws.settings, threads, notes) as executor:
            return scan(ws, model, executor, sources, events or RunEvents(), prefilter=prefilter)
