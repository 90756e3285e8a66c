"""The mining loop: where the stages meet the workspace (docs/design.md, "What a run does").

`run` brings a workspace to N completed loops: seed list -> queries -> search (cached,
searching.py) -> frontier -> fetch in batches -> process -> paragraph language ID ->
target documents, wrong-language text or drops -> near-duplicates -> crawl-out. Each
batch is recorded in one transaction (collie/store/), so a run can be killed at any moment
and resumed. The stages themselves (fetch, process, langid, crawl, dedup) take and
return plain data and never touch the database.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass, field

from collie.corpus.report import LoopReport
from collie.crawl.links import (
    LinkEvidence,
    Needles,
    crawl_url,
    follows_link,
    language_needles,
    link_priority,
    short_page_vote,
    site_of,
    site_stop_reason,
)
from collie.crawl.listings import LISTING_TYPES, MAX_PER_SITE, candidates, is_listing, parse
from collie.decide.classify import (
    PageRules,
    decide_short,
)
from collie.decide.dedup import Deduplicator, fingerprints, mark_duplicate, stored_sketch
from collie.fetch.fetcher import Fetcher, origin_of
from collie.fetch.pool import FetchPool, HeldBack
from collie.fetch.robots import MemoryRobotsStore
from collie.langid.model import LangModel
from collie.mining.examine import (
    SiteBatch,
    SiteResult,
    WorkerContext,
    examine,
    examine_cached,
    fetch_and_examine,
    host_in_sites,
    origins_and_hosts,
    split_by_site,
)
from collie.mining.executor import Executor, LocalExecutor
from collie.mining.relatives import (
    judge_with_sites,
    learn_relatives,
    pages_to_restore,
    suspect_sites,
)
from collie.mining.search import QueryOutcome, SearchBudget, loop_queries, search_queries
from collie.models import (
    Examined,
    FetchResult,
    PageOutcome,
    ParagraphSketch,
    QueuedPage,
    QueueEntry,
)
from collie.reasons import ROBOTS_UNREACHABLE, TOO_SHORT, kind_of
from collie.search import Backend
from collie.search.queries import query_domains
from collie.store import Store
from collie.store.rewrite import short_pages
from collie.urls import canonical_url
from collie.workspace.folder import Workspace

log = logging.getLogger("collie.pipeline")


# -- the mining loop ------------------------------------------------------------------------


SEARCH_PRIORITY = 2.0  # a loop's search results come before crawled links (scores ~0-1.4)
PER_SITE = 2  # pages of one site waiting in the fetch pool (one in flight, one next)
LISTING_PRIORITY = 1.0  # pages a sitemap or feed lists: between search results and links
MAX_LISTINGS = MAX_PER_SITE
TAKE_WAIT = 0.2  # seconds the stream waits for a result before looking at the frontier
TOP_UP_EVERY = 0.2  # seconds between two reads of the frontier, at least
DRY = 16  # fewer pages than this in the pool: the frontier is read at once
SHOW_EVERY = 1.0  # seconds between two progress updates


@dataclass
class RunLimits:
    """Per-run options of `collie run` (flags over settings)."""

    loops: int
    crawl_depth: int
    max_pages: int = 0  # pages fetched per loop; 0 = no limit
    max_time: float = 0.0  # seconds per run; 0 = no limit


@dataclass
class RunReport:
    loops: list[LoopReport] = field(default_factory=list)
    stopped: str | None = None  # a budget or time limit ended the run early
    already_done: bool = False

    @property
    def offline(self) -> bool:
        """The run stopped because no site answered: its last loop recorded no page and
        held pages back for an unreachable robots.txt (`_held_back`)."""
        last = self.loops[-1] if self.loops else None
        return bool(self.stopped and last and last.held and not sum(last.pages.values()))


class RunEvents:
    """What a run tells its caller (progress bars, count lines); all optional."""

    def stage(self, loop: int, name: str, total: int | None) -> None: ...

    def advance(self, count: int = 1) -> None: ...

    def line(self, text: str) -> None: ...

    def status(self, text: str) -> None:
        """What the stage in progress holds now (hosts in flight, the queue...)."""
        return None

    def should_stop(self) -> bool:
        return False


@dataclass
class _Miner:
    """One run's wiring: the workspace, its stages and their settings."""

    ws: Workspace
    store: Store
    backend: Backend
    fetcher: Fetcher
    model: LangModel
    limits: RunLimits
    events: RunEvents
    executor: Executor
    rules: PageRules
    shared: object = None  # the executor's handle on the WorkerContext
    not_before: dict[str, float] = field(default_factory=dict)  # host -> wall-clock time
    started: float = field(default_factory=time.monotonic)
    relatives_passes: int = 0  # in this loop (the frontier may empty more than once)
    budget: SearchBudget = field(default_factory=SearchBudget)  # the run's queries
    originals: Deduplicator | None = None  # the near-duplicate lookups (_originals)
    new_sites: set[str] | None = None  # sites this loop entered through a link (_cross_site)
    loops: list[LoopReport] = field(default_factory=list)  # this run's, as in RunReport

    @property
    def target(self) -> str:
        return self.ws.language.code

    def out_of_time(self) -> bool:
        limit = self.limits.max_time
        return bool(limit) and time.monotonic() - self.started >= limit


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
    miner = _Miner(ws, store, backend, fetcher, model, limits, events, executor, rules)
    miner.budget = SearchBudget.from_settings(ws.settings)
    report = RunReport(loops=miner.loops)
    if ws.completed_loops() >= limits.loops:
        report.already_done = True
        return report
    ws.queries.mark_pending_lost()
    local = executor.name == "local"
    miner.shared = executor.share(WorkerContext(model, fetcher if local else None))
    _load_robots(miner)
    try:
        while ws.completed_loops() < limits.loops and report.stopped is None:
            loop = store.open_loop()
            loop_report = LoopReport(loop.number)
            miner.relatives_passes, miner.new_sites = 0, None
            report.loops.append(loop_report)
            if local:
                report.stopped = _stream_loop(miner, loop.searched, loop_report)
            else:
                if not loop.searched:
                    report.stopped = _search_stage(miner, loop.number, loop_report)
                if report.stopped is None:
                    report.stopped = _fetch_stage(miner, loop_report)
            events.line(loop_report.line())
            if loop_report.pages and not loop_report.pages["kept"]:
                events.line(loop_report.nothing_found_line(miner.target))
            if report.stopped is None:
                store.finish_loop(loop.number)
    finally:
        _save_robots(miner)
    return report


