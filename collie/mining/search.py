"""The search stage: a loop's queries (queries.py) sent over the workspace's query cache
(store/search.py), their next pages, the budgets, the failures and the stop rules, in
one class (`SearchStage`) that yields each query's outcome and its results as frontier
entries; the loop queues them, hands them to the fetching and stops the stage by asking
for no more.

A query is identified by (backend, text, parameters). Before a request is sent its row is
committed as `pending`; the results and `done` follow in one transaction. So:

- a query whose results are stored is never sent again (it is answered from the cache);
- a query left `pending` by a crash between sending and storing is marked `lost` at the
  next run's start and is never re-sent either: the backend may have billed it, and
  collie never pays twice. The loop draws other seed-word combinations;
- a query that failed (error answer, timeout) may be sent again later.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from collie.crawl.links import crawl_url, site_of
from collie.errors import CollieError
from collie.langid.model import LangModel
from collie.mining.config import RunConfig, SearchConfig
from collie.mining.coverage import SearchCoverage
from collie.mining.queries import loop_queries
from collie.mining.records import LoopReport, QueryOutcome, RunEvents
from collie.models import QueueEntry
from collie.search.base import Backend, SearchError, SearchFatal, SearchRefused
from collie.store.frontier import FrontierTable

if TYPE_CHECKING:  # types only: the caller hands these in
    from collie.workspace.folder import Workspace


SEARCH_PRIORITY = 2.0  # a loop's search results come before crawled links (scores ~0-1.4)


class BudgetExhausted(CollieError):
    """The query budget of the workspace or of this run is used up."""


@dataclass
class SearchBudget:
    """search.max_queries (whole workspace) and search.max_queries_per_run; 0 = none."""

    workspace_limit: int = 0
    run_limit: int = 0
    sent_this_run: int = 0

    @classmethod
    def of(cls, config: SearchConfig) -> SearchBudget:
        """The budgets of a run's configuration, for one run."""
        return cls(config.max_queries, config.max_queries_per_run)

    def check(self, sent_in_workspace: int) -> None:
        if self.workspace_limit and sent_in_workspace >= self.workspace_limit:
            raise BudgetExhausted(
                f"The workspace's query budget ({self.workspace_limit}) is used up.",
                "Raise search.max_queries in collie.toml to send more.",
            )
        if self.run_limit and self.sent_this_run >= self.run_limit:
            raise BudgetExhausted(
                f"This run's query budget ({self.run_limit}) is used up.",
                "Raise search.max_queries_per_run, or run again.",
            )


@dataclass
class SearchReport:
    outcomes: list[QueryOutcome] = field(default_factory=list)
    stopped: str | None = None  # why the search stage stopped early, if it did

    def count(self, status: str) -> int:
        return sum(1 for o in self.outcomes if o.status == status)


def query_params(backend: Backend, count: int, offset: int) -> str:
    """The canonical JSON of what, besides its text, identifies a query's results."""
    return json.dumps(backend.cache_params(count, offset), sort_keys=True)


def search_one(
    ws: Workspace,
    backend: Backend,
    query: str,
    count: int,
    offset: int = 0,
    budget: SearchBudget | None = None,
    loop: int | None = None,
    words: list[str] | None = None,
) -> QueryOutcome:
    """Answer a query from the workspace's cache, or send it and store the results.

    Raises SearchFatal when the backend cannot be used, BudgetExhausted when a budget
    forbids sending; an ordinary failure is recorded and returned as status `failed`.
    """
    params = query_params(backend, count, offset)
    record = ws.queries.query_record(backend.name, query, params)
    if record is not None and record.status == "done":
        results = ws.queries.query_results(record.id, backend.name)
        return QueryOutcome(query, record.id, "cached", results, words=words)
    if record is not None and record.status in ("pending", "lost"):
        return QueryOutcome(
            query, record.id, "lost", [], "sent before; its results were lost", words
        )
    backend.preflight()
    if budget is not None:
        budget.check(ws.queries.requests_sent())
    query_id = ws.queries.begin_query(backend.name, query, params, loop, words)
    if budget is not None:
        budget.sent_this_run += 1
    try:
        response = backend.search(query, count, offset)
    except SearchError as exc:
        ws.queries.fail_query(query_id, exc.message)
        if isinstance(exc, SearchFatal):
            raise
        return QueryOutcome(query, query_id, "failed", [], exc.message, words)
    ws.queries.finish_query(query_id, response)
    return QueryOutcome(query, query_id, "sent", response.results, words=words)


