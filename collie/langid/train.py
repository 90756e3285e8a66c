"""Training: n-gram counts per class, smoothing and calibration, new languages on top.

`train_model` counts every n-gram (orders 1-5 by default) of each class's training text.
Its calibration (the softmax temperature) is fitted on the class texts themselves, by
holding out every fifth paragraph of each class and scoring snippets of it with a model
counted from the other four fifths; nothing else is read. `variant="paper"` reproduces
CorpusCollie's model: each language is one training line listing its 400 most frequent
character trigrams, each once.

`add_language` adds (or replaces) one class of an existing model from the user's
documents, in seconds, keeping every other class's counts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import scipy.sparse as sp

from collie.errors import InputError
from collie.langid.features import ORDERS, hash_ngrams, prepare_texts
from collie.langid.model import LangModel

PAPER_TOP = 400
DEV_EVERY = 5  # every fifth paragraph of a class calibrates the temperature
SNIPPET_SIZES = (30, 60, 150, 400)
TEMPERATURES = np.geomspace(0.05, 20.0, 60)


def count_ngrams(texts: Sequence[str], orders: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """(distinct n-gram hashes, their counts) over a class's texts."""
    hashes, _ = hash_ngrams(prepare_texts(texts), tuple(orders))
    return np.unique(hashes, return_counts=True)


def count_classes(
    texts: Mapping[str, Sequence[str]], orders: Sequence[int], top: int | None = None
) -> tuple[list[str], np.ndarray, sp.csr_matrix]:
    """(codes, keys, counts matrix (keys x codes)); with `top`, each class keeps only its
    `top` most frequent n-grams, counted once (the paper's profile lines)."""
    codes = sorted(texts)
    all_keys: list[np.ndarray] = []
    all_counts: list[np.ndarray] = []
    columns: list[np.ndarray] = []
    for column, code in enumerate(codes):
        keys, counts = count_ngrams(texts[code], orders)
        if top is not None:
            best = np.lexsort((keys, -counts))[:top]
            keys, counts = keys[best], np.ones(best.size, np.int64)
        all_keys.append(keys)
        all_counts.append(counts)
        columns.append(np.full(keys.size, column, np.int32))
    stacked = np.concatenate(all_keys) if all_keys else np.zeros(0, np.uint64)
    keys, rows = np.unique(stacked, return_inverse=True)
    matrix = sp.csr_matrix(
        (np.concatenate(all_counts).astype(np.float32), (rows.ravel(), np.concatenate(columns))),
        shape=(keys.size, len(codes)),
    )
    return codes, keys, matrix


def train_model(
    texts: Mapping[str, Sequence[str]],
    *,
    variant: str = "default",
    alpha: float = 0.001,
    orders: Sequence[int] = ORDERS,
    calibrate: bool = True,
    meta: Mapping[str, object] | None = None,
) -> LangModel:
    """A model with one class per key of `texts` (code -> paragraphs)."""
    if variant not in ("default", "paper"):
        raise ValueError(f"unknown variant {variant!r}")
    if variant == "paper":
        orders, alpha = (3,), 0.5
    top = PAPER_TOP if variant == "paper" else None
    codes, keys, counts = count_classes(texts, orders, top)
    model = LangModel(
        codes=codes,
        keys=keys,
        counts=counts,
        sizes=[sum(len(p) for p in texts[c]) for c in codes],
        alpha=alpha,
        orders=tuple(orders),
        meta={"variant": variant, **(meta or {})},
    )
    if calibrate:
        model.temperature = fit_temperature(texts, variant=variant, alpha=alpha, orders=orders)
    return model


def cut_snippets(paragraphs: Sequence[str], size: int) -> list[str]:
    """Consecutive word-aligned snippets of at most `size` characters."""
    snippets: list[str] = []
    current = ""
    for word in " ".join(paragraphs).split():
        if current and len(current) + 1 + len(word) > size:
            snippets.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    if current:
        snippets.append(current)
    return snippets


def split_dev(paragraphs: Sequence[str]) -> tuple[list[str], list[str]]:
    """(fit part, calibration part): every DEV_EVERY-th paragraph calibrates."""
    fit = [p for i, p in enumerate(paragraphs) if i % DEV_EVERY != DEV_EVERY - 1]
    dev = [p for i, p in enumerate(paragraphs) if i % DEV_EVERY == DEV_EVERY - 1]
    return fit, dev


def fit_temperature(
    texts: Mapping[str, Sequence[str]], *, variant: str, alpha: float, orders: Sequence[int]
) -> float:
    """The temperature minimising the log loss on held-back snippets of the training text."""
    fit: dict[str, list[str]] = {}
    snippets: list[str] = []
    truth: list[int] = []
    for column, code in enumerate(sorted(texts)):
        fit[code], dev = split_dev(texts[code])
        for size in SNIPPET_SIZES:
            cut = cut_snippets(dev, size)[:3]
            snippets += cut
            truth += [column] * len(cut)
    model = train_model(fit, variant=variant, alpha=alpha, orders=orders, calibrate=False)
    scores, hits, _ = model.scores(snippets)
    scores = scores / np.sqrt(np.maximum(hits, 1))[:, None]
    target = np.asarray(truth)
    losses = [_log_loss(scores / t, target) for t in TEMPERATURES]
    return float(TEMPERATURES[int(np.argmin(losses))])


def _log_loss(logits: np.ndarray, target: np.ndarray) -> float:
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_norm = np.log(np.exp(shifted).sum(axis=1))
    return float(np.mean(log_norm - shifted[np.arange(target.size), target]))


def add_language(
    model: LangModel, code: str, paragraphs: Sequence[str], *, keep: bool = False
) -> LangModel:
    """`model` with class `code` counted from `paragraphs`: a new class, or one whose
    counts are replaced (or, with `keep`, added to)."""
    if not any(p.strip() for p in paragraphs):
        raise InputError(f"No text to learn {code} from.", "Give documents with text in it.")
    keys, counts = count_ngrams(paragraphs, model.orders)
    codes = list(model.codes)
    base = model.counts.tocsc()
    sizes = list(model.sizes)
    size = sum(len(p) for p in paragraphs)
    if code in codes:
        column = codes.index(code)
        if not keep:
            base.data[base.indptr[column] : base.indptr[column + 1]] = 0
        sizes[column] = size + (sizes[column] if keep else 0)
    else:
        column = len(codes)
        codes.append(code)
        sizes.append(size)
        base = sp.hstack([base, sp.csc_matrix((base.shape[0], 1), dtype=np.float32)]).tocsc()
    merged = np.union1d(model.keys, keys)
    old_rows = np.searchsorted(merged, model.keys)
    new_rows = np.searchsorted(merged, keys)
    coo = base.tocoo()
    rows = np.concatenate([old_rows[coo.row], new_rows])
    cols = np.concatenate([coo.col, np.full(new_rows.size, column)])
    data = np.concatenate([coo.data, counts.astype(np.float32)])
    matrix = sp.csr_matrix((data, (rows, cols)), shape=(merged.size, len(codes)))
    matrix.eliminate_zeros()
    meta = dict(model.meta)
    meta["added"] = [*meta.get("added", []), code]
    return LangModel(
        codes=codes,
        keys=merged,
        counts=matrix,
        sizes=sizes,
        alpha=model.alpha,
        temperature=model.temperature,
        orders=model.orders,
        meta=meta,
        threshold=model.threshold,
        min_chars=model.min_chars,
    )