MAX_PASSES = 3  # relatives passes per loop


def _learn_relatives(miner: _Miner, report: LoopReport) -> int:
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
    miner.model = model
    local = miner.executor.name == "local"
    miner.shared = miner.executor.share(WorkerContext(model, miner.fetcher if local else None))
    restored = pages_to_restore(miner.store, model, miner.rules)
    if not restored:
        return 0
    freed = set(miner.store.forget_suspects([e.queued.id for e in restored]))
    by_id = {e.queued.id: e.queued for e in restored if e.queued.id in freed}
    outcomes = [e.outcome for e in restored if e.queued.id in freed]
    if not outcomes:
        return 0
    _record(miner, outcomes, by_id, report.number)
    for outcome in outcomes:
        report.pages[outcome.status] += 1
    miner.events.line(
        f"loop {report.number}: pages suspected on their own but found to be "
        f"{miner.target} after all (their sites are): {len(outcomes)}"
    )
    return len(outcomes)


def _load_robots(miner: _Miner) -> None:
    """What the fetcher knows from earlier runs: robots.txt records, and the URLs already
    answered (a redirect to one of them is not followed again)."""
    robots = miner.fetcher.robots
    if isinstance(robots, MemoryRobotsStore):
        robots.load(miner.store.robots_records())
    miner.fetcher.answered.update(canonical_url(u) for u in miner.store.answered_urls())


def _save_robots(miner: _Miner) -> None:
    """Keep the robots.txt records fetched since the last save in the workspace."""
    robots = miner.fetcher.robots
    if isinstance(robots, MemoryRobotsStore):
        miner.store.save_robots(robots.take_new())


class _StopRequested(Exception):
    """Ctrl-C (or the time limit) during the search stage: stop after the query in hand."""


def _time_limit(miner: _Miner) -> str:
    return f"the run's time limit ({miner.limits.max_time:g} s) was reached"


