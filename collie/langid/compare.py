"""Comparison identifiers, for evaluation only (the pipeline never uses them).

Each is trained from the same texts as the bundled model (code -> paragraphs) and has
`identify_batch(texts) -> [(code, score)]`, so `collie langid eval --method ...` and
benchmarks/bench_langid.py measure them exactly like collie's maxent model.

- TextCat (Cavnar & Trenkle 1994, "N-gram-based text categorization"): a profile per
  language of its 400 most frequent character n-grams of orders 1-5 (words padded with
  "_"), ranked; a text's profile (its own top 400) is compared by the out-of-place
  distance (sum of rank differences, 400 for an n-gram missing from the language's
  profile); the nearest language wins.
- NFC (Hayati 2004, "Language identification on the World Wide Web"): character
  trigrams selected by their Fisher discriminant ratio over the relative trigram
  frequencies of the training paragraphs: per language, its NFC_PER_LANGUAGE trigrams
  of highest one-vs-rest ratio (mean difference squared over the summed variances),
  ~21,000 in all (so that every language has features; a single global ranking by
  between- over within-language variance scored the same); each language
  is the centroid of its paragraphs' vectors; a text goes to the language of highest
  cosine similarity.
- KN (AfriWeb-style): an interpolated Kneser-Ney smoothed character trigram model per
  language; a text goes to the language of highest log-likelihood.

Text is normalised the same way for all of them: NFC, lower-cased, runs of letters and
combining marks as words, everything else a separator.
"""

from __future__ import annotations

import math
import re
import sys
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache

import numpy as np
from scipy import sparse

PROFILE_SIZE = 400
MAX_ORDER = 5
NFC_PER_LANGUAGE = 50
NFC_MIN_DOCS = 2
UNDETERMINED = "und"


@lru_cache(maxsize=1)
def _separator() -> re.Pattern[str]:
    """Every character that is not a letter or a combining mark (ranges over Unicode)."""
    ranges: list[str] = []
    start = None
    for cp in range(sys.maxunicode + 1):
        keep = unicodedata.category(chr(cp))[0] in "LM"
        if not keep and start is None:
            start = cp
        elif keep and start is not None:
            ranges.append(_range(start, cp - 1))
            start = None
    if start is not None:
        ranges.append(_range(start, sys.maxunicode))
    return re.compile("[" + "".join(ranges) + "]+")


def _range(low: int, high: int) -> str:
    return re.escape(chr(low)) if low == high else f"{re.escape(chr(low))}-{re.escape(chr(high))}"


def words_of(text: str) -> list[str]:
    """Lower-cased NFC words: runs of letters and combining marks."""
    return _separator().sub(" ", unicodedata.normalize("NFC", text).lower()).split()


def char_ngrams(text: str, orders: Iterable[int]) -> Counter[str]:
    """Counts of character n-grams of each padded word `_word_`."""
    counts: Counter[str] = Counter()
    sizes = list(orders)
    for word in words_of(text):
        padded = f"_{word}_"
        for n in sizes:
            counts.update(padded[i : i + n] for i in range(max(0, len(padded) - n + 1)))
    if 1 in sizes:  # the padding alone is not a unigram of the text
        counts.pop("_", None)
    return counts


def top_ranked(counts: Counter[str], size: int = PROFILE_SIZE) -> list[str]:
    """The `size` most frequent n-grams, ties broken alphabetically (deterministic)."""
    return [g for g, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:size]]