def search_queries(
    ws: Workspace,
    backend: Backend,
    queries: Iterable[tuple[str, list[str] | None]],
    count: int,
    max_failures: int,
    budget: SearchBudget | None = None,
    loop: int | None = None,
    max_empty: int = 0,
) -> SearchReport:
    """The search stage at once: every (query, seed words) in turn, until done or
    stopped (`send_queries`)."""
    report = SearchReport()
    for _ in send_queries(
        ws, backend, queries, count, max_failures, report, budget, loop, max_empty
    ):
        pass
    return report


def send_queries(
    ws: Workspace,
    backend: Backend,
    queries: Iterable[tuple[str, list[str] | None]],
    count: int,
    max_failures: int,
    report: SearchReport,
    budget: SearchBudget | None = None,
    loop: int | None = None,
    max_empty: int = 0,
) -> Iterator[QueryOutcome]:
    """The search stage, a query at a time: every (query, seed words) in turn, each
    outcome added to `report` and yielded before the next query is sent (the caller
    stops the stage by asking for no more).

    Stops early, with the reason in `report.stopped`, when the backend is unusable, a
    budget is used up, `max_failures` queries fail in a row, or `max_empty` queries sent
    in a row (0: no limit) came back without a single result; the caller's loop goes on.
    A refused key (SearchRefused) is raised: the run stops with its loop left open.
    """
    failures = empty = 0
    for query, words in queries:
        try:
            outcome = search_one(ws, backend, query, count, 0, budget, loop, words)
        except SearchRefused:
            raise  # the key: the run stops, the loop left open (not recorded done)
        except (SearchFatal, BudgetExhausted) as exc:
            report.stopped = str(exc)
            return
        report.outcomes.append(outcome)
        yield outcome
        failures = failures + 1 if outcome.status == "failed" else 0
        if failures >= max_failures:
            report.stopped = (
                f"{backend.name} failed {failures} queries in a row (last: {outcome.error}); "
                "the search stage stops here and the rest of the loop goes on."
            )
            return
        if outcome.status == "sent":
            empty = 0 if outcome.results else empty + 1
        if max_empty and empty >= max_empty:
            report.stopped = (
                f"{backend.name} answered {empty} queries in a row with no result at all; the "
                "search stage stops here (no more queries spent) and the rest of the loop goes "
                'on. Check the backend with `collie search "a common word"` (a SearXNG '
                "instance without working engines answers every query empty); raise "
                "search.max_empty if the language is that rare on it."
            )
            return


# -- the stage --------------------------------------------------------------------------


@dataclass(frozen=True)
class QueryStep:
    """One query answered: its first page's outcome, the frontier entries of all its
    pages' results, and how far the loop's queries are (`done` of `planned`)."""

    outcome: QueryOutcome
    entries: list[QueueEntry]
    done: int
    planned: int


@dataclass
class _Fruitless:
    """Queries sent in a row that brought no URL new to the search (search.max_fruitless)."""

    enough: int  # 0: no limit
    count: int = 0
    seen: set[str] = field(default_factory=set)  # this loop's result URLs so far


