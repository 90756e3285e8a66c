"""The search stage's coverage, on the loop's side: each query's results judged
(decide/snippets.py) and stored, the incidence of target sites replayed from the store,
the stop rule (collie/search/coverage.py) asked after each query, the saturation curve
that status and the report show, and a run's worst-case search bill.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from collie.decide.snippets import judge_snippets, result_text
from collie.langid.model import LangModel
from collie.mining.config import RunConfig, SearchConfig
from collie.mining.records import QueryOutcome
from collie.search.base import Backend
from collie.search.coverage import Estimate, Incidence, StopRule, site_key
from collie.store.search import JudgedResult

if TYPE_CHECKING:  # types only: the caller hands these in
    from collie.workspace.folder import Workspace


class SearchCoverage:
    """The search's incidence of target sites, query after query, across the loops: what
    the stop rule and the choice of a next page read. A query's results are judged once
    (decide/snippets.py) and the judgement stored with them, so a resumed run replays the
    same incidence and reaches the same stop. A model that learnt the relatives found
    meanwhile (the contrast during the search, loop.py) judges the loop's results again
    (`judge_again`): the stored judgements change, and the incidence is replayed."""

    def __init__(self, ws: Workspace, model: LangModel, loop: int, config: SearchConfig) -> None:
        self.ws, self.model, self.loop = ws, model, loop
        self.target = ws.language.code
        c = config
        self.rule = StopRule(
            c.saturation, c.min_queries, c.probe_queries, c.stop_rule, c.min_new_sites
        )
        self._replay(_samples(ws, model, before_loop=loop))

    def _replay(self, samples: Iterable[tuple[int, list[tuple[str, bool]]]]) -> None:
        """The incidence anew from (loop, judged results) samples in the order sent."""
        self.incidence = Incidence()
        self.loop_queries = 0  # answered in this loop
        self.loop_new = 0  # target sites this loop's queries brought
        self.quiet = 0  # this loop's queries since the last that brought a new target site
        self.first_loop = True
        self.target_urls: set[str] = set()  # result URLs judged target so far
        for loop, sample in samples:
            new = self.incidence.add((site_key(url), target) for url, target in sample)
            self.target_urls |= {url for url, target in sample if target}
            if loop < self.loop:
                self.first_loop = False
            else:
                self.loop_queries += 1
                self.loop_new += new
                self.quiet = 0 if new else self.quiet + 1
        self.new_urls = 0  # target result URLs the last page taken brought, new to the search

    def judge_again(self, model: LangModel) -> None:
        """This loop's results so far judged again by `model` (one that knows the
        relatives found in the loop) and stored; the incidence replayed. The earlier
        loops' results keep the judgements this loop started from (its model's), so a
        resumed run, which starts from them too, replays the same incidence."""
        self.model = model
        self._replay(_samples(self.ws, model, before_loop=self.loop + 1, again_from=self.loop))

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
        """Is a stop rule on, with a target site to go on? (Then it, not
        search.max_fruitless, says when the search has seen enough: queries that bring no
        new URL are what a long tail looks like between two of its sites.)"""
        return self.rule.on and self.incidence.estimate().observed > 0

    def saturated(self, unspent: int) -> bool:
        """Has the search seen enough, with `unspent` queries left in the loop?"""
        return self.rule.saturated(
            self.estimate(), self.loop_queries, self.first_loop, self.quiet, unspent
        )

    def stop_line(self, backend: str, unspent: int) -> str:
        """Why the search stage stops, with the figures, in one line."""
        estimate = self.estimate()
        if not self.first_loop and not self.loop_new:
            why = (
                f"the loop's first {self.loop_queries} queries (new seed words) brought no "
                "new target site"
            )
        elif self.rule.rule == "extrapolation":
            why = (
                f"the loop's other {unspent} planned queries would bring about "
                f"{estimate.new_sites(unspent):.1f} new target sites (below "
                f"search.min_new_sites {self.rule.min_new:g}), so they are not spent"
            )
            return f"{why}: {estimate.sentence(backend)} (search.stop_rule)"
        else:
            why = "the search is saturated" + ("" if self.first_loop else " again")
        return (
            f"{why}: {estimate.sentence(backend)}; the loop's other {unspent} planned "
            f"queries, which would bring about {estimate.new_sites(unspent):.1f} new target "
            "sites, are not spent (search.stop_rule)"
        )


def _samples(
    ws: Workspace, model: LangModel | None, before_loop: int | None = None, again_from: int = 0
) -> Iterator[tuple[int, list[tuple[str, bool]]]]:
    """(loop, results) of each answered query, its judged results as (URL, target),
    in the order sent (a query's later pages with its first: one sample), of the loops
    before `before_loop` (None: all). With a `model` and `before_loop`, the results of
    the loops before are judged again by it and the changes stored: a later loop's model
    knows the relatives the relatives pass learnt, whose sites the first loop's model
    may have taken for the target's (the same model on a resumed run: the same
    judgements; `again_from`: only the results of that loop on). Results never judged
    (a workspace of an older collie, or a run killed between storing an answer and
    judging it) are judged now and stored; without a `model` (a reader: status,
    report) they count as not the target's."""
    by_query: dict[int, list[JudgedResult]] = {}
    keys: dict[int, tuple[int | None, str]] = {}
    for row in ws.queries.judged_results():
        if before_loop is None or (row.loop or 0) < before_loop:
            keys[row.query_id] = (row.loop, row.text)
            by_query.setdefault(row.query_id, [])
            if row.url is not None:
                by_query[row.query_id].append(row)
    if model is not None and before_loop is not None:
        again = {q: found for q, found in by_query.items() if (keys[q][0] or 0) >= again_from}
        by_query.update(_judge_again(ws, model, again))
    samples: dict[tuple[int | None, str], list[tuple[str, bool]]] = {}
    for query_id, found in by_query.items():
        if model is not None and any(r.target is None for r in found):
            texts = [result_text(r.title, r.snippet) for r in found]
            judged = judge_snippets(texts, model, ws.language.code)
            ws.queries.record_judgements(query_id, judged, 0)
            found = [replace(r, target=t) for r, t in zip(found, judged, strict=True)]
        sample = samples.setdefault(keys[query_id], [])
        sample += [(r.url or "", bool(r.target)) for r in found]
    for (loop, _), sample in samples.items():
        yield loop or 0, sample