class TextCat:
    """Cavnar-Trenkle out-of-place ranking over n-gram profiles."""

    def __init__(self, profiles: dict[str, list[str]], size: int = PROFILE_SIZE) -> None:
        self.codes = sorted(profiles)
        self.size = size
        self.index: dict[str, int] = {}
        rows, cols, ranks = [], [], []
        for lang, code in enumerate(self.codes):
            for rank, gram in enumerate(profiles[code][:size]):
                rows.append(self.index.setdefault(gram, len(self.index)))
                cols.append(lang)
                ranks.append(rank)
        shape = (len(self.index), len(self.codes))
        self.ranks = sparse.csr_matrix(
            (np.array(ranks, np.float32) + 1, (rows, cols)), shape=shape
        )  # rank + 1 so that rank 0 is stored

    @classmethod
    def train(cls, texts: dict[str, list[str]], size: int = PROFILE_SIZE) -> TextCat:
        profiles = {
            code: top_ranked(char_ngrams(" ".join(paragraphs), range(1, MAX_ORDER + 1)), size)
            for code, paragraphs in texts.items()
        }
        return cls(profiles, size)

    def distances(self, text: str) -> np.ndarray:
        """The out-of-place distance of `text` to every language (lower is nearer)."""
        grams = top_ranked(char_ngrams(text, range(1, MAX_ORDER + 1)), self.size)
        known = [(r, self.index[g]) for r, g in enumerate(grams) if g in self.index]
        total = np.full(len(self.codes), float(len(grams) * self.size))
        if not known:
            return total
        doc_ranks = np.array([r for r, _ in known], np.float32)
        sub = self.ranks[[i for _, i in known]]
        rows = np.repeat(np.arange(len(known)), np.diff(sub.indptr))
        gain = np.abs(sub.data - 1 - doc_ranks[rows]) - self.size  # vs. the missing penalty
        return total + np.bincount(sub.indices, weights=gain, minlength=len(self.codes))

    def identify_batch(self, texts: Sequence[str]) -> list[tuple[str, float]]:
        answers: list[tuple[str, float]] = []
        for text in texts:
            dist = self.distances(text)
            worst = float(dist.max())
            best = int(np.argmin(dist))
            if worst <= 0 or dist[best] == worst:
                answers.append((UNDETERMINED, 0.0))
            else:
                answers.append((self.codes[best], 1.0 - float(dist[best]) / worst))
        return answers


def _trigram_rows(texts: Sequence[str], index: dict[str, int], grow: bool) -> sparse.csr_matrix:
    """Trigram counts of each text (new trigrams added to `index` when `grow`)."""
    indptr, cols, vals = [0], [], []
    for text in texts:
        for gram, count in char_ngrams(text, (3,)).items():
            col = index.setdefault(gram, len(index)) if grow else index.get(gram)
            if col is not None:
                cols.append(col)
                vals.append(count)
        indptr.append(len(cols))
    return sparse.csr_matrix(
        (np.array(vals, np.float64), np.array(cols, np.int64), np.array(indptr, np.int64)),
        shape=(len(texts), len(index)),
    )


def _l1_rows(matrix: sparse.csr_matrix) -> sparse.csr_matrix:
    sums = np.asarray(matrix.sum(axis=1)).ravel()
    sums[sums == 0] = 1
    return sparse.csr_matrix(sparse.diags(1 / sums) @ matrix)


def class_sums(x: sparse.csr_matrix, labels: np.ndarray, classes: int) -> sparse.csr_matrix:
    """classes x features: the sum of the rows of each class."""
    n = x.shape[0]
    indicator = sparse.csr_matrix((np.ones(n), (labels, np.arange(n))), shape=(classes, n))
    sums = sparse.csr_matrix(indicator @ x)
    sums.sort_indices()
    return sums


def fisher_selection(
    x: sparse.csr_matrix, labels: np.ndarray, classes: int, per_class: int
) -> np.ndarray:
    """Columns chosen by one-vs-rest Fisher ratio: per class, the `per_class` features
    (more frequent in the class than outside it, seen in >= NFC_MIN_DOCS rows) with the
    highest (mean_class - mean_rest)^2 / (var_class + var_rest)."""
    n = x.shape[0]
    sizes = np.bincount(labels, minlength=classes).astype(np.float64)
    sums, squares = (
        class_sums(x, labels, classes),
        class_sums(x.multiply(x).tocsr(), labels, classes),
    )
    total, total_sq = (np.asarray(m.sum(axis=0)).ravel() for m in (x, x.multiply(x)))
    frequent = np.diff(x.tocsc().indptr) >= NFC_MIN_DOCS
    chosen: set[int] = set()
    for c in range(classes):
        lo, hi = sums.indptr[c], sums.indptr[c + 1]
        cols, s1, s2 = sums.indices[lo:hi], sums.data[lo:hi], squares.data[lo:hi]
        rest = max(n - sizes[c], 1.0)
        mean_c, mean_r = s1 / sizes[c], (total[cols] - s1) / rest
        var_c = s2 / sizes[c] - mean_c**2
        var_r = (total_sq[cols] - s2) / rest - mean_r**2
        ratio = (mean_c - mean_r) ** 2 / (np.maximum(var_c + var_r, 0) + 1e-8)
        ratio[(mean_c <= mean_r) | ~frequent[cols]] = -np.inf
        best = np.argsort(-ratio, kind="stable")[:per_class]
        chosen.update(int(col) for col in cols[best[np.isfinite(ratio[best])]])
    return np.array(sorted(chosen), dtype=np.int64)


