"""How much of what the search backend can surface has been seen: a species-richness
estimate over the queries' results, and the rule that stops a loop's search stage.

Each answered query is a sample; the species are the target sites (registered domains)
among its results. A site seen in the results of exactly one query is a singleton (Q1),
in exactly two a doubleton (Q2). The incidence-based Chao2 estimator (Chao 1987; the
sample-based form of Chao1, Chao 1984) estimates how many sites the backend would
surface to such queries in all:

    S = S_obs + ((m - 1) / m) * Q1^2 / (2 Q2)                    (Q2 > 0)
    S = S_obs + ((m - 1) / m) * Q1 (Q1 - 1) / 2                  (Q2 = 0)

with m queries, its variance, and the upper bound of Chao's log-normal 95% interval
(S_obs + T K, T the estimated unseen, K = exp(1.96 sqrt(ln(1 + var / T^2)))); the
interval starts at S_obs (Chao's lower bound S_obs + T / K would exclude the case that
matters most here: every site already found). Why Chao2: it needs only the incidence
the search stage already has (no model of the engine's ranking), it is a lower bound
that is nearly unbiased when rare species are still turning up (exactly when the stop
must wait), and capture-recapture over query results is how IR estimates the size of
a collection behind a search interface (Bharat and Broder 1998; Shokouhi et al. 2006).
Its weak point is heterogeneity: a site that only rare words reach is under-counted
until a query with those words is sent; the stop's minimum of queries and its quiet
probe are there for that (docs/search-backends.md, "When the search stops").

A site here is a host (less a leading "www."): two hosts of one registered domain are
often two sites that do not link to each other (a newspaper and its regional edition),
and a host the search never returned may be one the crawl never reaches either.

Beside Chao2, each estimate carries the first-order jackknife (Burnham and Overton
1978; S_obs + Q1 (m - 1) / m, less biased under heterogeneity, which top-k search
answers have: Shokouhi et al. 2006, Lu and Li 2010), the Good-Turing sample coverage of
incidence data (Chao and Jost 2012; the share of the sites' incidences that the sites
already seen account for):

    C = 1 - (Q1 / U) (m - 1) Q1 / ((m - 1) Q1 + 2 Q2)          (U: the incidences)

and the extrapolation of Chao et al. (2014) of the new sites t more queries bring:

    D(t) = f0 (1 - (1 - Q1 / (m f0 + Q1))^t)                   (f0 = S - S_obs)

Random queries against an engine that answers with its top k results see the popular
sites again and again and the rest rarely: every one of these figures is a lower bound
of the sites the engine holds, and the sentence the user reads says so.

This module is pure: the loop feeds it each query's judged results in order.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

Z95 = 1.959964  # the normal quantile of a two-sided 95% interval
# A site counts as a target site once at least this share of its results seen so far
# were judged to be in the target language: a relative's or a neighbour's site, whose
# results the model takes for the target now and then, does not.
SITE_MIN_SHARE = 0.25


def site_key(url: str) -> str:
    """The site a result counts for: its host, lower-cased, less a leading "www."."""
    host = (urlsplit(url).hostname or "").lower()
    return host[4:] if host.startswith("www.") else host


@dataclass(frozen=True)
class Estimate:
    """The coverage estimate after `queries` answered queries."""

    queries: int
    observed: int  # target sites seen
    estimate: float  # Chao2: target sites the backend can surface to such queries
    low: float  # the 95% interval
    high: float
    singletons: int  # Q1: target sites seen in exactly one query's results
    doubletons: int  # Q2
    incidences: int = 0  # U: over the sites seen, the queries each was seen in

    @property
    def share(self) -> float:
        """Observed over estimated (1.0 before anything is seen)."""
        return self.observed / self.estimate if self.estimate else 1.0

    @property
    def jackknife(self) -> float:
        """The first-order jackknife estimate (module docstring)."""
        m = self.queries
        return self.observed + self.singletons * (m - 1) / m if m else float(self.observed)

    @property
    def coverage(self) -> float:
        """Good-Turing sample coverage of incidence data, 0-1 (module docstring)."""
        q1, q2, m, u = self.singletons, self.doubletons, self.queries, self.incidences
        if not q1:
            return 1.0 if self.observed else 0.0
        if not u:
            return 0.0
        weight = (m - 1) * q1 + 2 * q2  # 0 after a single query: Q1 / U alone
        return max(0.0, 1 - q1 / u * ((m - 1) * q1 / weight if weight else 1.0))

    def new_sites(self, queries: int) -> float:
        """The new target sites `queries` more queries like these are expected to bring
        (Chao et al. 2014's extrapolation; module docstring)."""
        unseen = self.estimate - self.observed
        q1, m = self.singletons, self.queries
        if queries <= 0 or unseen <= 0 or not q1 or not m:
            return 0.0
        return unseen * (1 - (1 - q1 / (m * unseen + q1)) ** queries)

    def at_least(self) -> int:
        """The lower bound the user reads: Chao2, rounded, never below the sites seen."""
        return max(self.observed, round(self.estimate))

    def sentence(self, backend: str) -> str:
        """The estimate as the user reads it."""
        return (
            f"found {self.observed} target sites; at least {self.at_least()} are reachable "
            f"through {backend} (lower bound; jackknife {self.jackknife:.0f}; sample "
            f"coverage {self.coverage:.0%}) after {self.queries} queries in all"
        )

    def to_json(self) -> dict[str, float | int]:
        return {
            "queries": self.queries,
            "observed": self.observed,
            "estimate": round(self.estimate, 2),
            "low": round(self.low, 2),
            "high": round(self.high, 2),
            "singletons": self.singletons,
            "doubletons": self.doubletons,
            "incidences": self.incidences,
            "at_least": self.at_least(),
            "jackknife": round(self.jackknife, 2),
            "sample_coverage": round(self.coverage, 4),
        }


def chao2(observed: int, q1: int, q2: int, m: int, incidences: int = 0) -> Estimate:
    """Chao2 with its 95% log-normal interval from the incidence counts (module
    docstring; `incidences`: the sum over the sites seen of the queries each was seen
    in). With no singleton the estimate is the observed count, and Chao's interval
    collapses; its upper bound is then S_obs + 1.96 sd with the variance Chao and Chiu
    give for f1 = 0, S_obs e^(-U/S_obs) (1 - e^(-U/S_obs)), U the incidences: the more
    often every site was seen, the narrower."""
    if m <= 0 or observed == 0:
        nothing = float(observed)
        return Estimate(max(m, 0), observed, nothing, nothing, nothing, q1, q2, incidences)
    a = (m - 1) / m
    estimate = observed + _unseen(q1, q2, a)
    if q1 == 0:
        gone = math.exp(-incidences / observed) if incidences else 1.0
        high = observed + Z95 * math.sqrt(observed * gone * (1 - gone))
        return Estimate(m, observed, estimate, observed, max(high, estimate), q1, q2, incidences)
    unseen = _unseen(q1, q2, a)
    variance = _variance(q1, q2, a, observed + unseen)
    if unseen <= 0 or variance <= 0:
        return Estimate(m, observed, estimate, observed, estimate, q1, q2, incidences)
    k = math.exp(Z95 * math.sqrt(math.log(1 + variance / unseen**2)))
    low = float(observed)  # the sites found exist: the interval starts there
    high = observed + unseen * k
    return Estimate(m, observed, estimate, low, max(high, estimate), q1, q2, incidences)


def _unseen(q1: int, q2: int, a: float) -> float:
    if q2 > 0:
        return a * q1 * q1 / (2 * q2)
    return a * q1 * (q1 - 1) / 2


def _variance(q1: int, q2: int, a: float, estimate: float) -> float:
    """Chao's variance of the estimate (Chao 1987; the Q2 = 0 form of Chao 2005)."""
    if q2 > 0:
        r = q1 / q2
        return q2 * (a / 2 * r**2 + a**2 * r**3 + a**2 / 4 * r**4)
    return (
        a * q1 * (q1 - 1) / 2
        + a**2 * q1 * (2 * q1 - 1) ** 2 / 4
        - a**2 * q1**4 / (4 * max(estimate, 1.0))
    )


@dataclass
class Incidence:
    """The target sites each answered query's results held, in query order.

    `add(results)` takes one query's results as (site, judged to be the target) pairs
    and returns how many target sites they brought that no earlier query had."""

    queries: int = 0
    seen: Counter[str] = field(default_factory=Counter)  # site -> queries it was a target in
    judged: Counter[str] = field(default_factory=Counter)  # site -> results seen
    targets: Counter[str] = field(default_factory=Counter)  # site -> results judged target
    last: set[str] = field(default_factory=set)  # the target sites of the last query

    def add(self, results: Iterable[tuple[str, bool]]) -> int:
        """A new query's results."""
        self.queries += 1
        self.last = set()
        return self.extend(results)

    def extend(self, results: Iterable[tuple[str, bool]]) -> int:
        """More results of the last query (its next page): one sample with its first."""
        before = self.target_sites()
        for site, target in results:
            self.judged[site] += 1
            if target:
                self.targets[site] += 1
                if site not in self.last:
                    self.last.add(site)
                    self.seen[site] += 1
        return len(self.target_sites() - before)

    def target_sites(self) -> set[str]:
        """Sites with a result judged target, and at least SITE_MIN_SHARE of theirs."""
        return {
            site for site in self.seen if self.targets[site] >= SITE_MIN_SHARE * self.judged[site]
        }

    def estimate(self) -> Estimate:
        counts = [self.seen[site] for site in self.target_sites()]
        q1 = sum(1 for n in counts if n == 1)
        q2 = sum(1 for n in counts if n == 2)
        return chao2(len(counts), q1, q2, self.queries, sum(counts))


STOP_RULES = ("extrapolation", "upper-bound", "none")


@dataclass(frozen=True)
class StopRule:
    """When a loop's search stage has seen enough (search.stop_rule, search.min_new_sites,
    search.saturation, search.min_queries, search.probe_queries). Both rules wait for at
    least `min_queries` queries answered in the loop (`probe` in a later loop, which
    starts from the estimate of the earlier ones), a target site seen, and the last
    `probe` queries bringing no new target site. Then:

    - "upper-bound" (the default): the sites seen are at least `share` of the upper
      bound of the estimate's 95% interval: even the pessimistic end says little is left;
    - "extrapolation": the queries the loop has left (`unspent`) are expected to bring
      fewer than `min_new` new target sites (Estimate.new_sites): what the rest of the
      budget can still buy.

    Why the upper bound is the default (measured, docs/search-backends.md): the
    extrapolation is bounded by Chao2's unseen sites, and on a long tail (most sites seen
    once, a few twice) Chao2 comes close to the sites seen while a quarter of the tail is
    still unseen; the extrapolation rule stopped there, with 8 of 128 tail sites unfound
    against the upper bound's 4, and on a large world it waits longer for the last sites
    that turn up once in a hundred queries. Neither closes while a relative's sites keep
    arriving as the target's: the loop's contrast (search.contrast_pages) is the cure.
    "none" (or `share` 0 with "upper-bound"): every query is spent."""

    share: float
    min_queries: int
    probe: int
    rule: str = "upper-bound"
    min_new: float = 0.5

    @property
    def on(self) -> bool:
        if self.rule == "extrapolation":
            return self.min_new > 0
        return self.rule == "upper-bound" and self.share > 0

    def saturated(
        self, estimate: Estimate, loop_queries: int, first_loop: bool, quiet: int, unspent: int = 0
    ) -> bool:
        """`quiet`: the loop's queries answered since the last that brought a new site;
        `unspent`: the queries the loop has left."""
        if not self.on or estimate.observed == 0:
            return False
        least = self.min_queries if first_loop else self.probe
        if loop_queries < least or quiet < self.probe:
            return False
        if self.rule == "extrapolation":
            return estimate.new_sites(unspent) < self.min_new
        return estimate.observed >= self.share * estimate.high
