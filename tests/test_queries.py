"""Query generation: random, reproducible, never repeating a combination."""

from __future__ import annotations

import math
from itertools import combinations

from collie.languages import get_language
from collie.search.queries import (
    GENERIC_DOMAINS,
    combination_key,
    generate_combinations,
    loop_rng,
    query_domains,
)

SEEDS = [f"word{i}" for i in range(30)]


def test_same_seed_same_queries_other_seed_other_queries() -> None:
    first = generate_combinations(SEEDS, 50, 3, loop_rng(7, 1))
    assert first == generate_combinations(SEEDS, 50, 3, loop_rng(7, 1))
    assert first != generate_combinations(SEEDS, 50, 3, loop_rng(8, 1))
    assert first != generate_combinations(SEEDS, 50, 3, loop_rng(7, 2))


def test_no_combination_repeats_across_loops() -> None:
    used: set[tuple[str, ...]] = set()
    for loop in (1, 2, 3):
        batch = generate_combinations(SEEDS, 400, 3, loop_rng(1, loop), used)
        keys = {combination_key(c) for c in batch}
        assert len(keys) == len(batch) == 400
        assert not keys & used
        assert all(len(set(c)) == 3 for c in batch)
        used |= keys


def test_order_does_not_make_a_new_combination() -> None:
    used = {("b", "c", "a")}
    batch = generate_combinations(["a", "b", "c", "d"], 10, 3, loop_rng(1, 1), used)
    assert len(batch) == math.comb(4, 3) - 1
    assert ("a", "b", "c") not in {combination_key(c) for c in batch}


def test_exhaustion_returns_what_is_left() -> None:
    pool = ["a", "b", "c", "d", "e"]
    everything = set(combinations(pool, 3))
    assert generate_combinations(pool, 5, 3, loop_rng(1, 1), everything) == []
    assert generate_combinations(pool, 100, 3, loop_rng(1, 1)) != []
    assert len(generate_combinations(pool, 100, 3, loop_rng(1, 1))) == 10
    assert generate_combinations(["a", "b"], 5, 3, loop_rng(1, 1)) == []


def test_sampling_branch_for_large_seed_lists() -> None:
    seeds = [f"w{i}" for i in range(400)]  # C(400, 3) is far above the enumeration limit
    batch = generate_combinations(seeds, 400, 3, loop_rng(3, 1))
    assert len({combination_key(c) for c in batch}) == 400
    assert batch == generate_combinations(seeds, 400, 3, loop_rng(3, 1))


def test_domains() -> None:
    luo = get_language("luo")
    assert query_domains(luo, [], "off") == []
    assert query_domains(luo, ["tz", ".UG"], "auto") == [".ke", ".tz", ".ug", *GENERIC_DOMAINS]


def test_bandit_draws_words_that_paid_more_often() -> None:
    import random

    from collie.search.queries import WordBandit, combination_key

    words = [f"w{i}" for i in range(12)]
    prior = {"w0": (9, 1), "w1": (8, 2), "w11": (0, 10)}
    bandit = WordBandit(words, prior, used=[("w0", "w1", "w2")])
    drawn = [bandit.draw(3, random.Random(i)) for i in range(40)]
    assert all(d is not None and len(set(d)) == 3 for d in drawn)
    keys = [combination_key(d) for d in drawn if d is not None]
    assert len(set(keys)) == len(keys) and ("w0", "w1", "w2") not in keys  # never twice
    count = {w: sum(w in k for k in keys) for w in words}
    assert count["w0"] > 2 * count["w11"] and count["w1"] > 2 * count["w11"]
    assert all(count[w] for w in words[2:11])  # untried words still drawn


def test_bandit_runs_out_like_the_random_draw() -> None:
    import random

    from collie.search.queries import WordBandit

    bandit = WordBandit(["a", "b", "c", "d"], {"a": (1, 0)})
    rng = random.Random(1)
    drawn = {tuple(sorted(d)) for _ in range(4) if (d := bandit.draw(3, rng)) is not None}
    assert len(drawn) == 4 and bandit.draw(3, rng) is None and bandit.draw(5, rng) is None
