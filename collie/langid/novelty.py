"""The novelty test of a language learnt from the user's documents (open set).

A language learnt from a few thousand words is, for text of a close relative the model
has never seen, still the nearest class by far: the relative shares most of its n-grams.
But it shares fewer than the language's own text does. The test compares the share of a
text's character trigrams that the learnt column has seen (its coverage) with the
coverage of the user's own paragraphs, each left out in turn (and with it every
paragraph sharing half its 5-grams, so that repeated text does not inflate it):

    z = (coverage - c) / sqrt(c (1 - c) / trigrams)

with c the pooled leave-one-out coverage. A text taken for the learnt language whose z is
under the NOVELTY_QUANTILE quantile of the paragraphs' own z, minus NOVELTY_SLACK, is
`und`. The constants were chosen on other close pairs of the bundled data, each pair
removed from a model trained without some articles, the first language learnt from its
training articles, measured on its held-back articles and on the second's text
(langmodel/openset.py; Zulu and its relatives were not used).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

from collie.langid.features import hash_ngrams, prepare_texts

NOVELTY_ORDER = 3
NOVELTY_QUANTILE = 0.02
NOVELTY_SLACK = 2.0
DUPLICATE_ORDER = 5
DUPLICATE_SHARE = 0.5  # a paragraph sharing this share of 5-grams is left out too
MIN_FIT_CHARS = 80  # paragraphs shorter than this do not fit the test
MIN_FIT_PARAGRAPHS = 5


def column_keys(model: Any, code: str) -> np.ndarray:
    """The sorted n-gram hashes counted in any column of `code`."""
    columns = [i for i, c in enumerate(model.columns) if c.split("/", 1)[0] == code]
    totals = np.asarray(model.counts.tocsc()[:, columns].sum(axis=1)).ravel()
    return np.sort(model.keys[totals > 0])


def _incidence(texts: Sequence[str], order: int) -> tuple[np.ndarray, sp.csr_matrix]:
    """(distinct n-gram hashes, counts matrix (texts x hashes)) of one order."""
    hashes, text_of = hash_ngrams(prepare_texts(texts), (order,))
    keys, inverse = np.unique(hashes, return_inverse=True)
    matrix = sp.csr_matrix(
        (np.ones(hashes.size), (text_of, inverse.ravel())), shape=(len(texts), keys.size)
    )
    matrix.sum_duplicates()
    return keys, matrix


def _known(keys: np.ndarray, known: np.ndarray) -> np.ndarray:
    if not known.size:
        return np.zeros(keys.size, bool)
    where = np.minimum(np.searchsorted(known, keys), known.size - 1)
    return known[where] == keys


def coverage(known: np.ndarray, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """(share of each text's trigrams in `known`, trigrams per text)."""
    keys, matrix = _incidence(texts, NOVELTY_ORDER)
    coo = matrix.tocoo()
    hits = np.bincount(
        coo.row, weights=coo.data * _known(keys, known)[coo.col], minlength=len(texts)
    )
    sizes = np.asarray(matrix.sum(axis=1)).ravel()
    return hits / np.maximum(sizes, 1), sizes


def z_scores(shares: np.ndarray, sizes: np.ndarray, reference: float) -> np.ndarray:
    """How many binomial standard deviations each coverage lies from the reference."""
    spread = np.sqrt(max(reference * (1 - reference), 1e-6) / np.maximum(sizes, 1))
    return (shares - reference) / spread


def leave_one_out(model: Any, code: str, paragraphs: Sequence[str]) -> tuple[np.ndarray, ...]:
    """(coverage, trigrams) of each paragraph by `code`'s column without its own counts
    (nor those of the paragraphs repeating it)."""
    _, fives = _incidence(paragraphs, DUPLICATE_ORDER)
    present = (fives > 0).astype(np.float64)
    shared = (present @ present.T).toarray()
    own = np.maximum(np.diag(shared), 1)
    repeats = sp.csr_matrix(shared >= DUPLICATE_SHARE * own[:, None])
    keys, matrix = _incidence(paragraphs, NOVELTY_ORDER)
    columns = [i for i, c in enumerate(model.columns) if c.split("/", 1)[0] == code]
    totals = np.asarray(model.counts.tocsc()[:, columns].sum(axis=1)).ravel()
    where = np.minimum(np.searchsorted(model.keys, keys), model.keys.size - 1)
    counted = np.where(model.keys[where] == keys, totals[where], 0.0)
    coo = matrix.tocoo()
    removed = np.asarray((repeats @ matrix).tocsr()[coo.row, coo.col]).ravel()
    seen = counted[coo.col] - removed > 0
    hits = np.bincount(coo.row, weights=coo.data * seen, minlength=len(paragraphs))
    sizes = np.asarray(matrix.sum(axis=1)).ravel()
    return hits / np.maximum(sizes, 1), sizes


def fit_novelty(model: Any, code: str, paragraphs: Sequence[str]) -> dict[str, float] | None:
    """The test's reference coverage and minimum z for `code`, from its training
    paragraphs (None when fewer than MIN_FIT_PARAGRAPHS are long enough)."""
    long = [p for p in paragraphs if len(p) >= MIN_FIT_CHARS]
    if len(long) < MIN_FIT_PARAGRAPHS:
        return None
    shares, sizes = leave_one_out(model, code, long)
    reference = float(np.sum(shares * sizes) / max(np.sum(sizes), 1))
    scores = z_scores(shares, sizes, reference)
    return {
        "order": NOVELTY_ORDER,
        "coverage": reference,
        "min_z": float(np.quantile(scores, NOVELTY_QUANTILE) - NOVELTY_SLACK),
    }


def is_novel(known: np.ndarray, rule: dict[str, float], texts: Sequence[str]) -> np.ndarray:
    """True for the texts whose coverage by the learnt column is too low for its own."""
    shares, sizes = coverage(known, texts)
    return z_scores(shares, sizes, float(rule["coverage"])) < float(rule["min_z"])
