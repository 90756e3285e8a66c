"""Mining a workspace: what `collie run` does, for the command line and for Python.

`mine` brings the workspace to `run.loops` completed loops (collie.mining.loop.run),
with the run's log in logs/ and the executor the settings ask for. The caller watches
through its `RunEvents` (progress bars, count lines) and, with `guard`, holds the loop
(the command line's: Ctrl-C asks the run to stop once the work in hand is recorded).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import os
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from collie.api.executors import open_executor
from collie.api.options import Notes, Opener, no_note
from collie.archive.pointers import ArchiveStore
from collie.fetch.fetcher import Fetcher
from collie.lognames import AliasFormatter
from collie.mining.config import RunConfig
from collie.mining.coverage import plan_cost
from collie.mining.loop import run as run_loops
from collie.mining.records import RunEvents, RunReport
from collie.mining.refetch import RefetchReport, refetch_lost
from collie.page.maintext import check_installed
from collie.search import make_backend
from collie.workspace.folder import RunLock, Workspace

RUN_LOG = logging.getLogger(__name__)  # the run's own lines, for logs/ only (collie.runlog)
RUN_LOG.propagate = False


@dataclass(frozen=True)
class Mined:
    """A run's report, with what the command line says around it."""

    report: RunReport
    loops: int  # completed loops asked for, in all (run.loops)
    done_before: int  # completed loops when the run began
    loops_source: str  # where run.loops came from, in `collie config`'s words
    backend: str | None = None  # the search backend's name; None: nothing to do, no run
    refetched: RefetchReport | None = None  # the lost pages fetched again, if there were any


def mine(
    open_workspace: Opener,
    events: RunEvents | None = None,
    notes: Notes = no_note,
    guard: Callable[[], AbstractContextManager[Any]] = contextlib.nullcontext,
    refetch_lost: bool = False,
) -> Mined:
    """Bring the workspace to run.loops completed loops (`collie run`); resumed where an
    earlier run stopped. First the pages whose body was lost with a damaged WARC file
    (`collie check --repair` marks them) are fetched again; with `refetch_lost` only
    that, those whose last try failed included, and no loop. Nothing else is fetched
    when the loops are done already."""
    check_installed()
    with open_workspace() as ws, RunLock(ws.root):
        settings = ws.settings
        config = RunConfig.of(ws)  # the run's one configuration, handed down
        limits = config.limits
        done, source = ws.completed_loops(), settings.entry("run.loops").source
        refetched = _refetch(ws, config, events or RunEvents(), guard, refetch_lost)
        if refetch_lost or done >= limits.loops:  # nothing (else) to do: no model, no search
            return Mined(RunReport(already_done=True), limits.loops, done, source, None, refetched)
        backend = make_backend(settings, os.environ, ws.language.part1 or "")
        backend.check()
        ws.search_run = ws.queries.begin_run(backend.name)  # its requests counted (cost)
        model = ws.model()
        config = config.judging_with(model)
        logged = LoggedEvents(events or RunEvents())
        log_path, log_handler = open_run_log(ws.root)
        try:
            logged.line(f"collie run: {limits.loops} loop(s); this run's log is {log_path}")
            spent = ws.queries.requests_sent()
            now = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
            for line in plan_cost(ws, backend, config, now).lines(backend.name):
                logged.line(line)
            with (
                guard(),
                Fetcher(config.fetch) as fetcher,
                open_executor(config.executor, 1, notes) as executor,
            ):
                report = run_loops(ws, backend, fetcher, model, config, logged, executor)
        finally:
            close_run_log(log_handler)
        report.requests = ws.queries.requests_sent() - spent
    return Mined(report, limits.loops, done, source, backend.name, refetched)


def _refetch(
    ws: Workspace,
    config: RunConfig,
    events: RunEvents,
    guard: Callable[[], AbstractContextManager[Any]],
    retry_failed: bool,
) -> RefetchReport | None:
    """The lost pages fetched again (collie.mining.refetch), or None when there are none."""
    if not ArchiveStore(ws.db).lost_pages(retry_failed):
        return None
    with guard(), Fetcher(config.fetch) as fetcher:
        return refetch_lost(ws, fetcher, config.keep, events, retry_failed)


class LoggedEvents(RunEvents):
    """The caller's events, each line of the run also written to the run's log."""

    def __init__(self, inner: RunEvents) -> None:
        self.inner = inner

    def stage(self, loop: int, name: str, total: int | None) -> None:
        self.inner.stage(loop, name, total)

    def advance(self, count: int = 1) -> None:
        self.inner.advance(count)

    def line(self, text: str) -> None:
        RUN_LOG.info(text)
        self.inner.line(text)

    def status(self, text: str) -> None:
        self.inner.status(text)

    def should_stop(self) -> bool:
        return self.inner.should_stop()


def open_run_log(root: Path) -> tuple[Path, logging.Handler]:
    """A log file for one run in the workspace's logs/ folder: what the run prints and
    what collie logs at INFO and above (queries failing, retries, pages that broke a
    stage). Close it with `close_run_log`."""
    folder = root / "logs"
    folder.mkdir(exist_ok=True)
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    path = folder / f"run-{stamp}.log"
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setLevel(logging.INFO)
    handler.setFormatter(AliasFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    collie = logging.getLogger("collie")
    collie.addHandler(handler)
    if collie.getEffectiveLevel() > logging.INFO:
        collie.setLevel(logging.INFO)  # the stderr handler keeps the command line's level
    RUN_LOG.addHandler(handler)
    RUN_LOG.setLevel(logging.INFO)
    return path, handler


def close_run_log(handler: logging.Handler) -> None:
    logging.getLogger("collie").removeHandler(handler)
    RUN_LOG.removeHandler(handler)
    logging.getLogger("collie").setLevel(logging.NOTSET)
    handler.close()
