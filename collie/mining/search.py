"""The search stage: a loop's seed list and queries, sent over the workspace's query cache
(store/search.py).

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
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from collie.errors import CollieError, InputError
from collie.search import Backend, SearchError, SearchFatal, SearchResult
from collie.search.queries import WordBandit, generate_combinations, loop_rng, query_domains
from collie.search.seeds import SeedList, SeedWord, count_tokens, frequency_seeds, odds_ratio_seeds
from collie.store import Store
from collie.workspace.folder import Workspace


class BudgetExhausted(CollieError):
    """The query budget of the workspace or of this run is used up."""


@dataclass
class SearchBudget:
    """search.max_queries (whole workspace) and search.max_queries_per_run; 0 = none."""

    workspace_limit: int = 0
    run_limit: int = 0
    sent_this_run: int = 0

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> SearchBudget:
        """The budgets of a workspace's settings, for one run."""
        return cls(settings["search.max_queries"], settings["search.max_queries_per_run"])

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


@dataclass(frozen=True)
class QueryOutcome:
    query: str
    query_id: int | None
    status: str  # sent, cached, failed, lost
    results: list[SearchResult]
    error: str | None = None
    words: list[str] | None = None  # the seed words it was made of


@dataclass
class SearchReport:
    outcomes: list[QueryOutcome] = field(default_factory=list)
    stopped: str | None = None  # why the search stage stopped early, if it did

    def count(self, status: str) -> int:
        return sum(1 for o in self.outcomes if o.status == status)


def page_size(settings: Mapping[str, Any], backend: Backend) -> tuple[int, int]:
    """(results a request asks for, requests a query may take): search.results in pages
    of what the backend serves at most."""
    per_page = min(settings["search.results"], backend.max_count)
    return per_page, -(-settings["search.results"] // per_page)


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
    """
    failures = empty = 0
    for query, words in queries:
        try:
            outcome = search_one(ws, backend, query, count, 0, budget, loop, words)
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


# -- what a loop sends ----------------------------------------------------------------


def seed_list_for(ws: Workspace, loop: int) -> SeedList:
    """The seed list of a loop: the manual list if there is one; else the odds ratio of
    target against wrong-language text when there is wrong-language text (the user's
    wronglang documents, and the pages earlier loops classified as another language);
    else the frequency list. Target text: the seed documents and the target-language
    documents of earlier loops (near-duplicates left out).
    """
    settings = ws.settings
    manual = ws.manual_seed_words()
    if manual:
        return SeedList("manual", [SeedWord(w, 0.0, 0, 0) for w in manual], {})
    store = Store(ws)
    target = count_tokens(ws.seed_texts("target") + store.document_texts("target", loop))
    wrong_texts = ws.seed_texts("wronglang") + store.document_texts("wronglang", loop)
    wrong_texts += store.suspect_texts(loop)  # a relative's words make poor seeds
    common = {
        "target": ws.language.code,
        "min_length": settings["seeds.min_length"],
        "top": settings["safetynet.top"],
        "ignore": settings["safetynet.ignore"],
    }
    if wrong_texts:
        return odds_ratio_seeds(
            target,
            count_tokens(wrong_texts),
            settings["seeds.count"],
            min_doc_freq=settings["seeds.min_doc_freq"],
            min_count=settings["seeds.min_count"],
            **common,
        )
    return frequency_seeds(target, settings["seeds.count"], **common)


def plan_queries(ws: Workspace, backend: Backend, loop: int) -> list[tuple[str, list[str]]]:
    """The queries (text as sent, seed words) a loop would send, none sent before."""
    return list(LoopQueries(ws, backend, loop, [], ws.settings["queries.count"]))


class LoopQueries:
    """A loop's queries as the search stage takes them, one at a time: those an
    interrupted run of this loop recorded (answered from the cache when done, never
    re-sent when lost), then new ones up to queries.count: random, or (queries.bandit,
    from the second loop) drawn by the seed words' yields in earlier loops (the target
    documents their queries brought; queries.WordBandit)."""

    def __init__(
        self,
        ws: Workspace,
        backend: Backend,
        loop: int,
        recorded: list[tuple[str, list[str]]],
        fresh: int,
        start: int = 0,
    ) -> None:
        """`recorded`: the queries recorded for the loop (to send again or answer from
        the cache); `fresh`: how many new ones to draw; `start`: their first position
        in the loop (lost queries count)."""
        settings = ws.settings
        seeds = [seed.word for seed in seed_list_for(ws, loop).words]
        if len(seeds) < settings["queries.words"] and fresh > 0:
            raise InputError(
                f"Loop {loop} has {len(seeds)} seed word{'' if len(seeds) == 1 else 's'}, "
                "fewer than a query needs "
                f"(queries.words = {settings['queries.words']}): there is nothing to search "
                "for.",
                "Give more seed text (a new workspace with more --docs), lower "
                "seeds.min_length or seeds.min_count, or list seed words in the file named "
                "by seeds.manual (`collie seeds` shows the list).",
            )
        self.backend = backend
        self.recorded = recorded
        self.words = settings["queries.words"]
        self.fresh = fresh
        self.domains = query_domains(
            ws.language, settings["language.extra_domains"], settings["queries.tld"]
        )
        rng = loop_rng(settings["run.seed"], loop)
        self.position_rng = lambda i: loop_rng(settings["run.seed"], loop, start + i)
        used = ws.queries.sent_combinations()
        self.bandit: WordBandit | None = None
        self.combos: list[tuple[str, ...]] = []
        prior = ws.queries.word_yields(loop) if settings["queries.bandit"] else {}
        if any(hits + misses for hits, misses in prior.values()):
            self.bandit = WordBandit(seeds, prior, used)
        else:
            self.combos = generate_combinations(seeds, self.fresh, self.words, rng, used)

    def __len__(self) -> int:
        """How many the loop plans (fewer may be sent: a budget, the yield rule)."""
        return len(self.recorded) + (self.fresh if self.bandit else len(self.combos))

    def __iter__(self) -> Iterator[tuple[str, list[str]]]:
        yield from self.recorded
        for i in range(self.fresh):
            combo = (
                self.bandit.draw(self.words, self.position_rng(i))
                if self.bandit
                else (self.combos[i] if i < len(self.combos) else None)
            )
            if combo is None:
                return
            yield self.backend.restrict_to_domains(" ".join(combo), self.domains), list(combo)


def loop_queries(ws: Workspace, backend: Backend, loop: int) -> LoopQueries:
    """The loop's queries (`LoopQueries`)."""
    recorded = ws.queries.loop_queries(loop)
    return LoopQueries(
        ws,
        backend,
        loop,
        [(text, words) for text, words, status in recorded if status != "lost"],
        max(0, ws.settings["queries.count"] - len(recorded)),
        len(recorded),
    )