class NFC:
    """Fisher-discriminant-selected trigrams, nearest centroid by cosine similarity."""

    def __init__(self, codes: list[str], features: list[str], centroids: np.ndarray) -> None:
        self.codes = codes
        self.index = {g: i for i, g in enumerate(features)}
        norms = np.linalg.norm(centroids, axis=1, keepdims=True)
        unit = centroids / np.where(norms == 0, 1, norms)
        self.weights = np.ascontiguousarray(unit.T, dtype=np.float32)  # features x classes

    @classmethod
    def train(cls, texts: dict[str, list[str]], per_class: int = NFC_PER_LANGUAGE) -> NFC:
        codes = sorted(texts)
        docs = [p for code in codes for p in texts[code]]
        labels = np.array([i for i, code in enumerate(codes) for _ in texts[code]])
        index: dict[str, int] = {}
        x = _l1_rows(_trigram_rows(docs, index, grow=True))
        chosen = fisher_selection(x, labels, len(codes), per_class)
        names = {i: g for g, i in index.items()}
        sizes = np.bincount(labels, minlength=len(codes))[:, None]
        centroids = class_sums(x[:, chosen].tocsr(), labels, len(codes)).toarray() / sizes
        return cls(codes, [names[int(i)] for i in chosen], centroids)

    def identify_batch(self, texts: Sequence[str]) -> list[tuple[str, float]]:
        if not texts:
            return []
        rows = _trigram_rows(texts, self.index, grow=False).astype(np.float32)
        norms = np.sqrt(np.asarray(rows.multiply(rows).sum(axis=1)).ravel())
        norms[norms == 0] = 1
        sims = (rows @ self.weights) / norms[:, None]  # same dtype: no copy of the weights
        best = sims.argmax(axis=1)
        return [
            (self.codes[b], float(sims[i, b])) if sims[i, b] > 0 else (UNDETERMINED, 0.0)
            for i, b in enumerate(best)
        ]


