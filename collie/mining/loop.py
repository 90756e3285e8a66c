"""The mining loop: where the stages meet the workspace (docs/design.md, "What a run does").

`run` brings a workspace to N completed loops: seed list -> queries -> search (cached,
search.py) -> frontier -> fetch (stream.py in this process, batches.py on an executor's
workers) -> process -> paragraph language ID -> target documents, wrong-language text
or drops -> near-duplicates -> crawl-out (spider.py). Each batch is recorded in one
transaction (settle.py, collie/store/), so a run can be killed at any moment and
resumed. The stages themselves (fetch, process, langid, crawl, dedup) take and return
plain data and never touch the database.

The loop wires the run's owners together, built once from one `RunConfig`
(config.py): the search stage (search.py), where pages are examined (workers.py), the
spider (spider.py), the settler (settle.py), a scheduler and the passes that judge
the loop's pages again when its frontier is empty (passes.py, as a scan's are). It asks
the search stage for one query's outcome at a time, queues its results and hands them
to the local stream before asking for the next (fetching goes on while queries are
sent); it stops the search stage by asking for no more.
"""

from __future__ import annotations

import logging
from collections import Counter
from typing import TYPE_CHECKING, Protocol

from collie.archive.keeping import migrate_body_cache, open_archive
from collie.fetch.fetcher import Fetcher
from collie.fetch.robots import MemoryRobotsStore
from collie.langid.model import LangModel
from collie.mining.batches import BatchFetch
from collie.mining.config import RunConfig
from collie.mining.executor import Executor, LocalExecutor
from collie.mining.passes import LoopPasses
from collie.mining.records import OFFLINE_STOP, Deadline, LoopReport, RunEvents, RunReport
from collie.mining.relatives import search_contrast
from collie.mining.search import SearchBudget, SearchStage
from collie.mining.settle import Settler
from collie.mining.spider import Listings, Spider
from collie.mining.stream import Stream
from collie.mining.workers import Workers
from collie.reasons import RELATIVE_SUSPECTED
from collie.search.base import Backend
from collie.store import Store
from collie.urls import canonical_url

if TYPE_CHECKING:  # types only: the caller hands these in
    from collie.workspace.folder import Workspace


log = logging.getLogger(__name__)

# The relatives' contrast during the search stage (relatives.search_contrast): once
# search.contrast_pages pages of the loop are relative-suspected, and again each time
# they have doubled, at most SEARCH_PASSES times a loop. Until then a learnt target
# takes its unknown relatives' snippets for its own, and their sites, each a new
# singleton, keep the search's estimate open.
SEARCH_PASSES = 2
# Hosts whose robots.txt must fail, with no page recorded in the run, before the network
# (not the hosts) is taken to be down: a loop that meets only a dead host or two is not.
OFFLINE_HOSTS = 3
# Hosts that answered before asked, one after another, before the network is taken to be
# down (`_network_up`): one answer is enough to show that only the failing hosts are.
NETWORK_PROBES = 3


class _Scheduler(Protocol):
    """What the loop needs of a fetch scheduler (stream.Stream, batches.BatchFetch)."""

    frontier_changed: bool

    def run(self) -> str | None:
        """Fetch until the frontier is empty (None) or the run must stop (why)."""
        ...

    def finish(self) -> None:
        """Start nothing new; settle what is in flight."""
        ...

    def held_back(self) -> tuple[int, dict[str, str]]:
        """Pages held back for an unreachable robots.txt, and their origins' causes."""
        ...


def run(
    ws: Workspace,
    backend: Backend,
    fetcher: Fetcher,
    model: LangModel,
    config: RunConfig,
    events: RunEvents | None = None,
    executor: Executor | None = None,
) -> RunReport:
    """Bring the workspace to `config.limits.loops` completed loops (docs/design.md, "What
    a run does"), with the run's one configuration, its page rules set for `model`
    (`RunConfig.judging_with`). Pages are fetched and examined by `executor` (in this
    process by default, with `fetcher`; on Dask workers, each with its own); only this
    process writes."""
    if ws.completed_loops() >= config.limits.loops:
        return RunReport(already_done=True)
    ws.queries.mark_pending_lost()
    run = _Run(ws, backend, fetcher, model, config, events or RunEvents(), executor)
    return run.loops()


