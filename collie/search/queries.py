"""Search queries: combinations of seed words, never one already sent; random, or
drawn by the seed words' yields so far (`WordBandit`).

A combination is a set of words: `thuolo piny ng'ato` and `piny thuolo ng'ato` are the same
combination and only one of them is ever sent from a workspace. The random generator is
seeded from the workspace's seed (`run.seed`, chosen at init) and the loop number, so the
same workspace state gives the same queries.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from itertools import combinations

from collie.languages import Language

GENERIC_DOMAINS = (".com", ".org", ".net", ".info", ".biz")
# Below this many possible combinations, enumerate them all instead of sampling.
ENUMERATE_BELOW = 200_000
BANDIT_ATTEMPTS = 20  # Thompson draws before falling back to a uniform random combination


def combination_key(words: Iterable[str]) -> tuple[str, ...]:
    """The order-free identity of a combination of words."""
    return tuple(sorted(words))


def loop_rng(seed: int, loop: int, position: int | None = None) -> random.Random:
    """The random generator of one loop of one workspace (or of one query's draw in it)."""
    if position is None:
        return random.Random(f"collie:{seed}:{loop}")
    return random.Random(f"collie:{seed}:{loop}:{position}")


def generate_combinations(
    seeds: Sequence[str],
    count: int,
    words: int,
    rng: random.Random,
    used: Iterable[tuple[str, ...]] = (),
) -> list[tuple[str, ...]]:
    """Up to `count` new random combinations of `words` seed words each.

    Never returns a combination in `used` (or twice); returns fewer when the seed list
    allows no more. Words keep the order in which they were drawn.
    """
    pool = sorted(set(seeds))
    if words < 1 or len(pool) < words or count < 1:
        return []
    taken = {combination_key(c) for c in used}
    possible = math.comb(len(pool), words)
    if possible - len(taken) <= 0:
        return []
    if possible <= ENUMERATE_BELOW:
        fresh = [c for c in combinations(pool, words) if c not in taken]
        picked = rng.sample(fresh, min(count, len(fresh)))
        return [tuple(rng.sample(c, len(c))) for c in picked]
    result: list[tuple[str, ...]] = []
    attempts = 0
    while len(result) < count and attempts < 50 * count:
        attempts += 1
        drawn = tuple(rng.sample(pool, words))
        key = combination_key(drawn)
        if key not in taken:
            taken.add(key)
            result.append(drawn)
    return result


def query_domains(language: Language, extra: Sequence[str], mode: str) -> list[str]:
    """Domain extensions to restrict queries to: none when mode is "off"; with "auto",
    the language's country domains, the workspace's extra ones and the generic ones."""
    if mode != "auto":
        return []
    domains: list[str] = []
    for domain in [*language.domains(), *extra, *GENERIC_DOMAINS]:
        domain = "." + domain.strip().lstrip(".").lower()
        if domain != "." and domain not in domains:
            domains.append(domain)
    return domains


class WordBandit:
    """Seed words drawn by how well their queries did (Thompson sampling).

    A word's yield is believed to be Beta(1 + hits, 1 + misses): a hit is a query with
    the word that brought a target document (in an earlier loop), a miss one that
    brought none. (Rewarding URLs new to the search within a loop instead was tried: on
    the news world with relatives it drew the words the relatives share and the corpus
    precision fell from 0.99 to 0.53; see benchmarks/bench_search.py.) A query is the `words`
    seed words whose sampled yields are highest, so words that paid are drawn more
    often and untried words keep a fair chance; a combination already used is never
    drawn again. The generators are the loop's, so the same answers give the same queries.
    """

    def __init__(
        self,
        seeds: Sequence[str],
        prior: dict[str, tuple[int, int]] | None = None,
        used: Iterable[tuple[str, ...]] = (),
    ) -> None:
        self.words = sorted(set(seeds))
        self.hits = {w: 0 for w in self.words}
        self.misses = {w: 0 for w in self.words}
        for word, (hits, misses) in (prior or {}).items():
            if word in self.hits:
                self.hits[word], self.misses[word] = hits, misses
        self.taken = {combination_key(c) for c in used}

    def draw(self, words: int, rng: random.Random) -> tuple[str, ...] | None:
        """A new combination of `words` words, or None when the seed list allows no more.
        `rng`: the draw's own generator (one per position in the loop, so a resumed loop
        draws what the uninterrupted one would have)."""
        if words < 1 or len(self.words) < words:
            return None
        for _ in range(BANDIT_ATTEMPTS):
            sampled = {w: rng.betavariate(1 + self.hits[w], 1 + self.misses[w]) for w in self.words}
            drawn = tuple(sorted(self.words, key=lambda w: -sampled[w])[:words])
            if combination_key(drawn) not in self.taken:
                self.taken.add(combination_key(drawn))
                return tuple(rng.sample(drawn, len(drawn)))
        fallback = generate_combinations(self.words, 1, words, rng, self.taken)
        if not fallback:
            return None
        self.taken.add(combination_key(fallback[0]))
        return fallback[0]
