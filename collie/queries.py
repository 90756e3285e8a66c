"""Search queries: random combinations of seed words, never one already sent.

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


def combination_key(words: Iterable[str]) -> tuple[str, ...]:
    """The order-free identity of a combination of words."""
    return tuple(sorted(words))


def loop_rng(seed: int, loop: int) -> random.Random:
    """The random generator of one loop of one workspace."""
    return random.Random(f"collie:{seed}:{loop}")


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