class _Run:
    """One run's owners, wired (module docstring); the loop's steps are its methods."""

    def __init__(
        self,
        ws: Workspace,
        backend: Backend,
        fetcher: Fetcher,
        model: LangModel,
        config: RunConfig,
        events: RunEvents,
        executor: Executor | None,
    ) -> None:
        self.ws, self.backend, self.fetcher = ws, backend, fetcher
        self.config, self.limits, self.events = config, config.limits, events
        self.store = store = Store(ws.db)
        self.workers = Workers(executor or LocalExecutor(), fetcher, model, config)
        self.spider = Spider(store, config)
        self.settler = Settler(store, config, self.spider, model, robots=fetcher.robots)
        self.budget = SearchBudget.of(config.search)  # the run's queries
        self.deadline = Deadline(config.limits.max_time)
        self.report = RunReport()
        self.passes = LoopPasses(ws, self.settler, events)  # when the frontier is empty
        self.search_passes: list[int] = []  # this loop's, during the search: suspects then

    def loops(self) -> RunReport:
        ws, store, report, settler = self.ws, self.store, self.report, self.settler
        self._load_robots()
        if self.config.keep.warc != "none":
            keep = self.config.keep
            settler.archive = open_archive(store.pages, keep.warc_max_bytes)
            migrate_body_cache(
                store.pages, keep.warc, keep.warc_max_bytes, settler.archive
            )  # older
        archive = settler.archive
        try:
            while ws.completed_loops() < self.limits.loops and report.stopped is None:
                loop = store.frontier.open_loop()
                loop_report = LoopReport(loop.number)
                self.passes.new_loop()
                self.search_passes = []
                settler.new_loop()
                report.loops.append(loop_report)
                written = archive.written if archive is not None else 0
                try:
                    report.stopped = self._mine_loop(loop.searched, loop_report)
                finally:
                    if archive is not None and archive.written > written:
                        store.frontier.add_warc_bytes(loop.number, archive.written - written)
                self.passes.mark_teasers()
                self.events.line(loop_report.line())
                if loop_report.held and report.stopped is None:
                    self.events.line(loop_report.given_up_line())
                if loop_report.pages and not loop_report.pages["kept"]:
                    self.events.line(loop_report.nothing_found_line(self.config.target))
                if report.stopped is None:
                    store.frontier.finish_loop(loop.number)
        finally:
            settler.save_robots()
            if archive is not None:
                archive.close()
        return report

    def _mine_loop(self, searched: bool, report: LoopReport) -> str | None:
        """A loop's search stage (unless done) and fetching. In this process the stream
        fetches what the queries found while the next ones are sent; on an executor the
        batches come after the search stage. Returns why the run must stop, if it must."""
        listings = Listings(
            self.store, self.config, self.fetcher.robots, self.settler.keep_exchanges
        )
        parts = (
            self.store.frontier,
            self.workers,
            self.settler,
            listings,
            self.events,
            self.deadline,
        )
        if self.workers.local:
            with Stream(*parts, report, self.limits.max_pages) as stream:
                stopped = None if searched else self._search(report, stream)
                return self._fetch_stage(report, stream, stopped)
        stopped = None if searched else self._search(report, None)
        if stopped is not None:
            return stopped
        return self._fetch_stage(report, BatchFetch(*parts, report, self.limits.max_pages), None)

    def _fetch_stage(
        self, report: LoopReport, scheduler: _Scheduler, stopped: str | None
    ) -> str | None:
        """Fetch until the frontier is empty or a limit is hit (when the search stage
        stopped the run, only settle what is in flight); then count what was held back."""
        if stopped is None:
            stopped = self._fetch_until_empty(report, scheduler)
        else:
            scheduler.finish()
        held = self._held_back(report, *scheduler.held_back())
        return stopped or held

    def _fetch_until_empty(self, report: LoopReport, scheduler: _Scheduler) -> str | None:
        """The scheduler's run until the frontier is empty; then the short pages' vote
        again and the relatives pass, whose pages' links may join the frontier: the
        scheduler goes on while they bring pages. Returns why the run must stop, or None."""
        while True:
            stopped = scheduler.run()
            if stopped is not None:
                return stopped
            if not (self.passes.revote_short(report) or self._learn_relatives(report)):
                return None
            scheduler.frontier_changed = True  # their links may have joined the frontier

    def _search(self, report: LoopReport, stream: Stream | None) -> str | None:
        """The loop's search stage (search.SearchStage), each query's results queued and
        (with `stream`) handed to the fetching before the next query is sent. Returns
        why the run must stop, if it must: "interrupted" on Ctrl-C, the time limit (the
        loop's search resumes from the cache next time)."""
        stage = SearchStage(
            self.ws, self.backend, self.config, self.budget, self.workers.model, report, self.events
        )
        if stream is None:
            self.events.stage(report.number, "search", len(stage))
        for step in stage:
            new = self.store.frontier.enqueue(step.entries)
            report.search_urls += new
            if self.events.should_stop():
                return "interrupted"
            if stream is None:
                self.events.advance()
            elif self.deadline.passed():
                return self.deadline.describe()
            else:
                stream.take_query_results(step.done, step.planned, new)
                if self._relatives_due(report):
                    self._judge_results_again(stage)
        return None

    def _judge_results_again(self, stage: SearchStage) -> None:
        """The search's results judged again with the relatives' contrast learnt from the
        text found so far (relatives.search_contrast), when there is one."""
        config = self.config
        model = search_contrast(
            self.ws, self.store, stage.coverage.model, config.rules, config.langid_hide
        )
        if model is not None:
            stage.coverage.judge_again(model)
            self.events.line(
                f"loop {stage.report.number}: the search's results judged again against "
                f"the relatives' text found so far: {stage.coverage.estimate().observed} "
                f"target sites"
            )

    def _relatives_due(self, report: LoopReport) -> bool:
        """Is the relatives' contrast due during the search (search.contrast_pages)? Only
        while pages are fetched as the queries are sent (the stream)."""
        suspected = report.reasons[RELATIVE_SUSPECTED]
        least = self.config.search.contrast_pages
        if not least or len(self.search_passes) >= SEARCH_PASSES or suspected < least:
            return False
        if self.search_passes and suspected < 2 * self.search_passes[-1]:
            return False
        self.search_passes.append(suspected)
        return True

    # -- when the frontier is empty: the passes (passes.py) ----------------------------

    def _learn_relatives(self, report: LoopReport) -> int:
        """The relatives pass (passes.py) when the frontier is empty; the workers get
        the model it learnt. Returns how many pages it restored."""
        restored = self.passes.learn_relatives(report)
        if self.passes.model is not self.workers.model:
            self.workers.share(self.passes.model)
        return restored

    def _load_robots(self) -> None:
        """What the fetcher knows from earlier runs: robots.txt records, and the URLs
        already answered (a redirect to one of them is not followed again)."""
        robots = self.fetcher.robots
        if isinstance(robots, MemoryRobotsStore):
            robots.load(self.store.robots.robots_records())
        self.fetcher.answered.update(canonical_url(u) for u in self.store.frontier.answered_urls())

    def _held_back(self, report: LoopReport, pages: int, origins: dict[str, str]) -> str | None:
        """Count in the loop's report the pages held back because their robots.txt could
        not be fetched (they stay queued: a later loop or run asks again). When
        OFFLINE_HOSTS or more hosts failed and the run recorded no page at all, either
        the network is down or only those hosts are broken: a host that answered before
        is asked (`_network_up`). If it answers, the hosts are given up on and the loop
        goes on to its end; if not, the loop is left open, and this says why the run stops."""
        report.held = pages
        report.unreachable = Counter(origins.values())
        report.held_hosts = dict(origins)
        recorded = sum(sum(loop.pages.values()) for loop in self.report.loops)
        if not pages or recorded or len(origins) < OFFLINE_HOSTS or self._network_up(origins):
            return None
        causes = ", ".join(f"{c} {n}" for c, n in report.unreachable.most_common())
        return (
            f"{OFFLINE_STOP} {len(origins)} host(s) met "
            f"({causes}), nor from a host that answered before: is the network, or "
            "HTTP_PROXY, down? Their pages stay queued"
        )

    def _network_up(self, failing: dict[str, str]) -> bool:
        """Does one of the NETWORK_PROBES hosts whose robots.txt answered last (in this
        run or an earlier one), other than the `failing` ones, answer now?"""
        known = sorted(self.store.robots.robots_records(), key=lambda r: r.fetched_at, reverse=True)
        probes = [r.origin for r in known if r.origin not in failing][:NETWORK_PROBES]
        for origin in probes:
            if self.fetcher.reaches(origin):
                log.info("%s answers: the network is up, only some hosts are not", origin)
                return True
        return False