class _SearchedEnough(Exception):
    """The last queries brought no new URL: the search stage stops (search.max_fruitless)."""


def _search_stage(
    miner: _Miner, loop: int, report: LoopReport, stream: _Stream | None = None
) -> str | None:
    """Send the loop's queries and queue their results as they come (with `stream`, its
    fetching goes on meanwhile); "interrupted" on Ctrl-C (the loop's search resumes from
    the cache next time)."""
    ws, settings = miner.ws, miner.ws.settings
    planned = loop_queries(ws, miner.backend, loop)
    if stream is None:
        miner.events.stage(loop, "search", len(planned))
    budget = miner.budget
    fruitless, enough = 0, settings["search.max_fruitless"]
    seen: set[str] = set()  # this loop's result URLs so far

    def counted(outcome: QueryOutcome) -> None:
        nonlocal fruitless
        report.queries[outcome.status] += 1
        entries = _search_entries(outcome, loop)
        new = miner.store.enqueue(entries)
        report.search_urls += new
        # New to the search: neither an earlier query's result in this loop nor a page
        # of an earlier loop (not what fetching meanwhile queued: the count, and so the
        # queries a loop sends, must not depend on fetch timing).
        urls = [e.url for e in entries if e.url not in seen]
        seen.update(urls)
        if outcome.status == "sent":
            fresh = len(urls) - len(miner.store.known_before(urls, loop))
            fruitless = 0 if fresh else fruitless + 1
        if miner.events.should_stop():
            raise _StopRequested("interrupted")
        if stream is None:
            miner.events.advance()
        elif miner.out_of_time():
            raise _StopRequested(_time_limit(miner))
        else:
            stream.queries = (sum(report.queries.values()), len(planned))
            stream.frontier_changed |= bool(new)
            stream.service(0.0)
        if enough and fruitless >= enough:
            raise _SearchedEnough

    try:
        result = search_queries(
            ws,
            miner.backend,
            planned,
            settings["search.results"],
            settings["search.max_failures"],
            budget,
            loop,
            counted,
            settings["search.max_empty"],
        )
        report.search_stopped = result.stopped
    except _StopRequested as stop:
        return str(stop)
    except _SearchedEnough:
        report.search_stopped = (
            f"the last {enough} queries sent brought no new URL; the loop's other "
            f"{len(planned) - sum(report.queries.values())} queries are not spent "
            "(search.max_fruitless)"
        )
    miner.store.mark_searched(loop)
    statuses = ", ".join(f"{n} {status}" for status, n in sorted(report.queries.items()))
    miner.events.line(
        f"loop {loop}: {sum(report.queries.values())} queries ({statuses}), "
        f"{report.search_urls} new URLs"
        + (f"; {report.search_stopped}" if report.search_stopped else "")
    )
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


def _stream_loop(miner: _Miner, searched: bool, report: LoopReport) -> str | None:
    """A loop in this process: the search stage (unless done) while the pool fetches
    what it found, then the fetching until the frontier is empty or a limit is hit."""
    with _Stream(miner, report) as stream:
        if not searched:
            stopped = _search_stage(miner, report.number, report, stream)
            if stopped is not None:
                stream.finish()
                _held_back(miner, report, len(stream.held), stream.held.origins())
                return stopped
        stopped = stream.run()
        held = _held_back(miner, report, len(stream.held), stream.held.origins())
        return stopped or held


# Hosts whose robots.txt must fail, with no page recorded in the run, before the network
# (not the hosts) is taken to be down: a loop that meets only a dead host or two is not.
OFFLINE_HOSTS = 3


def _held_back(
    miner: _Miner, report: LoopReport, pages: int, origins: dict[str, str]
) -> str | None:
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