class KneserNey:
    """Interpolated Kneser-Ney character trigram models, one per language (AfriWeb-style).

    log P(c | ab) = log((n(abc) - D) / n(ab) + D N1+(ab.) / n(ab) * Pcont(c)) for a seen
    trigram, else log(D N1+(ab.) / n(ab)) + log Pcont(c) (contexts never seen: Pcont(c)
    alone); Pcont(c) = N1+(.c) / N1+(..), floored for unseen characters. Stored as
    sparse (trigram x language), (context x language) and (character x language) tables,
    so a batch is scored with three sparse matrix products.
    """

    DISCOUNT = 0.75

    def __init__(
        self,
        codes: list[str],
        indexes: tuple[dict[str, int], dict[str, int], dict[str, int]],
        tables: tuple[sparse.csr_matrix, sparse.csr_matrix, np.ndarray],
    ) -> None:
        self.codes = codes
        self.indexes = indexes
        self.tables = tables  # trigram delta, context backoff, character log Pcont

    @classmethod
    def train(cls, texts: dict[str, list[str]], discount: float = DISCOUNT) -> KneserNey:
        codes = sorted(texts)
        indexes: tuple[dict[str, int], dict[str, int], dict[str, int]] = ({}, {}, {})
        entries: tuple[list[tuple[int, int, float]], ...] = ([], [], [])
        floors = []
        for lang, code in enumerate(codes):
            tri, ctx, uni, floor = _kn_tables(texts[code], discount)
            floors.append(floor)
            for table, index, found in zip(entries, indexes, (tri, ctx, uni), strict=True):
                table += [(index.setdefault(k, len(index)), lang, v) for k, v in found.items()]
        shapes = [(len(i), len(codes)) for i in indexes]
        tri_t, ctx_t = (
            sparse.csr_matrix(
                ([v for _, _, v in e], ([r for r, _, _ in e], [c for _, c, _ in e])), shape=sh
            )
            for e, sh in zip(entries[:2], shapes[:2], strict=True)
        )
        chars = np.tile(np.array(floors), (shapes[2][0], 1))
        for row, lang, value in entries[2]:
            chars[row, lang] = value
        return cls(codes, indexes, (tri_t, ctx_t, chars))

    def log_likelihoods(self, texts: Sequence[str]) -> np.ndarray:
        """texts x languages log-likelihood of each text's trigrams."""
        rows: tuple[list[Counter[int]], ...] = ([], [], [])
        for text in texts:
            counts: tuple[Counter[int], ...] = (Counter(), Counter(), Counter())
            for gram, n in char_ngrams(text, (3,)).items():
                for key, index, found in zip(
                    (gram, gram[:2], gram[2]), self.indexes, counts, strict=True
                ):
                    if key in index:
                        found[index[key]] += n
            for row, found in zip(rows, counts, strict=True):
                row.append(found)
        tri_t, ctx_t, chars = self.tables
        return (
            _count_matrix(rows[0], tri_t.shape[0]) @ tri_t
            + _count_matrix(rows[1], ctx_t.shape[0]) @ ctx_t
            + _count_matrix(rows[2], chars.shape[0]) @ chars
        )

    def identify_batch(self, texts: Sequence[str]) -> list[tuple[str, float]]:
        if not texts:
            return []
        scores = np.asarray(self.log_likelihoods(texts))
        answers: list[tuple[str, float]] = []
        for row in scores:
            if not row.any():
                answers.append((UNDETERMINED, 0.0))
                continue
            probs = np.exp(row - row.max())
            best = int(np.argmax(row))
            answers.append((self.codes[best], float(probs[best] / probs.sum())))
        return answers


def _count_matrix(rows: list[Counter[int]], width: int) -> sparse.csr_matrix:
    indptr = np.cumsum([0] + [len(r) for r in rows])
    cols = [c for r in rows for c in r]
    vals = [v for r in rows for v in r.values()]
    return sparse.csr_matrix((vals, cols, indptr), shape=(len(rows), width))


def _kn_tables(
    paragraphs: list[str], discount: float
) -> tuple[dict[str, float], dict[str, float], dict[str, float], float]:
    """Per seen trigram: its log-prob minus the backoff estimate; per context: log
    backoff weight; per character: log continuation probability; the unseen floor."""
    tri = char_ngrams(" ".join(paragraphs), (3,))
    context: Counter[str] = Counter()
    followers: Counter[str] = Counter()
    for gram, count in tri.items():
        context[gram[:2]] += count
        followers[gram[:2]] += 1
    bigram_types = {g[1:] for g in tri}
    continuation = Counter(b[1] for b in bigram_types)
    types = max(1, len(bigram_types))
    floor = math.log(1.0 / (types + 1000.0))
    uni = {c: math.log(n / types) for c, n in continuation.items()}
    backoff = {c: math.log(discount * followers[c] / n) for c, n in context.items()}
    delta = {}
    for gram, count in tri.items():
        lower = math.exp(uni.get(gram[2], floor))
        n = context[gram[:2]]
        seen = math.log(max(count - discount, 0) / n + discount * followers[gram[:2]] / n * lower)
        delta[gram] = seen - backoff[gram[:2]] - math.log(lower)
    return delta, backoff, uni, floor


METHODS = ("maxent", "textcat", "nfc", "kn")


def train_comparison(method: str, texts: dict[str, list[str]]) -> TextCat | NFC | KneserNey:
    """A comparison identifier trained on `texts` (code -> paragraphs)."""
    if method == "textcat":
        return TextCat.train(texts)
    if method == "nfc":
        return NFC.train(texts)
    if method == "kn":
        return KneserNey.train(texts)
    raise ValueError(f"unknown comparison method {method!r}; choose one of textcat, nfc, kn")
