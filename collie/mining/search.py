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
from dataclasses import dataclass, field, replace
from typing import Any

from collie.decide.snippets import judge_snippets, result_text
from collie.errors import CollieError, InputError
from collie.langid.model import LangModel
from collie.search import Backend, SearchError, SearchFatal, SearchResult
from collie.search.coverage import Estimate, Incidence, StopRule, site_key
from collie.search.queries import WordBandit, generate_combinations, loop_rng, query_domains
from collie.search.seeds import SeedList, SeedWord, count_tokens, frequency_seeds, odds_ratio_seeds
from collie.store import Store
from collie.store.search import JudgedResult
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


# -- how much of the search is seen (collie.search.coverage) ----------------------------


class SearchCoverage:
    """The search's incidence of target sites, query after query, across the loops: what
    the stop rule and the choice of a next page read. A query's results are judged once
    (decide/snippets.py) and the judgement stored with them, so a resumed run replays the
    same incidence and reaches the same stop."""

    def __init__(self, ws: Workspace, model: LangModel, loop: int) -> None:
        settings = ws.settings
        self.ws, self.model, self.loop = ws, model, loop
        self.target = ws.language.code
        self.rule = StopRule(
            settings["search.saturation"],
            settings["search.min_queries"],
            settings["search.probe_queries"],
        )
        self.incidence = Incidence()
        self.loop_queries = 0  # answered in this loop
        self.loop_new = 0  # target sites this loop's queries brought
        self.quiet = 0  # this loop's queries since the last that brought a new target site
        self.first_loop = True
        for _, sample in _samples(ws, model, before_loop=loop):
            self.incidence.add(sample)
            self.first_loop = False
        self.target_urls = {r.url for r in ws.queries.judged_results()
                            if r.target and (r.loop or 0) < loop}  # fmt: skip
        self.new_urls = 0  # target result URLs the last page taken brought, new to the search

    def take(self, outcome: QueryOutcome, page: int = 1) -> int:
        """A query's answer (its `page`-th page) into the incidence; returns the target
        sites it brought that no earlier query had."""
        if outcome.status not in ("sent", "cached") or outcome.query_id is None:
            return 0
        judged = self._judgements(outcome)
        results = [(site_key(r.url), t) for r, t in zip(outcome.results, judged, strict=True)]
        urls = {r.url for r, t in zip(outcome.results, judged, strict=True) if t}
        self.new_urls = len(urls - self.target_urls)
        self.target_urls |= urls
        if page == 1:
            self.loop_queries += 1
            self.quiet += 1
            new = self.incidence.add(results)
        else:
            new = self.incidence.extend(results)
        if new:
            self.quiet = 0
        self.ws.queries.record_judgements(outcome.query_id, judged, new)
        self.loop_new += new
        return new

    def _judgements(self, outcome: QueryOutcome) -> list[bool]:
        assert outcome.query_id is not None
        stored = self.ws.queries.judgements(outcome.query_id)
        if len(stored) == len(outcome.results) and all(t is not None for t in stored):
            return [bool(t) for t in stored]
        texts = [result_text(r.title, r.snippet) for r in outcome.results]
        return judge_snippets(texts, self.model, self.target)

    def estimate(self) -> Estimate:
        return self.incidence.estimate()

    def decides(self) -> bool:
        """Is the saturation rule on, with a target site to go on? (Then it, not
        search.max_fruitless, says when the search has seen enough: queries that bring no
        new URL are what a long tail looks like between two of its sites.)"""
        return self.rule.share > 0 and self.incidence.estimate().observed > 0

    def saturated(self) -> bool:
        return self.rule.saturated(self.estimate(), self.loop_queries, self.first_loop, self.quiet)

    def stop_line(self, backend: str, unspent: int) -> str:
        """Why the search stage stops, with the figures, in one line."""
        estimate = self.estimate()
        if self.first_loop:
            why = "the search is saturated"
        elif not self.loop_new:
            why = (
                f"the loop's first {self.loop_queries} queries (new seed words) brought no "
                "new target site"
            )
        else:
            why = "the search is saturated again"
        return (
            f"{why}: {estimate.sentence(backend)}; the loop's other {unspent} planned "
            "queries are not spent (search.saturation)"
        )