class _Stream:
    """The fetch stage on the continuous scheduler (fetchpool.py): the frontier's most
    promising pages of every site are handed to the pool a few per site, results are
    examined and recorded as they come, a small transaction each time (kill -9 loses
    only what is in flight: those pages are still queued)."""

    def __init__(self, miner: _Miner, report: LoopReport) -> None:
        settings = miner.ws.settings
        self.miner, self.report = miner, report
        workers = settings["fetch.workers"]
        self.pool = FetchPool(miner.fetcher, workers, max_results=max(64, 2 * workers))
        self.max_sites = max(1024, 16 * workers)  # sites with pages in the pool
        self.claimed: dict[int, QueuedPage] = {}
        self.per_site: Counter[str] = Counter()
        self.started = 0  # pages handed to the pool in this stage
        self.queries: tuple[int, int] | None = None  # (done, planned) while searching
        self.targets = 0
        self.frontier_changed = True
        self.next_top_up = 0.0  # monotonic time before which the frontier is not read again
        self.listed = miner.store.listed_sites()  # sites whose sitemaps and feeds were read
        self.asked = miner.store.listing_urls()  # the sitemaps and feeds read
        self.listings: Counter[str] = Counter()  # per site, listings handed to the pool
        self.listings_out = 0  # listings in the pool
        self.held = HeldBack(miner.fetcher)  # pages whose robots.txt could not be fetched
        if settings["crawl.sitemaps"]:
            for site, url in miner.store.sites_to_list():  # asked for, never read
                self._ask_sitemaps(site, url)
        self._shown = 0.0
        miner.events.stage(report.number, "fetch", None)

    def __enter__(self) -> _Stream:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *exc: object) -> None:
        # On an exception (a second Ctrl-C) nothing more will be recorded: do not wait
        # for the requests in flight (their pages stay queued for the next run).
        self.pool.close(wait=exc_type is None)

    def run(self) -> str | None:
        """Fetch until the frontier is empty (None) or the run must stop (why)."""
        miner = self.miner
        while True:
            if miner.events.should_stop():
                self.finish()
                return "interrupted"
            if miner.out_of_time():
                self.finish()
                return _time_limit(miner)
            self.service(TAKE_WAIT)
            if self.claimed or self.listings_out:
                continue
            self.top_up()
            if self.claimed:
                continue
            if _revote_short(miner, self.report) or _learn_relatives(miner, self.report):
                self.frontier_changed = True  # their links may have joined the frontier
                continue
            return None

    def finish(self) -> None:
        """Start nothing new; record what the requests in flight bring."""
        self.pool.close()
        self._record(self.pool.take())

    def top_up(self) -> None:
        """Hand the pool the best queued pages of sites with room (PER_SITE each). The
        frontier query costs more as the frontier grows (0.4 s at 200,000 queued pages),
        so it runs at most every TOP_UP_EVERY seconds, or 5 times its last duration,
        unless the pool is running dry."""
        if not self.frontier_changed:
            return
        dry = len(self.claimed) < DRY
        if not dry and time.monotonic() < self.next_top_up:
            return
        self.frontier_changed = False
        began = time.monotonic()
        self._top_up()
        took = time.monotonic() - began
        self.next_top_up = time.monotonic() + max(TOP_UP_EVERY, 5 * took)

    def _top_up(self) -> None:
        max_pages = self.miner.limits.max_pages
        room = max_pages - self.started if max_pages else self.max_sites * PER_SITE
        if room <= 0:
            return
        wanted = min(room, self.max_sites * PER_SITE)
        limit = wanted + len(self.claimed) + len(self.held)
        for page in self.miner.store.next_per_site(PER_SITE, limit):
            if page.id in self.claimed or self.per_site[page.site] >= PER_SITE:
                continue
            if self.held.waiting(page.id):
                continue
            if room <= 0:
                break
            self.claimed[page.id] = page
            self.per_site[page.site] += 1
            self.pool.add(page.id, page.url)
            self.started += 1
            room -= 1

    def service(self, wait: float) -> None:
        """Keep the pool fed; examine and record the results that are in."""
        self.top_up()
        self._record(self.pool.take(wait))
        self._show()

    def _record(self, taken: list[tuple[Hashable, FetchResult]]) -> None:
        lists = [(key, result) for key, result in taken if isinstance(key, tuple)]
        taken = [(key, result) for key, result in taken if not isinstance(key, tuple)]
        for key, result in lists:
            self._read_listing(str(key[1]), result)
        taken = self._hold(taken)
        if not taken:
            return
        miner, report = self.miner, self.report
        pages = [self.claimed.pop(int(key)) for key, _ in taken]  # type: ignore[call-overload]
        for page in pages:
            self.per_site[page.site] -= 1
        examined = [
            examine(page, result, miner.model, miner.rules)
            for page, (_, result) in zip(pages, taken, strict=True)
        ]
        outcomes = [_finish(miner, e) for e in examined]
        _judge_with_sites(miner, outcomes)
        _record(miner, outcomes, {page.id: page for page in pages}, report.number)
        _suspect_relative_sites(miner, {o.site for o in outcomes if o.near_letters})
        _stop_poor_sites(miner, {o.site for o in outcomes})
        _save_robots(miner)
        _count(report, outcomes)
        self.targets += sum(o.status == "kept" for o in outcomes)
        self.frontier_changed = True
        miner.events.advance(len(outcomes))
        if miner.ws.settings["crawl.sitemaps"]:
            for page, outcome in zip(pages, outcomes, strict=True):
                if outcome.status == "kept":
                    self._ask_listings(page, outcome)

    def _hold(
        self, taken: list[tuple[Hashable, FetchResult]]
    ) -> list[tuple[Hashable, FetchResult]]:
        """Pages whose robots.txt could not be fetched are not recorded: they stay queued,
        held back until their origin's retry time (HeldBack). Returns the others."""
        others = []
        for key, result in taken:
            if not HeldBack.applies(result):
                others.append((key, result))
                continue
            page = self.claimed.pop(int(key))  # type: ignore[call-overload]
            self.per_site[page.site] -= 1
            self.held.hold(page.id, result)
            self.frontier_changed = True
        return others

    def _ask_listings(self, page: QueuedPage, outcome: PageOutcome) -> None:
        """Read what a site lists (collie.listings): on its first target document, its
        robots.txt sitemaps (else /sitemap.xml); on every target document, the feeds it
        links to that were not read yet; at most MAX_LISTINGS a site."""
        if page.site not in self.listed:
            self._ask_sitemaps(page.site, outcome.final_url or page.url)
        origin = origin_of(outcome.final_url or page.url)
        for url in candidates(origin, None, (u for u, _ in outcome.links)):
            if url not in self.asked and self.listings[page.site] < MAX_LISTINGS:
                self._listing(page.site, url)

    def _ask_sitemaps(self, site: str, url: str) -> None:
        """A site's robots.txt sitemaps (else /sitemap.xml), once."""
        self.listed.add(site)
        origin = origin_of(url)
        record = self.miner.fetcher.robots.get(origin)
        for sitemap in candidates(origin, record.sitemaps() if record else [], ()):
            if sitemap not in self.asked and self.listings[site] < MAX_LISTINGS:
                self._listing(site, sitemap)

    def _listing(self, site: str, url: str) -> None:
        self.asked.add(url)
        self.listings[site] += 1
        self.listings_out += 1
        self.pool.add(("listing", site, url), url, LISTING_TYPES)

    def _read_listing(self, site: str, result: FetchResult) -> None:
        """Queue the site's pages a sitemap or feed lists (at LISTING_PRIORITY, depth 1,
        up to the site's page cap); read the sitemaps an index names (MAX_LISTINGS a site)."""
        miner, loop = self.miner, self.report.number
        self.listings_out -= 1
        if HeldBack.applies(result):  # not read: asked again on the site's next document
            self.asked.discard(result.url)
            self.listed.discard(site)
            self.listings[site] -= 1
            return
        listing = parse(result.body or b"", result.final_url) if result.body else None
        entries: list[QueueEntry] = []
        if listing is not None:
            for nested in listing.sitemaps:
                if self.listings[site] < MAX_LISTINGS and site_of(nested) == site:
                    self._listing(site, nested)
            room = miner.ws.settings["crawl.max_pages_per_site"] - miner.store.site_size(site)
            for url in listing.pages:
                queued = crawl_url(url)
                if queued is not None and site_of(queued) == site and len(entries) < room:
                    entries.append(QueueEntry(queued, site, loop, "crawl", 1, LISTING_PRIORITY))
        with miner.store.batch():
            if miner.store.site_counts(site)[2] is not None:
                entries = []  # the site was stopped meanwhile
            added = miner.store.enqueue_in_batch(entries)
            found = len(listing.pages) if listing else 0
            miner.store.record_listing(
                result.url, site, loop, result.status, result.reason, found, added
            )
        self.frontier_changed |= bool(added)

    def _show(self) -> None:
        now = time.monotonic()
        if now - self._shown < SHOW_EVERY:
            return
        self._shown = now
        state = self.pool.state()
        searching = f"queries {self.queries[0]}/{self.queries[1]}, " if self.queries else ""
        held = f", {len(self.held)} held (robots.txt unreachable)" if len(self.held) else ""
        self.miner.events.status(
            f"{searching}{self.targets} target docs, {state.in_flight} hosts in flight, "
            f"{state.queued} waiting, {self.miner.store.queued_count()} queued{held}"
        )