class SearchStage:
    """A loop's search stage (module docstring). Iterate it for the queries' steps; the
    stage stops on its own when every query is sent or a rule stops it: the coverage
    estimate says the rest would bring too little (search.stop_rule), no new URL
    (search.max_fruitless), failures or empty answers in a row, a budget. When it ends
    on its own it records the loop as searched and says why in `report.search_stopped`;
    a caller that stops asking (Ctrl-C, the time limit) leaves the loop's search to
    resume from the cache next time."""

    def __init__(
        self,
        ws: Workspace,
        backend: Backend,
        config: RunConfig,
        budget: SearchBudget,
        model: LangModel,
        report: LoopReport,
        events: RunEvents,
    ) -> None:
        self.ws, self.backend, self.budget = ws, backend, budget
        self.config: SearchConfig = config.search
        self.report, self.events = report, events
        self.frontier = FrontierTable(ws.db)
        self.planned = loop_queries(ws, backend, report.number, config)
        self.coverage = SearchCoverage(ws, model, report.number, config.search)
        self.per_page, self.pages = self.config.page_size(backend)
        self.searched = SearchReport()
        self.fruitless = _Fruitless(self.config.max_fruitless)

    def __len__(self) -> int:
        return len(self.planned)

    def __iter__(self) -> Iterator[QueryStep]:
        report, config = self.report, self.config
        for outcome in send_queries(
            self.ws,
            self.backend,
            self.planned,
            self.per_page,
            config.max_failures,
            self.searched,
            self.budget,
            report.number,
            config.max_empty,
        ):
            entries = self._take(outcome)
            self.coverage.take(outcome)
            entries += self._next_pages(outcome)
            done = sum(report.queries.values())
            yield QueryStep(outcome, entries, done, len(self.planned))
            unspent = len(self.planned) - done
            fruitless = self.fruitless
            tired = fruitless.enough and fruitless.count >= fruitless.enough
            if tired and not self.coverage.decides():
                report.search_stopped = (
                    f"the last {fruitless.enough} queries sent brought no new URL; the "
                    f"loop's other {unspent} queries are not spent (search.max_fruitless)"
                )
                break
            if self.coverage.saturated(unspent):
                report.search_stopped = self.coverage.stop_line(self.backend.name, unspent)
                break
        else:
            report.search_stopped = self.searched.stopped
        self._finish()

    def _finish(self) -> None:
        """The loop is searched: recorded, and said in a line or two."""
        report, loop = self.report, self.report.number
        report.coverage = self.coverage.estimate()
        self.frontier.mark_searched(loop, report.search_stopped)
        statuses = ", ".join(f"{n} {status}" for status, n in sorted(report.queries.items()))
        self.events.line(
            f"loop {loop}: {sum(report.queries.values())} queries ({statuses}; "
            f"{report.requests} search requests), {report.search_urls} new URLs"
            + (f"; {report.search_stopped}" if report.search_stopped else "")
        )
        if not _says_coverage(report.search_stopped):
            self.events.line(f"loop {loop}: {report.coverage.sentence(self.backend.name)}")

    def _next_pages(self, first: QueryOutcome) -> list[QueueEntry]:
        """A query's next pages, up to search.results: each while the page before brought
        a target-language result new to the search (search.next_page = new-target; a page
        whose results are all known or in other languages does not deserve another) or
        always; each a request of its own, counted against the budgets and paced by the
        rate limit. Returns their results as frontier entries."""
        per_page = self.per_page
        always = self.config.next_page == "always"
        entries: list[QueueEntry] = []
        outcome, offset = first, per_page
        while offset < per_page * self.pages and len(outcome.results) >= per_page:
            if not (always or self.coverage.new_urls):
                break
            try:
                outcome = search_one(
                    self.ws,
                    self.backend,
                    first.query,
                    per_page,
                    offset,
                    self.budget,
                    self.report.number,
                    first.words,
                )
            except SearchRefused:
                raise  # the key: the run stops, the loop left open
            except (SearchFatal, BudgetExhausted) as exc:
                self.searched.stopped = str(exc)
                break
            entries += self._take(outcome, page=2)
            self.coverage.take(outcome, page=2)
            offset += per_page
        return entries

    def _take(self, outcome: QueryOutcome, page: int = 1) -> list[QueueEntry]:
        """A query's results (its `page`-th page) counted in the loop's report and the
        fruitless rule; returned as frontier entries."""
        report, fruitless = self.report, self.fruitless
        if page == 1:
            report.queries[outcome.status] += 1
        report.requests += outcome.status in ("sent", "failed")
        entries = search_entries(outcome, report.number)
        # New to the search: neither an earlier query's result in this loop nor a page
        # of an earlier loop (not what fetching meanwhile queued: the count, and so the
        # queries a loop sends, must not depend on fetch timing).
        urls = [e.url for e in entries if e.url not in fruitless.seen]
        fruitless.seen.update(urls)
        if outcome.status == "sent":
            fresh = len(urls) - len(self.frontier.known_before(urls, report.number))
            if page == 1 or fresh:
                fruitless.count = 0 if fresh else fruitless.count + 1
        return entries


def _says_coverage(stopped: str | None) -> bool:
    """Does the stop line already hold the coverage sentence? (search.saturation: the
    line of a workspace of an older collie.)"""
    return any(key in (stopped or "") for key in ("search.stop_rule", "search.saturation"))


def search_entries(outcome: QueryOutcome, loop: int) -> list[QueueEntry]:
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
