"""Seed selection by odds ratio over 1,000,000 + 1,000,000 words (target: < 5 s, one core).

The target text mixes ASCII words, non-ASCII letters (ɛ, ŋ) and, in one document in ten,
combining marks, so every tokeniser path is measured. Baseline, same data, same run: the
scikit-learn way (CountVectorizer document-term matrices, odds ratio vectorised in numpy;
its default tokeniser splits Dholuo `ng'ato` and drops combining marks, so it does less
work than collie's).

    python benchmarks/bench_seeds.py
"""

from __future__ import annotations

import os
import random
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np
from sklearn.feature_extraction.text import CountVectorizer

from collie.search.seeds import count_tokens, odds_ratio_seeds, packaged_safetynet

WORDS = 1_000_000
DOC_WORDS = 500


def vocabulary(rng: random.Random, size: int, apostrophes: bool) -> list[str]:
    syllables = [c + v for c in "bcdghjklmnprstwy" for v in "aeiou"]
    words = set()
    while len(words) < size:
        word = "".join(rng.choice(syllables) for _ in range(rng.randint(1, 4)))
        if apostrophes and rng.random() < 0.1:
            word = "ng'" + word
        if apostrophes and rng.random() < 0.15:  # non-ASCII letters, as in Nilotic spelling
            word = word.replace("e", "ɛ").replace("n", "ŋ")
        words.add(word)
    return sorted(words)


def corpus(rng: random.Random, vocab: list[str], words: int) -> list[str]:
    weights = [1 / (rank + 1) for rank in range(len(vocab))]  # Zipf
    tokens = rng.choices(vocab, weights=weights, k=words)
    docs = [" ".join(tokens[i : i + DOC_WORDS]) for i in range(0, words, DOC_WORDS)]
    # one document in ten carries a combining mark (tone marks): the slower token path
    return [d + " kwa\u0301" if i % 10 == 0 else d for i, d in enumerate(docs)]


def ours(target: list[str], wrong: list[str]) -> list[str]:
    seeds = odds_ratio_seeds(count_tokens(target), count_tokens(wrong), 400, "luo")
    return [s.word for s in seeds.words]


def baseline(target: list[str], wrong: list[str]) -> list[str]:
    vectorizer = CountVectorizer()
    matrix = vectorizer.fit_transform(target + wrong)
    right = np.asarray(matrix[: len(target)].sum(axis=0)).ravel()
    wrong_counts = np.asarray(matrix[len(target) :].sum(axis=0)).ravel()
    docs = np.asarray((matrix[: len(target)] > 0).sum(axis=0)).ravel()
    v = len(right)
    p_r = (right + 0.5) / (right.sum() + 0.5 * v)
    p_w = (wrong_counts + 0.5) / (wrong_counts.sum() + 0.5 * v)
    score = np.log2(p_r * (1 - p_w) / ((1 - p_r) * p_w))
    score[(right < 2) | (docs < 2)] = -np.inf
    order = np.argsort(-score)[:400]
    names = vectorizer.get_feature_names_out()
    return [str(names[i]) for i in order]


def timed(func, *args):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    result = func(*args)
    return time.perf_counter() - start, result


def main() -> None:
    rng = random.Random(42)
    shared = vocabulary(rng, 5_000, apostrophes=False)
    target = corpus(rng, shared[:2_500] + vocabulary(rng, 40_000, apostrophes=True), WORDS)
    wrong = corpus(rng, shared + vocabulary(rng, 40_000, apostrophes=False), WORDS)
    packaged_safetynet()  # loaded once per process, as in a run
    t_ours, seeds = timed(ours, target, wrong)
    t_base, _ = timed(baseline, target, wrong)
    print(f"odds-ratio seed selection, {WORDS:,} target + {WORDS:,} wrong-language words")
    print(
        f"  collie (count_tokens + odds_ratio_seeds + safetynet): {t_ours:6.2f} s"
        f"  -> {len(seeds)} seeds  (target < 5 s: {'met' if t_ours < 5 else 'MISSED'})"
    )
    print(f"  baseline (sklearn CountVectorizer + numpy):          {t_base:6.2f} s")
    print(f"  ratio baseline/collie: {t_base / t_ours:.2f}x")


if __name__ == "__main__":
    main()