def _count(report: LoopReport, outcomes: Sequence[PageOutcome]) -> None:
    for o in outcomes:
        report.pages[o.status] += 1
        if o.reason and o.status != "kept":
            report.reasons[kind_of(o.reason)] += 1
        if o.lang is not None:
            report.languages[o.lang] += 1


def _fetch_stage(miner: _Miner, report: LoopReport) -> str | None:
    """Fetch the frontier, best first, in batches, until it is empty or a limit is hit.
    Returns why the run must stop (time, interruption), or None when the loop is done."""
    store, limits = miner.store, miner.limits
    miner.events.stage(report.number, "fetch", store.queued_count())
    batch_size = max(16, miner.ws.settings["fetch.workers"] * 4)
    fetched = 0
    held: dict[int, str] = {}  # page id -> site: robots.txt not fetched, left queued
    while True:
        if miner.events.should_stop():
            return "interrupted"
        if miner.out_of_time():
            return _time_limit(miner)
        room = limits.max_pages - fetched if limits.max_pages else batch_size
        size = min(batch_size, room)
        batch = [p for p in store.next_batch(size + len(held)) if p.id not in held][:size]
        if not batch:
            if _revote_short(miner, report):
                continue  # their links may have joined the frontier
            if _learn_relatives(miner, report):
                continue  # pages restored: their links may have joined the frontier
            sites = {site: "see the run's log" for site in held.values()}
            return _held_back(miner, report, len(held), sites)
        by_id = {page.id: page for page in batch}
        outcomes = _examine_batch(miner, batch)
        held.update((o.page_id, o.site) for o in outcomes if o.reason == ROBOTS_UNREACHABLE)
        outcomes = [o for o in outcomes if o.reason != ROBOTS_UNREACHABLE]
        _judge_with_sites(miner, outcomes)
        _record(miner, outcomes, by_id, report.number)
        _suspect_relative_sites(miner, {o.site for o in outcomes if o.near_letters})
        _stop_poor_sites(miner, {o.site for o in outcomes})
        _save_robots(miner)
        _count(report, outcomes)
        fetched += len(batch)
        miner.events.advance(len(batch))


