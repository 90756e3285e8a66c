"""The mining loop: where the stages meet the workspace (docs/design.md, "What a run does").

`run` brings a workspace to N completed loops: seed list -> queries -> search (cached,
search.py) -> frontier -> fetch (stream.py in this process, batches.py on an executor's
workers) -> process -> paragraph language ID -> target documents, wrong-language text
or drops -> near-duplicates -> crawl-out (spider.py). Each batch is recorded in one
transaction (settle.py, collie/store/), so a run can be killed at any moment and
resumed. The stages themselves (fetch, process, langid, crawl, dedup) take and return
plain data and never touch the database.

The loop drives the search stage and the fetching: it asks the search stage for one
query's outcome at a time, queues its results and hands them to the local stream
before asking for the next (fetching goes on while queries are sent); it stops the
search stage by asking for no more.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass, field
from typing import Protocol

from collie.crawl.links import crawl_url, site_of
from collie.decide.classify import PageRules
from collie.fetch.fetcher import Fetcher
from collie.fetch.robots import MemoryRobotsStore
from collie.langid.model import LangModel
from collie.mining.archive import migrate_body_cache, open_archive
from collie.mining.batches import BatchFetch
from collie.mining.coverage import SearchCoverage
from collie.mining.executor import Executor, LocalExecutor
from collie.mining.miner import Miner
from collie.mining.records import LoopReport, RunEvents, RunLimits, RunReport
from collie.mining.relatives import learn_relatives, pages_to_restore
from collie.mining.search import (
    BudgetExhausted,
    QueryOutcome,
    SearchBudget,
    SearchReport,
    loop_queries,
    page_size,
    search_one,
    send_queries,
)
from collie.mining.settle import record_batch, save_robots
from collie.mining.spider import decide_short_pages
from collie.mining.stream import Stream
from collie.mining.teasers import mark_teasers
from collie.models import QueueEntry
from collie.reasons import TOO_SHORT, kind_of
from collie.search import Backend, SearchFatal
from collie.store import Store
from collie.urls import canonical_url
from collie.workspace.folder import Workspace

log = logging.getLogger("collie.pipeline")

SEARCH_PRIORITY = 2.0  # a loop's search results come before crawled links (scores ~0-1.4)
MAX_PASSES = 3  # relatives passes per loop
# Hosts whose robots.txt must fail, with no page recorded in the run, before the network
# (not the hosts) is taken to be down: a loop that meets only a dead host or two is not.
OFFLINE_HOSTS = 3


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
    limits: RunLimits,
    events: RunEvents | None = None,
    executor: Executor | None = None,
) -> RunReport:
    """Bring the workspace to `limits.loops` completed loops (docs/design.md, "What a run does").
    Pages are fetched and examined by `executor` (in this process by default, with
    `fetcher`; on Dask workers, each with its own); only this process writes."""
    events = events or RunEvents()
    executor = executor or LocalExecutor()
    store = Store(ws, ws.settings["dedup.max_distance"])
    rules = PageRules.from_settings(ws.language.code, ws.settings, model)
    miner = Miner(ws, store, backend, fetcher, model, limits, events, executor, rules)
    miner.budget = SearchBudget.from_settings(ws.settings)
    report = RunReport(loops=miner.loops)
    if ws.completed_loops() >= limits.loops:
        report.already_done = True
        return report
    ws.queries.mark_pending_lost()
    miner.share_model(model)
    _load_robots(miner)
    if ws.settings["warc.keep"] != "none":
        miner.archive = open_archive(ws, store)
        migrate_body_cache(ws, store, miner.archive)  # a workspace from before WARC files
    try:
        while ws.completed_loops() < limits.loops and report.stopped is None:
            loop = store.open_loop()
            loop_report = LoopReport(loop.number)
            miner.relatives_passes, miner.new_sites = 0, None
            report.loops.append(loop_report)
            written = miner.archive.written if miner.archive is not None else 0
            try:
                report.stopped = _mine_loop(miner, loop.searched, loop_report)
            finally:
                if miner.archive is not None and miner.archive.written > written:
                    store.add_warc_bytes(loop.number, miner.archive.written - written)
            _mark_teasers(miner)
            events.line(loop_report.line())
            if loop_report.pages and not loop_report.pages["kept"]:
                events.line(loop_report.nothing_found_line(miner.target))
            if report.stopped is None:
                store.finish_loop(loop.number)
    finally:
        save_robots(miner)
        if miner.archive is not None:
            miner.archive.close()
    return report


def _mark_teasers(miner: Miner) -> None:
    """The teaser pass (teasers.py) at the end of a loop, or of a run that stops: one
    transaction; the near-duplicate lookups are built again when pages moved."""
    settings = miner.ws.settings
    with miner.store.batch():
        done = mark_teasers(
            miner.store, settings["extract.teasers"], settings["crawl.short_page_chars"]
        )
    if done.changed:
        miner.originals = None  # pages left the corpus, or came back


def _mine_loop(miner: Miner, searched: bool, report: LoopReport) -> str | None:
    """A loop's search stage (unless done) and fetching. In this process the stream
    fetches what the queries found while the next ones are sent; on an executor the
    batches come after the search stage. Returns why the run must stop, if it must."""
    if miner.local:
        with Stream(miner, report) as stream:
            stopped = None if searched else _search_stage(miner, report, stream)
            return _fetch_stage(miner, report, stream, stopped)
    stopped = None if searched else _search_stage(miner, report, None)
    if stopped is not None:
        return stopped
    return _fetch_stage(miner, report, BatchFetch(miner, report), None)


def _fetch_stage(
    miner: Miner, report: LoopReport, scheduler: _Scheduler, stopped: str | None
) -> str | None:
    """Fetch until the frontier is empty or a limit is hit (when the search stage
    stopped the run, only settle what is in flight); then count what was held back."""
    if stopped is None:
        stopped = _fetch_until_empty(miner, report, scheduler)
    else:
        scheduler.finish()
    held = _held_back(miner, report, *scheduler.held_back())
    return stopped or held


def _fetch_until_empty(miner: Miner, report: LoopReport, scheduler: _Scheduler) -> str | None:
    """The scheduler's run until the frontier is empty; then the short pages' vote again
    and the relatives pass, whose pages' links may join the frontier: the scheduler goes
    on while they bring pages. Returns why the run must stop, or None."""
    while True:
        stopped = scheduler.run()
        if stopped is not None:
            return stopped
        if not (_revote_short(miner, report) or _learn_relatives(miner, report)):
            return None
        scheduler.frontier_changed = True  # their links may have joined the frontier


# -- the search stage -------------------------------------------------------------------


@dataclass
class _Fruitless:
    """Queries sent in a row that brought no URL new to the search (search.max_fruitless)."""

    enough: int  # 0: no limit
    count: int = 0
    seen: set[str] = field(default_factory=set)  # this loop's result URLs so far


def _search_stage(miner: Miner, report: LoopReport, stream: Stream | None) -> str | None:
    """Send the loop's queries and queue their results as they come (with `stream`, each
    query's results are handed to it before the next query is sent, so fetching goes on
    meanwhile), until they are all sent or a rule stops the stage: the coverage estimate
    saturated (search.saturation), no new URL (search.max_fruitless), a budget.
    "interrupted" on Ctrl-C (the loop's search resumes from the cache next time)."""
    ws, settings, loop = miner.ws, miner.ws.settings, report.number
    planned = loop_queries(ws, miner.backend, loop)
    if stream is None:
        miner.events.stage(loop, "search", len(planned))
    searched = SearchReport()
    fruitless = _Fruitless(settings["search.max_fruitless"])
    coverage = SearchCoverage(ws, miner.model, loop)
    per_page, _ = page_size(settings, miner.backend)
    for outcome in send_queries(
        ws,
        miner.backend,
        planned,
        per_page,
        settings["search.max_failures"],
        searched,
        miner.budget,
        loop,
        settings["search.max_empty"],
    ):
        new = _queue_results(miner, outcome, report, fruitless)
        coverage.take(outcome)
        new += _next_pages(miner, report, fruitless, coverage, outcome, searched)
        stopped = _between_queries(miner, report, stream, new, len(planned))
        if stopped is not None:
            return stopped
        unspent = len(planned) - sum(report.queries.values())
        if fruitless.enough and fruitless.count >= fruitless.enough and not coverage.decides():
            report.search_stopped = (
                f"the last {fruitless.enough} queries sent brought no new URL; the loop's "
                f"other {unspent} queries are not spent (search.max_fruitless)"
            )
            break
        if coverage.saturated():
            report.search_stopped = coverage.stop_line(miner.backend.name, unspent)
            break
    else:
        report.search_stopped = searched.stopped
    report.coverage = coverage.estimate()
    miner.store.mark_searched(loop, report.search_stopped)
    statuses = ", ".join(f"{n} {status}" for status, n in sorted(report.queries.items()))
    miner.events.line(
        f"loop {loop}: {sum(report.queries.values())} queries ({statuses}; "
        f"{report.requests} search requests), {report.search_urls} new URLs"
        + (f"; {report.search_stopped}" if report.search_stopped else "")
    )
    if "search.saturation" not in (report.search_stopped or ""):
        miner.events.line(f"loop {loop}: {report.coverage.sentence(miner.backend.name)}")
    return None


def _next_pages(
    miner: Miner,
    report: LoopReport,
    fruitless: _Fruitless,
    coverage: SearchCoverage,
    first: QueryOutcome,
    searched: SearchReport,
) -> int:
    """A query's next pages, up to search.results: each while the page before brought a
    target-language result new to the search (search.next_page = new-target; a page
    whose results are all known or in other languages does not deserve another) or
    always; each a request of its own, counted against the budgets and paced by the
    rate limit. Returns how many URLs they added to the frontier."""
    settings, backend = miner.ws.settings, miner.backend
    per_page, pages = page_size(settings, backend)
    always = settings["search.next_page"] == "always"
    added, outcome, offset = 0, first, per_page
    while offset < per_page * pages and len(outcome.results) >= per_page:
        if not (always or coverage.new_urls):
            break
        try:
            outcome = search_one(miner.ws, backend, first.query, per_page, offset,
                                 miner.budget, report.number, first.words)  # fmt: skip
        except (SearchFatal, BudgetExhausted) as exc:
            searched.stopped = str(exc)
            break
        added += _queue_results(miner, outcome, report, fruitless, page=2)
        coverage.take(outcome, page=2)
        offset += per_page
    return added


def _queue_results(
    miner: Miner, outcome: QueryOutcome, report: LoopReport, fruitless: _Fruitless, page: int = 1
) -> int:
    """A query's results (its `page`-th page) into the frontier and the loop's counts.
    Returns how many URLs were new to the frontier."""
    loop = report.number
    if page == 1:
        report.queries[outcome.status] += 1
    report.requests += outcome.status in ("sent", "failed")
    entries = _search_entries(outcome, loop)
    new = miner.store.enqueue(entries)
    report.search_urls += new
    # New to the search: neither an earlier query's result in this loop nor a page
    # of an earlier loop (not what fetching meanwhile queued: the count, and so the
    # queries a loop sends, must not depend on fetch timing).
    urls = [e.url for e in entries if e.url not in fruitless.seen]
    fruitless.seen.update(urls)
    if outcome.status == "sent":
        fresh = len(urls) - len(miner.store.known_before(urls, loop))
        if page == 1 or fresh:
            fruitless.count = 0 if fresh else fruitless.count + 1
    return new


def _between_queries(
    miner: Miner, report: LoopReport, stream: Stream | None, new: int, planned: int
) -> str | None:
    """After a query: why the search stage must stop, if it must; else the stream (if
    any) gets the query's results and fetches on."""
    if miner.events.should_stop():
        return "interrupted"
    if stream is None:
        miner.events.advance()
    elif miner.out_of_time():
        return miner.describe_time_limit()
    else:
        stream.take_query_results(sum(report.queries.values()), planned, new)
    return None


def _search_entries(outcome: QueryOutcome, loop: int) -> list[QueueEntry]:
    """A query's results as frontier entries."""
    entries = []
    for hit in outcome.results:
        url = crawl_url(hit.url)
        if url is not None:
            entries.append(
                QueueEntry(
                    url, site_of(url), loop, "search", 0, SEARCH_PRIORITY, query_id=outcome.query_id
                )
            )
    return entries


# -- when the frontier is empty ---------------------------------------------------------


def _revote_short(miner: Miner, report: LoopReport) -> int:
    """The loop's short pages that the vote decides now (spider.decide_short_pages),
    recorded, and crawled out, like any page. Returns how many."""
    decided = decide_short_pages(miner, report.number)
    if not decided:
        return 0
    by_id = {e.queued.id: e.queued for e in decided}
    outcomes = [e.outcome for e in decided]
    record_batch(miner, outcomes, by_id, report.number)
    for outcome in outcomes:
        if report.reasons[TOO_SHORT] > 0:  # counted by this run (not before a resume)
            report.pages.subtract(["dropped"])
            report.reasons.subtract([TOO_SHORT])
        report.pages[outcome.status] += 1
        if outcome.reason and outcome.status != "kept":
            report.reasons[kind_of(outcome.reason)] += 1
    report.pages, report.reasons = +report.pages, +report.reasons  # no zero counts
    return len(outcomes)


def _learn_relatives(miner: Miner, report: LoopReport) -> int:
    """The relatives pass (relatives.py) when the frontier is empty; the workers get
    its model. With a new model, the pages suspected on their own are examined again
    from cache/: those on target sites that now pass are recorded (and crawled out)
    like any page. Returns how many were."""
    if miner.relatives_passes >= MAX_PASSES:
        return 0
    miner.relatives_passes += 1
    model, done = learn_relatives(miner.ws, miner.store, miner.model, miner.rules)
    line = done.line(report.number, miner.target)
    if line:
        miner.events.line(line)
    if model is miner.model:
        return 0  # nothing learnt, nothing judged again
    miner.originals = None  # documents may have left the corpus
    miner.share_model(model)
    restored = pages_to_restore(miner.store, model, miner.rules)
    if not restored:
        return 0
    freed = set(miner.store.forget_suspects([e.queued.id for e in restored]))
    by_id = {e.queued.id: e.queued for e in restored if e.queued.id in freed}
    outcomes = [e.outcome for e in restored if e.queued.id in freed]
    if not outcomes:
        return 0
    record_batch(miner, outcomes, by_id, report.number)
    for outcome in outcomes:
        report.pages[outcome.status] += 1
    miner.events.line(
        f"loop {report.number}: pages suspected on their own but found to be "
        f"{miner.target} after all (their sites are): {len(outcomes)}"
    )
    return len(outcomes)


def _load_robots(miner: Miner) -> None:
    """What the fetcher knows from earlier runs: robots.txt records, and the URLs already
    answered (a redirect to one of them is not followed again)."""
    robots = miner.fetcher.robots
    if isinstance(robots, MemoryRobotsStore):
        robots.load(miner.store.robots_records())
    miner.fetcher.answered.update(canonical_url(u) for u in miner.store.answered_urls())


def _held_back(miner: Miner, report: LoopReport, pages: int, origins: dict[str, str]) -> str | None:
    """Count in the loop's report the pages held back because their robots.txt could not
    be fetched (they stay queued: a later loop or run asks again). When OFFLINE_HOSTS or
    more hosts failed and the run recorded no page at all, the network looks down: the
    loop is left open, and this says why the run stops."""
    report.held = pages
    report.unreachable = Counter(origins.values())
    recorded = sum(sum(loop.pages.values()) for loop in miner.loops)
    if not pages or recorded or len(origins) < OFFLINE_HOSTS:
        return None
    causes = ", ".join(f"{c} {n}" for c, n in report.unreachable.most_common())
    return (
        f"robots.txt could not be fetched from any of the {len(origins)} host(s) met "
        f"({causes}): is the network, or HTTP_PROXY, down? Their pages stay queued"
    )