def _judge_again(
    ws: Workspace, model: LangModel, by_query: dict[int, list[JudgedResult]]
) -> dict[int, list[JudgedResult]]:
    """Every result judged again by `model` (one batch); the changes stored."""
    rows = [r for found in by_query.values() for r in found]
    texts = [result_text(r.title, r.snippet) for r in rows]
    judged = judge_snippets(texts, model, ws.language.code)
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
        incidence.add((site_key(url), target) for url, target in sample)
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
            f"search: at most {self.requests:,} {backend} requests in this run{time} (every "
            "planned query and page; the stop rule may stop sooner)"
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


def plan_cost(ws: Workspace, backend: Backend, config: RunConfig, now: str) -> SearchCost:
    """The worst case of a run bringing the workspace to `config.limits.loops` loops
    (`now`: the time, UTC ISO 8601, whose calendar month counts)."""
    search, loops = config.search, config.limits.loops
    _, pages = search.page_size(backend)
    left = max(0, loops - ws.completed_loops())
    requests = left * config.queries.count * pages
    if search.max_queries_per_run:
        requests = min(requests, search.max_queries_per_run)
    rate = search.rate_limit
    allowance = search.monthly_requests
    price = search.price_per_1000
    return SearchCost(
        requests,
        requests / rate if rate else 0.0,
        backend.monthly_requests if allowance < 0 else allowance,
        backend.price_per_1000 if price < 0 else price,
        ws.queries.requests_since(now[:7] + "-01"),
    )