def _revote_short(miner: _Miner, report: LoopReport) -> int:
    """Hayati's vote again for this loop's short pages that too few linking pages had
    voted on when they were fetched (a site's about page comes in the batch that brings
    the articles linking to it): read from cache/, no request. Returns how many the
    vote decided now; they are recorded, and crawled out, like any page."""
    min_votes = miner.ws.settings["crawl.min_votes"]
    decided = []
    for page in short_pages(miner.store, report.number):
        voted = short_page_vote(miner.store.referrers(page.url), min_votes)
        if voted is None:
            continue
        examined = examine_cached(page, miner.store.cache, miner.model, miner.rules)
        if examined.short_text is not None:
            decide_short(examined, voted, miner.rules)
            decided.append(examined)
    if not decided:
        return 0
    by_id = {e.queued.id: e.queued for e in decided}
    outcomes = [e.outcome for e in decided]
    _record(miner, outcomes, by_id, report.number)
    for outcome in outcomes:
        if report.reasons[TOO_SHORT] > 0:  # counted by this run (not before a resume)
            report.pages.subtract(["dropped"])
            report.reasons.subtract([TOO_SHORT])
        report.pages[outcome.status] += 1
        if outcome.reason and outcome.status != "kept":
            report.reasons[kind_of(outcome.reason)] += 1
    report.pages, report.reasons = +report.pages, +report.reasons  # no zero counts
    return len(outcomes)