def _samples(
    ws: Workspace, model: LangModel | None, before_loop: int | None = None
) -> Iterator[tuple[int, list[tuple[str, bool]]]]:
    """(loop, results) of each answered query, its judged results as (site, target),
    in the order sent (a query's later pages with its first: one sample), of the loops
    before `before_loop` (None: all). With a `model` and `before_loop`, the results of
    the loops before are judged again by it and the changes stored: a later loop's model
    knows the relatives the relatives pass learnt, whose sites the first loop's model
    may have taken for the target's (the same model on a resumed run: the same
    judgements). Results never judged (a workspace of an older collie, or a run killed
    between storing an answer and judging it) are judged now and stored; without a
    `model` (a reader: status, report) they count as not the target's."""
    by_query: dict[int, list[JudgedResult]] = {}
    keys: dict[int, tuple[int | None, str]] = {}
    for row in ws.queries.judged_results():
        if before_loop is None or (row.loop or 0) < before_loop:
            keys[row.query_id] = (row.loop, row.text)
            by_query.setdefault(row.query_id, [])
            if row.url is not None:
                by_query[row.query_id].append(row)
    if model is not None and before_loop is not None:
        by_query = _judge_again(ws, model, by_query)
    samples: dict[tuple[int | None, str], list[tuple[str, bool]]] = {}
    for query_id, found in by_query.items():
        if model is not None and any(r.target is None for r in found):
            texts = [result_text(r.title, r.snippet) for r in found]
            judged = judge_snippets(texts, model, ws.language.code)
            ws.queries.record_judgements(query_id, judged, 0)
            found = [replace(r, target=t) for r, t in zip(found, judged, strict=True)]
        sample = samples.setdefault(keys[query_id], [])
        sample += [(site_key(r.url or ""), bool(r.target)) for r in found]
    for (loop, _), sample in samples.items():
        yield loop or 0, sample


def _judge_again(
    ws: Workspace, model: LangModel, by_query: dict[int, list[JudgedResult]]
) -> dict[int, list[JudgedResult]]:
    """Every result judged again by `model` (one batch); the changes stored."""
    rows = [r for found in by_query.values() for r in found]
    judged = judge_snippets([result_text(r.title, r.snippet) for r in rows], model,
                            ws.language.code)  # fmt: skip
    changed = [(r.query_id, r.rank, t) for r, t in zip(rows, judged, strict=True) if r.target != t]
    if changed:
        ws.queries.update_judgements(changed)
    again = iter(judged)
    return {q: [replace(r, target=next(again)) for r in found] for q, found in by_query.items()}


def coverage_by_loop(ws: Workspace, model: LangModel | None = None) -> dict[int, list[Estimate]]:
    """The coverage estimate after each answered query, per loop (the estimate runs on
    across the loops): the saturation curve that status and the report show (read
    only without a `model`: `_samples`)."""
    curve: dict[int, list[Estimate]] = {}
    incidence = Incidence()
    for loop, sample in _samples(ws, model):
        incidence.add(sample)
        curve.setdefault(loop, []).append(incidence.estimate())
    return curve


# -- what the search may cost -----------------------------------------------------------


@dataclass(frozen=True)
class SearchCost:
    """A run's search bill before it starts: the worst case (every planned query and
    each of its pages) and the plan's allowance (search.monthly_requests,
    search.price_per_1000, else the backend's defaults)."""

    requests: int  # at most, this run
    seconds: float  # at search.rate_limit (0: no limit)
    allowance: int  # requests a month (0: no limit)
    price: float  # per 1,000 beyond it
    this_month: int  # requests this workspace sent this calendar month (UTC)

    def lines(self, backend: str) -> list[str]:
        """The plan in words, and a warning when it could go over the allowance."""
        time = f", about {self.seconds / 60:.0f} min at search.rate_limit" if self.seconds else ""
        lines = [
            f"search: at most {self.requests:,} {backend} requests in this run{time} (the "
            "saturation rule usually stops far earlier)"
        ]
        if self.allowance and self.this_month + self.requests > self.allowance:
            over = self.this_month + self.requests - self.allowance
            cost = f" (up to ${over * self.price / 1000:,.2f})" if self.price else ""
            lines.append(
                f"warning: this workspace sent {self.this_month:,} {backend} requests this "
                f"month; the worst case of this run goes {over:,} over the plan's "
                f"{self.allowance:,} a month{cost}. Lower queries.count or "
                "search.max_queries_per_run to cap it (search.monthly_requests sets the "
                "allowance)."
            )
        return lines


def plan_cost(ws: Workspace, backend: Backend, loops: int, now: str) -> SearchCost:
    """The worst case of a run bringing the workspace to `loops` loops (`now`: the time,
    UTC ISO 8601, whose calendar month counts)."""
    settings = ws.settings
    per_page = min(settings["search.results"], backend.max_count)
    pages = -(-settings["search.results"] // per_page)
    left = max(0, loops - ws.completed_loops())
    requests = left * settings["queries.count"] * pages
    if settings["search.max_queries_per_run"]:
        requests = min(requests, settings["search.max_queries_per_run"])
    rate = settings["search.rate_limit"]
    allowance = settings["search.monthly_requests"]
    price = settings["search.price_per_1000"]
    return SearchCost(
        requests,
        requests / rate if rate else 0.0,
        backend.monthly_requests if allowance < 0 else allowance,
        backend.price_per_1000 if price < 0 else price,
        ws.queries.requests_since(now[:7] + "-01"),
    )
