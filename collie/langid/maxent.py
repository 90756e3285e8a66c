"""The maxent layer: multinomial logistic regression over the naive Bayes evidence.

The naive Bayes counts (collie.langid.model) give each language a log-likelihood score;
the maxent layer turns them into probabilities. Its features are, per language, how
close its score comes to the best one: with s_c the best score of a column of code c,

    x_c = max(0, MARGIN + (s_c - max_k s_k) / sqrt(known n-grams))

(zero for every language far from the best), and its weights are a multinomial logistic
regression trained with scikit-learn (`LogisticRegression`, lbfgs) on held-out evidence:
the training articles are split into FOLDS folds by article number (the heading and
preamble always on the training side, so that one article's translations are on one side
for every language, as articles 21-30 are); naive Bayes counted from the other folds
scores snippets (50, 150 characters, 400 bytes) cut from each fold. The layer learns a
bias per language and how the closeness of one language speaks for or against another
(Bosnian close behind Croatian...), and calibrates the probabilities for the `und`
threshold. At run time it is two plain arrays (weights, codes x codes, and biases).

A language added later (`collie langid train`) gets the median diagonal weight and bias
of the trained ones, and no cross weights.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

FOLDS = 5
MARGIN = 3.0  # the closeness feature is zero for scores this far below the best
REGULARISATION = 10.0  # LogisticRegression's C
SNIPPET_SEEDS = (1, 2)  # heldout_snippets draws 10 per band and seed
MAX_ITER = 300
# Snippets with a single close language (~91%) say little beyond that language's bias:
# one in SINGLE_WEIGHT is kept, with that weight (5x faster training, same dev accuracy).
SINGLE_WEIGHT = 10.0
ROUNDS = 8  # `Stacker.logits` without scipy when no text is close to more codes

Articles = Mapping[str, Sequence[tuple[int, str]]]


@dataclass
class Stacker:
    """The layer's arrays: logits = features @ weights + bias."""

    weights: np.ndarray  # float32 (codes, codes): feature of code i -> logit of code j
    bias: np.ndarray  # float32 (codes,)
    margin: float = MARGIN

    def logits(self, evidence: np.ndarray) -> np.ndarray:
        """Logits (n, codes) from the evidence (n, codes) of `closeness`."""
        features = np.maximum(evidence + np.float32(self.margin), 0, dtype=np.float32)
        rows, cols = np.nonzero(features)  # a few a text: the codes close to the best
        values = features[rows, cols]
        if rows.size and np.bincount(rows).max() > ROUNDS:  # texts close to many codes
            sparse = sp.csr_matrix((values, (rows, cols)), shape=features.shape)
            return np.asarray(sparse @ self.weights) + self.bias
        logits = np.tile(self.bias, (len(features), 1))
        # Each text's rows of the weights, scaled and summed, one entry a text per round
        # (rows come sorted): no scipy matrix, whose construction costs more than this
        # for a single text, and no reduceat (slow along the first axis).
        left = np.arange(rows.size)
        while left.size:
            first = np.r_[True, rows[left[1:]] != rows[left[:-1]]]
            take = left[first]
            logits[rows[take]] += self.weights[cols[take]] * values[take, None]
            left = left[~first]
        return logits

    def remapped(self, old: Sequence[str], new: Sequence[str]) -> Stacker:
        """This layer for the codes `new` (the codes `old` kept, others added): an added
        code gets the median self-weight and bias of the trained ones, no cross weights."""
        where = {code: i for i, code in enumerate(old)}
        kept = [(j, where[code]) for j, code in enumerate(new) if code in where]
        to_new = np.array([j for j, _ in kept], np.int64)
        from_old = np.array([i for _, i in kept], np.int64)
        weights = np.zeros((len(new), len(new)), np.float32)
        weights[np.ix_(to_new, to_new)] = self.weights[np.ix_(from_old, from_old)]
        bias = np.full(len(new), np.median(self.bias), np.float32)
        bias[to_new] = self.bias[from_old]
        added = np.array([j for j, code in enumerate(new) if code not in where], np.int64)
        weights[added, added] = float(np.median(np.diag(self.weights)))
        return Stacker(weights, bias, self.margin)


def closeness(code_scores: np.ndarray, hits: np.ndarray) -> np.ndarray:
    """(s_c - max s) / sqrt(known n-grams): the evidence the layer reads, float32."""
    shifted = code_scores - code_scores.max(axis=1, keepdims=True)
    return (shifted / np.sqrt(np.maximum(hits, 1))[:, None]).astype(np.float32)


def article_folds(
    articles: Articles, folds: int = FOLDS
) -> list[tuple[dict[str, list[str]], dict[str, list[str]]]]:
    """(training texts, held-out texts) per fold; fold k holds the articles n % folds == k."""
    result = []
    for fold in range(folds):
        fit = {c: [p for n, p in ps if n == 0 or n % folds != fold] for c, ps in articles.items()}
        held = {c: [p for n, p in ps if n > 0 and n % folds == fold] for c, ps in articles.items()}
        result.append((fit, held))
    return result


Evidence = Callable[[Mapping[str, Sequence[str]], Sequence[str]], tuple[np.ndarray, list[str]]]


def fold_evidence(
    articles: Articles, codes: Sequence[str], evidence: Evidence, folds: int = FOLDS
) -> tuple[np.ndarray, np.ndarray]:
    """(evidence (n, codes), gold code numbers) of snippets of every fold, each scored
    by a model trained without it (a key "code/column" of `articles` is text of code
    for a column of its own). `evidence(training texts, snippets)` returns the
    closeness of each snippet to the codes of that model, and those codes."""
    from collie.langid.evaluate import heldout_snippets

    position = {code: i for i, code in enumerate(codes)}
    position |= {key: position[key.split("/", 1)[0]] for key in articles if "/" in key}
    parts: list[np.ndarray] = []
    gold: list[int] = []
    for fit, held in article_folds(articles, folds):
        snippets = [s for seed in SNIPPET_SEEDS for s in heldout_snippets(held, seed=seed)]
        snippets = [s for s in snippets if fit.get(s.code)]
        found, fold_codes = evidence(
            {c: t for c, t in fit.items() if t}, [s.text for s in snippets]
        )
        full = np.full((len(snippets), len(codes)), -1e4, np.float32)
        full[:, [position[c] for c in fold_codes]] = found
        parts.append(full)
        gold += [position[s.code] for s in snippets]
    return np.vstack(parts), np.asarray(gold)


def train_stacker(
    evidence: np.ndarray,
    gold: np.ndarray,
    codes: int,
    *,
    margin: float = MARGIN,
    regularisation: float = REGULARISATION,
) -> Stacker:
    """The layer, fitted by scikit-learn's multinomial LogisticRegression (lbfgs)."""
    from sklearn.linear_model import LogisticRegression

    dense = np.maximum(evidence + np.float32(margin), 0, dtype=np.float32)
    single = np.count_nonzero(dense, axis=1) <= 1
    keep = ~single | (np.random.default_rng(0).random(len(gold)) < 1 / SINGLE_WEIGHT)
    clf = LogisticRegression(C=regularisation, max_iter=MAX_ITER, tol=1e-4)
    clf.fit(
        sp.csr_matrix(dense[keep]),
        gold[keep],
        sample_weight=np.where(single, SINGLE_WEIGHT, 1.0)[keep],
    )
    weights = np.zeros((codes, codes), np.float32)
    bias = np.full(codes, -30.0, np.float32)  # a code without training snippets: never
    weights[:, clf.classes_] = clf.coef_.T
    bias[clf.classes_] = clf.intercept_
    return Stacker(weights, bias, margin)