def _examine_batch(miner: _Miner, batch: list[QueuedPage]) -> list[PageOutcome]:
    """Fetch and examine a batch, a task per group of whole sites (one task when local:
    the run's fetcher paces every host), then finish each page here, in the batch's order."""
    tasks = [_site_batch(miner, group) for group in split_by_site(batch, miner.executor.slots)]
    examined: dict[int, Examined] = {}
    for result in miner.executor.map_batches(fetch_and_examine, tasks, miner.shared):
        examined.update((e.queued.id, e) for e in result.examined)
        _take_handover(miner, result)
    return [_finish(miner, examined[page.id]) for page in batch]


def _site_batch(miner: _Miner, pages: list[QueuedPage]) -> SiteBatch:
    """A task: pages of whole sites, with the robots.txt records known for their origins
    and their hosts' pacing (for a worker's fresh fetcher)."""
    if miner.executor.name == "local":
        return SiteBatch(pages, miner.fetcher.config, miner.rules)
    origins, sites = origins_and_hosts(pages)
    robots = [r for o in sorted(origins) if (r := miner.fetcher.robots.get(o)) is not None]
    now = time.time()
    hold = {h: t for h, t in miner.not_before.items() if t > now and host_in_sites(h, sites)}
    return SiteBatch(pages, miner.fetcher.config, miner.rules, robots, hold)


def _take_handover(miner: _Miner, result: SiteResult) -> None:
    """A worker's robots.txt records (saved with the batch) and its hosts' pacing."""
    for record in result.robots:
        miner.fetcher.robots.put(record)
    for host, when in result.not_before.items():
        miner.not_before[host] = max(when, miner.not_before.get(host, 0.0))


def _finish(miner: _Miner, examined: Examined) -> PageOutcome:
    """Keep the page's body in the cache; decide a short page by its referrers' vote."""
    if examined.body is not None:
        miner.store.save_body(examined.body)
    if examined.short_text is not None:
        referrers = miner.store.referrers(examined.queued.url)
        voted = short_page_vote(referrers, miner.ws.settings["crawl.min_votes"])
        decide_short(examined, voted, miner.rules)
    return examined.outcome


def _record(
    miner: _Miner, outcomes: Sequence[PageOutcome], by_id: dict[int, QueuedPage], loop: int
) -> int:
    """A batch's outcomes in one transaction: each target document marked as a
    near-duplicate or not against every earlier original (this batch's included), then
    the crawl links of the batch's new target documents queued. Returns how many URLs
    were new."""
    store = miner.store
    originals = _originals(miner)
    try:
        with store.batch():
            _write_outcomes(store, outcomes, originals)
            return store.enqueue_in_batch(_plan_links(miner, by_id, outcomes, loop=loop))
    except BaseException:
        miner.originals = None  # it may hold rolled-back documents
        raise


def record_outcomes(store: Store, outcomes: Sequence[PageOutcome]) -> None:
    """Record outcomes in one transaction, near-duplicates marked against the store's
    originals (for tests and benchmarks; the run records through `_record`)."""
    originals = Deduplicator(store.max_distance, store.exact_original)
    originals.add_all(_stored_originals(store))
    with store.batch():
        _write_outcomes(store, outcomes, originals)


def _write_outcomes(store: Store, outcomes: Sequence[PageOutcome], originals: Deduplicator) -> None:
    """Write outcomes inside a batch, each target document first compared with the
    originals (collie.dedup.mark_duplicate), an original joining them."""
    for outcome in outcomes:
        doc = outcome.document
        if doc is not None:
            doc.exact_key, doc.simhash, doc.sketch = fingerprints(doc)
        mark_duplicate(outcome, originals.find)
        doc_id = store.write(outcome)
        if doc is not None and doc_id and doc.kind == "target" and doc.duplicate_of is None:
            assert doc.exact_key is not None and doc.simhash is not None
            originals.add(doc_id, doc.exact_key, doc.simhash, doc.sketch)


def _stored_originals(store: Store) -> Iterator[tuple[int, int, ParagraphSketch]]:
    """The corpus's originals as the near-duplicate lookups take them: (id, simhash,
    paragraph sketch), the sketch computed from the paragraphs for documents recorded
    before sketches were stored."""
    for doc_id, fingerprint, stored, paragraphs in store.original_fingerprints():
        yield doc_id, fingerprint, stored_sketch(stored, paragraphs)


