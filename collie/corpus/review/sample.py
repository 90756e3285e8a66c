"""The review sample, stratified: per site and per origin (a loop of `collie run`, or
`collie scan`), so that small sites, a scan's finds and every site label are judged too.

A stratum is a site's documents from one origin. The allocation is proportional to the
documents (Sainte-Laguë's divisors, so the rounding favours no size), after at least one
document per stratum where the sample is large enough (when it is not, the strata that
bring an origin or a site label not yet covered come first, then the largest), and with
a cap per site (SITE_CAP of the sample, raised only as far as the sample needs) so that
one big site cannot fill it. Labels are the site's (religious, multilingual, ...): a
site's strata carry them, so they never split a stratum. Deterministic for a seed.
"""

from __future__ import annotations

import heapq
import math
import random
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

SITE_CAP = 0.1  # the share of a sample one site may take (raised when the sample needs it)
SCAN = "scan"  # the origin of the documents `collie scan` found in web archives


def origin_name(loop: int, scanned: bool) -> str:
    """A document's origin: "loop N" for a run's loop, "scan" for a web archive's page."""
    return SCAN if scanned else f"loop {loop}"


@dataclass(frozen=True, order=True)
class Stratum:
    """A site's documents from one origin."""

    site: str
    origin: str


@dataclass(frozen=True)
class Candidate:
    """A corpus document the sample may draw."""

    doc_id: int
    site: str
    origin: str

    @property
    def stratum(self) -> Stratum:
        return Stratum(self.site, self.origin)


def site_cap(sizes: Mapping[Stratum, int], size: int) -> int:
    """Documents one site may give: SITE_CAP of the sample, or the least cap with which
    the sites can still fill the sample, whichever is larger."""
    per_site: Counter[str] = Counter()
    for stratum, count in sizes.items():
        per_site[stratum.site] += count
    cap = max(1, math.ceil(SITE_CAP * size))
    while sum(min(n, cap) for n in per_site.values()) < min(size, sum(per_site.values())):
        cap += 1
    return cap


def _coverage_order(
    sizes: Mapping[Stratum, int], labels: Mapping[str, Sequence[str]]
) -> list[Stratum]:
    """The strata in the order they get their one document when there are more strata
    than the sample holds: the largest stratum of each origin and of each site label
    first, then the rest, largest first."""
    by_size = sorted(sizes, key=lambda s: (-sizes[s], s))
    first: list[Stratum] = []
    covered: set[str] = set()
    for stratum in by_size:
        kinds = {f"origin:{stratum.origin}"} | {
            f"label:{name}" for name in labels.get(stratum.site, ())
        }
        if kinds - covered:
            first.append(stratum)
            covered |= kinds
    chosen = set(first)
    return first + [s for s in by_size if s not in chosen]


def allocate(
    sizes: Mapping[Stratum, int], size: int, labels: Mapping[str, Sequence[str]] | None = None
) -> dict[Stratum, int]:
    """How many documents each stratum gives to a sample of `size` (the module's rules);
    every stratum of the corpus when the sample is as large as the corpus."""
    sizes = {s: n for s, n in sizes.items() if n > 0}
    if size >= sum(sizes.values()):
        return dict(sizes)
    cap = site_cap(sizes, size)
    given = {stratum: 0 for stratum in sizes}
    per_site: Counter[str] = Counter()
    for stratum in _coverage_order(sizes, labels or {})[:size]:
        given[stratum] = 1
        per_site[stratum.site] += 1
    heap = [(-sizes[s] / (2 * given[s] + 1), s) for s in sizes]
    heapq.heapify(heap)
    left = size - sum(given.values())
    while left > 0 and heap:
        _, stratum = heapq.heappop(heap)
        if given[stratum] >= sizes[stratum] or per_site[stratum.site] >= cap:
            continue  # full: out of the draw
        given[stratum] += 1
        per_site[stratum.site] += 1
        left -= 1
        heapq.heappush(heap, (-sizes[stratum] / (2 * given[stratum] + 1), stratum))
    return given


def draw_sample(
    candidates: Sequence[Candidate],
    size: int,
    seed: int,
    labels: Mapping[str, Sequence[str]] | None = None,
) -> list[int]:
    """The sample's document ids, in the order the speaker sees them (shuffled, so that
    a site's documents do not come one after another): each stratum's allocation drawn
    at random from its documents."""
    members: dict[Stratum, list[int]] = defaultdict(list)
    for candidate in candidates:
        members[candidate.stratum].append(candidate.doc_id)
    given = allocate({s: len(ids) for s, ids in members.items()}, size, labels)
    rng = random.Random(seed)
    chosen = []
    for stratum in sorted(members):
        chosen += rng.sample(sorted(members[stratum]), given.get(stratum, 0))
    rng.shuffle(chosen)
    return chosen