def _originals(miner: _Miner) -> Deduplicator:
    """The run's near-duplicate lookups over the corpus's originals (built from the
    store when first needed, and again after documents left the corpus)."""
    if miner.originals is None:
        originals = Deduplicator(
            miner.store.max_distance,
            miner.store.exact_original,
            miner.ws.settings["dedup.paragraphs"],
        )
        originals.add_all(_stored_originals(miner.store))
        miner.originals = originals
    return miner.originals


def _plan_links(
    miner: _Miner, by_id: dict[int, QueuedPage], done: Sequence[PageOutcome], *, loop: int
) -> list[QueueEntry]:
    """Same-site links of this batch's new target documents (and of its near-duplicates,
    out of their own URL family: crawl.follows_link), to the crawl depth and the
    site's page cap, scored by what predicts their language; and a target document's
    links to sites not met yet (`_cross_site`)."""
    store, settings = miner.store, miner.ws.settings
    needles = language_needles(miner.target)
    domains = query_domains(miner.ws.language, settings["language.extra_domains"], "auto")
    listings_read = settings["crawl.sitemaps"] and miner.executor.name == "local"
    entries: list[QueueEntry] = []
    for outcome in done:
        source = by_id[outcome.page_id]
        depth = source.depth + 1
        if outcome.status == "kept":
            entries += _cross_site(miner, outcome, needles, domains, loop)
        if outcome.status not in ("kept", "duplicate") or depth > miner.limits.crawl_depth:
            continue
        if store.site_counts(source.site)[2] is not None:
            continue
        room = settings["crawl.max_pages_per_site"] - store.site_size(source.site)
        for link, anchor in outcome.links:
            url = crawl_url(link)
            if url is None or site_of(url) != source.site or room <= 0:
                continue
            if not follows_link(outcome.status, source.url, url):
                continue
            if listings_read and is_listing(url):
                continue  # a feed or sitemap: read as a listing (_Stream), not as a page
            evidence = LinkEvidence(url, anchor, tuple(store.referrers(url)))
            priority = link_priority(evidence, miner.target, needles, domains)
            entries.append(
                QueueEntry(
                    url, source.site, loop, "crawl", depth, priority, referrer_id=outcome.page_id
                )
            )
            room -= 1
    return entries


def _cross_site(
    miner: _Miner, outcome: PageOutcome, needles: Needles, domains: list[str], loop: int
) -> list[QueueEntry]:
    """A target document's links to sites the workspace has not met: each new site enters
    through its linked page, at depth 0 (crawled out like a search hit once that page is
    a target document), at most crawl.max_new_sites per loop, scored like any link (the
    referrers' languages, needles in host, path and anchor, the domain extension)."""
    budget = miner.ws.settings["crawl.max_new_sites"]
    if miner.new_sites is None:
        miner.new_sites = set(miner.store.sites_entered_by_link(loop))
    entries = []
    for link, anchor in outcome.links:
        url = crawl_url(link)
        if url is None or len(miner.new_sites) >= budget:
            continue
        site = site_of(url)
        if site == outcome.site or site in miner.new_sites or miner.store.site_size(site):
            continue
        miner.new_sites.add(site)
        evidence = LinkEvidence(url, anchor, tuple(miner.store.referrers(url)))
        priority = link_priority(evidence, miner.target, needles, domains)
        entries.append(
            QueueEntry(url, site, loop, "crawl", 0, priority, referrer_id=outcome.page_id)
        )
    return entries


def _judge_with_sites(miner: _Miner, outcomes: Sequence[PageOutcome]) -> None:
    """relatives.judge_with_sites on a batch, before it is recorded."""
    judge_with_sites(miner.store, miner.model, miner.rules, outcomes)


def _suspect_relative_sites(miner: _Miner, sites: set[str]) -> None:
    """relatives.suspect_sites on a batch's sites, after it is recorded."""
    if suspect_sites(miner.store, miner.rules, sites):
        miner.originals = None  # their documents left the corpus


def _stop_poor_sites(miner: _Miner, sites: set[str]) -> None:
    settings = miner.ws.settings
    for site in sorted(sites):
        pages, target, stopped = miner.store.site_counts(site)
        reason = site_stop_reason(
            target, pages, settings["crawl.site_min_yield"], settings["crawl.site_min_pages"]
        )
        if stopped is None and reason is not None:
            miner.store.stop_site(site, reason)
