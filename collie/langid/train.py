"""Training: n-gram counts per class, smoothing and calibration, new languages on top.

`train_model` counts every n-gram (orders 1-5 by default) of each class's training text.
Its calibration (the softmax temperature and the power of the length in the scaling) is
fitted on the class texts themselves, by holding out every fifth paragraph of each class
and scoring snippets of it with a model counted from the other four fifths; nothing
else is read. `variant="paper"` reproduces
CorpusCollie's model: each language is one training line listing its 400 most frequent
character trigrams, each once.

`add_language` adds (or replaces) one class of an existing model from the user's
documents, in seconds, keeping every other class's counts.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from functools import partial

import numpy as np
import scipy.sparse as sp

from collie.errors import InputError
from collie.langid import unknown
from collie.langid.features import ORDERS, hash_ngrams, prepare_texts
from collie.langid.maxent import (
    MARGIN,
    REGULARISATION,
    SNIPPET_SEEDS,
    article_folds,
    closeness,
    fold_evidence,
    train_stacker,
)
from collie.langid.model import ALPHA, REAL_TEXT, LangModel, column_code

PAPER_TOP = 400
MIN_COUNT = 3
DEV_EVERY = 5  # every fifth paragraph of a class calibrates the temperature
SNIPPET_SIZES = (50, 150, 400)
TEMPERATURES = np.geomspace(0.05, 20.0, 60)
POWERS = (0.5,)  # measured: fitting it too (0.3-1.0) lowered accuracy at the 0.5 threshold


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


# Scripts written together as one system: Japanese mixes kanji and kana in every line.
SCRIPT_FAMILY = {"HIRAGANA": "CJK", "KATAKANA": "CJK"}
# A script with less than this share of a class's characters gets no column of its own:
# the Latin-script names of a Japanese news sentence are not a Latin Japanese.
MIN_SCRIPT_SHARE = 0.1


def script_of(paragraph: str) -> str:
    """The Unicode script of most of a paragraph's first 200 letters ("" if none)."""
    scripts = Counter(
        unicodedata.name(ch, "?").split(" ", 1)[0] for ch in paragraph[:400] if ch.isalpha()
    )
    script = scripts.most_common(1)[0][0] if scripts else ""
    return SCRIPT_FAMILY.get(script, script)


def split_scripts(code: str, paragraphs: Sequence[str]) -> dict[str, list[str]]:
    """Column label -> paragraphs: `code`, or `code/SCRIPT` per script when it has several.

    A language written in two scripts (srp, uzn, zlm...) gets one column per script, so
    that its Latin n-grams are not diluted by its Cyrillic text; the model sums them."""
    by_script: dict[str, list[str]] = {}
    for paragraph in paragraphs:
        script = script_of(paragraph)
        if script:
            by_script.setdefault(script, []).append(paragraph)
    sizes = {script: sum(map(len, texts)) for script, texts in by_script.items()}
    main = max(sizes, key=lambda script: (sizes[script], script), default="")
    for script in [s for s, size in sizes.items() if size < MIN_SCRIPT_SHARE * sum(sizes.values())]:
        by_script[main] += by_script.pop(script)  # a minor script joins the main one
    if len(by_script) <= 1:
        return {code: [p for p in paragraphs if p.strip()]}
    return {f"{code}/{script}": texts for script, texts in sorted(by_script.items())}


def column_script(paragraphs: Sequence[str]) -> str:
    """The script of most of a column's text (by characters)."""
    sizes: Counter[str] = Counter()
    for paragraph in paragraphs:
        sizes[script_of(paragraph)] += len(paragraph)
    sizes.pop("", None)
    return max(sorted(sizes), key=lambda s: sizes[s], default="")


def register_of(label: str) -> str | None:
    """A column label's real-text register ("cmn/news" -> news), None for the UDHR's."""
    parts = label.split("/")
    return parts[1] if len(parts) > 1 and parts[1] in REAL_TEXT else None


def describe_columns(
    meta: dict[str, object], columns_texts: Mapping[str, Sequence[str]], register: str | None = None
) -> None:
    """Record each column's script and real-text register (`register`, else read from
    its label) in `meta` ("scripts", "registers": collie.langid.model.LangModel.lend_gain)."""
    scripts = dict(meta.get("scripts", {}))  # type: ignore[call-overload]
    registers = dict(meta.get("registers", {}))  # type: ignore[call-overload]
    for label, texts in columns_texts.items():
        scripts[label] = column_script(texts)
        kind = register or register_of(label)
        if kind:
            registers[label] = kind
        else:
            registers.pop(label, None)
    meta["scripts"] = dict(sorted(scripts.items()))
    meta["registers"] = dict(sorted(registers.items()))


def train_model(
    texts: Mapping[str, Sequence[str]],
    *,
    variant: str = "default",
    alpha: float = ALPHA,
    orders: Sequence[int] = ORDERS,
    calibrate: bool = True,
    min_count: int = MIN_COUNT,
    meta: Mapping[str, object] | None = None,
) -> LangModel:
    """A model with one class per key of `texts` (code -> paragraphs); `calibrate` fits
    the temperature on held-back training paragraphs. N-grams seen fewer than
    `min_count` times in all the text are left out (they hurt, measured on held-back
    training paragraphs, and cost memory)."""
    if variant not in ("default", "paper"):
        raise ValueError(f"unknown variant {variant!r}")
    if variant == "paper":
        orders, alpha = (3,), 0.5
        columns_texts = {code: list(texts[code]) for code in sorted(texts)}
    else:
        columns_texts = {}
        for code in sorted(texts):
            columns_texts.update(split_scripts(code, texts[code]))
    top = PAPER_TOP if variant == "paper" else None
    columns, keys, counts = count_classes(columns_texts, orders, top)
    if variant == "default" and min_count > 1:
        frequent = np.asarray(counts.sum(axis=1)).ravel() >= min_count
        keys, counts = keys[frequent], counts[frequent]
    described: dict[str, object] = {"variant": variant, **(meta or {})}
    if variant == "default":
        describe_columns(described, columns_texts)
    model = LangModel(
        columns=columns,
        keys=keys,
        counts=counts,
        sizes=[sum(len(p) for p in columns_texts[c]) for c in columns],
        alpha=alpha,
        orders=tuple(orders),
        meta=described,
    )
    if calibrate:
        model.temperature, model.power = fit_temperature(
            texts, variant=variant, alpha=alpha, orders=orders
        )
    return model


def train_stacked(
    articles: Mapping[str, Sequence[tuple[int, str]]],
    *,
    meta: Mapping[str, object] | None = None,
    regularisation: float = REGULARISATION,
    margin: float = MARGIN,
    orders: Sequence[int] = ORDERS,
    alpha: float = ALPHA,
    min_count: int = MIN_COUNT,
) -> LangModel:
    """Naive Bayes counts of all the training text (code -> (article, paragraph)), with
    the maxent layer fitted on held-out evidence of article folds (collie.langid.maxent)."""
    texts = {code: [p for _, p in numbered] for code, numbered in articles.items()}
    count = partial(train_model, orders=orders, alpha=alpha, min_count=min_count)
    model = count(texts, meta=meta)

    def evidence(
        fit: Mapping[str, Sequence[str]], snippets: Sequence[str]
    ) -> tuple[np.ndarray, list[str]]:
        fold = count(fit, calibrate=False)
        scores, hits, _ = fold.scores(snippets)
        return closeness(fold.code_scores(scores, hits), hits), fold.codes

    found, gold = fold_evidence(articles, model.codes, evidence)
    model.stacker = train_stacker(
        found, gold, len(model.codes), margin=margin, regularisation=regularisation
    )
    rule = calibrate_unknown(articles, count)
    if rule:
        model.meta["unknown"] = rule
    return model


def calibrate_unknown(
    articles: Mapping[str, Sequence[tuple[int, str]]], count: Callable[..., LangModel]
) -> dict[str, object]:
    """The open-set rule (collie.langid.unknown): a model counted from the articles of
    every fold but the first scores snippets of the first; each snippet's lift for its
    own language calibrates that language at the snippet's length."""
    from collie.langid.evaluate import BANDS, heldout_snippets

    fit_texts, held = article_folds(articles)[0]
    fold = count({c: t for c, t in fit_texts.items() if t}, calibrate=False)
    snippets = [s for seed in SNIPPET_SEEDS for s in heldout_snippets(held, seed=seed)]
    position = {code: i for i, code in enumerate(fold.codes)}
    snippets = [s for s in snippets if column_code(s.code) in position]
    if not snippets:
        return {}
    gold = np.array([position[column_code(s.code)] for s in snippets])
    bands = [b.name for b in BANDS]
    band = np.array([bands.index(s.band) for s in snippets])
    lifts, hits = [], []
    for start in range(0, len(snippets), 256):
        batch = [s.text for s in snippets[start : start + 256]]
        scores, batch_hits, _, background = fold._raw_scores(batch)
        lifts.append(fold.lift_of(scores, batch_hits, background, gold[start : start + 256]))
        hits.append(batch_hits)
    rule = unknown.calibrate(
        fold.codes, gold, bands, band, np.concatenate(lifts), np.concatenate(hits)
    )
    if rule:
        fit_by_code: dict[str, list[str]] = {}
        for key, texts in fit_texts.items():
            fit_by_code.setdefault(column_code(key), []).extend(texts)
        full_by_code: dict[str, list[str]] = {}
        for key, numbered in articles.items():
            full_by_code.setdefault(column_code(key), []).extend(p for _, p in numbered)
        pairs = [(column_code(s.code), s.text) for s in snippets]
        rule["letters"] = unknown.calibrate_letters(fit_by_code, full_by_code, pairs)
    return rule


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
) -> tuple[float, float]:
    """(temperature, power) minimising the log loss of held-back snippets of the training
    text, whose scores are divided by temperature * hits ** power."""
    fit: dict[str, list[str]] = {}
    dev: dict[str, list[str]] = {}
    for code in sorted(texts):
        fit[code], dev[code] = split_dev(texts[code])
    model = train_model(
        {c: t for c, t in fit.items() if t},
        variant=variant,
        alpha=alpha,
        orders=orders,
        calibrate=False,
    )
    snippets: list[str] = []
    truth: list[int] = []
    for code, paragraphs in dev.items():
        if code in model.codes:
            cut = [s for size in SNIPPET_SIZES for s in cut_snippets(paragraphs, size)]
            snippets += cut
            truth += [model.codes.index(code)] * len(cut)
    scores, hits, _ = model.scores(snippets)
    target = np.asarray(truth)
    best = (np.inf, 1.0, 0.5)
    for power in POWERS:
        scaled = scores / (np.maximum(hits, 1) ** power)[:, None]
        for temperature in TEMPERATURES:
            loss = _log_loss(scaled / temperature, target, model)
            best = min(best, (loss, float(temperature), float(power)))
    return best[1], best[2]


def _log_loss(logits: np.ndarray, target: np.ndarray, model: LangModel) -> float:
    shifted = logits - logits.max(axis=1, keepdims=True)
    proba = np.exp(shifted)
    proba /= proba.sum(axis=1, keepdims=True)
    merged = model.merge_columns(proba)
    return float(-np.mean(np.log(np.maximum(merged[np.arange(target.size), target], 1e-12))))


def add_language(
    model: LangModel,
    code: str,
    paragraphs: Sequence[str],
    *,
    keep: bool = False,
    column: str | None = None,
) -> LangModel:
    """`model` with class `code` counted from `paragraphs`: a new class, or one whose
    counts are replaced (or, with `keep`, added to). With `column` (a real-text register,
    "user"), the text is a column of its own beside the class's others (`code/user`),
    replacing only an earlier column of that name. New columns are recorded as the user's
    register ("user" in `meta["registers"]`: collie.langid.model.LangModel.lend_gain)."""
    if not any(p.strip() for p in paragraphs):
        raise InputError(f"No text to learn {code} from.", "Give documents with text in it.")
    columns = list(model.columns)
    sizes = list(model.sizes)
    base = model.counts.tocsc(copy=True)
    register = column
    own = f"{code}/{register}" if register else code
    parts = split_scripts(own, paragraphs)
    if register:
        for i, name in enumerate(columns):
            if name == own or name.startswith(f"{own}/"):  # replaced
                base.data[base.indptr[i] : base.indptr[i + 1]] = 0
                sizes[i] = 0
    elif keep and any(column_code(c) == code for c in columns):
        parts = {code: list(paragraphs)} if code in columns else parts
    elif not keep:
        for i, label in enumerate(columns):
            if column_code(label) == code:  # replaced: emptied here, dropped below
                base.data[base.indptr[i] : base.indptr[i + 1]] = 0
                sizes[i] = 0
    all_rows = [base.tocoo()]
    new_keys: list[np.ndarray] = [model.keys]
    counted: list[tuple[int, np.ndarray, np.ndarray]] = []
    for label, texts in parts.items():
        keys, counts = count_ngrams(texts, model.orders)
        known = sorted_member(keys, model.keys)
        keys, counts = keys[known | (counts >= MIN_COUNT)], counts[known | (counts >= MIN_COUNT)]
        if label in columns and (keep or register):
            number = columns.index(label)
        else:
            number = len(columns)
            columns.append(label)
            sizes.append(0)
        sizes[number] += sum(len(p) for p in texts)
        counted.append((number, keys, counts))
        new_keys.append(keys)
    merged = sorted_union(new_keys)
    coo = all_rows[0]
    rows = [np.searchsorted(merged, model.keys)[coo.row]]
    cols = [coo.col]
    data = [coo.data]
    for number, keys, counts in counted:
        rows.append(np.searchsorted(merged, keys))
        cols.append(np.full(keys.size, number))
        data.append(counts.astype(np.float32))
    matrix = sp.csr_matrix(
        (np.concatenate(data), (np.concatenate(rows), np.concatenate(cols))),
        shape=(merged.size, len(columns)),
    )
    keep_columns = [i for i, size in enumerate(sizes) if size > 0]
    matrix = matrix[:, keep_columns].tocsr()
    matrix.eliminate_zeros()
    meta = dict(model.meta)
    meta["added"] = [*meta.get("added", []), code]
    if "scripts" in meta:
        # Text added to a column already there leaves its register as it was.
        fresh = {n: t for n, t in parts.items() if not keep or register or n not in model.columns}
        describe_columns(meta, fresh, register=register or "user")
    new = LangModel(
        columns=[columns[i] for i in keep_columns],
        keys=merged,
        counts=matrix,
        sizes=[sizes[i] for i in keep_columns],
        alpha=model.alpha,
        temperature=model.temperature,
        power=model.power,
        orders=model.orders,
        meta=meta,
        threshold=model.threshold,
        min_chars=model.min_chars,
    )
    if model.stacker is not None:
        new.stacker = model.stacker.remapped(model.codes, new.codes)
    return new


def remove_languages(model: LangModel, codes: set[str]) -> LangModel:
    """`model` without the columns (and maxent rows) of `codes`: for measuring how a
    language it does not know is learnt, and how its unseen relatives are treated."""
    return remove_columns(model, {c for c in model.columns if column_code(c) in codes})


def remove_columns(model: LangModel, columns: set[str]) -> LangModel:
    """`model` without `columns` (a language's real text taken away, say: what the
    model would be with its UDHR column alone); a code left without columns is gone."""
    keep = [i for i, column in enumerate(model.columns) if column not in columns]
    new = LangModel(
        columns=[model.columns[i] for i in keep],
        keys=model.keys,
        counts=model.counts.tocsc()[:, keep].tocsr(),
        sizes=[model.sizes[i] for i in keep],
        alpha=model.alpha,
        temperature=model.temperature,
        power=model.power,
        orders=model.orders,
        meta=dict(model.meta),
        threshold=model.threshold,
        min_chars=model.min_chars,
    )
    if model.stacker is not None:
        new.stacker = model.stacker.remapped(model.codes, new.codes)
    return new


def sorted_member(values: np.ndarray, sorted_keys: np.ndarray) -> np.ndarray:
    """`np.isin(values, sorted_keys)` for sorted distinct keys, by binary search (the
    model's keys are sorted: no hash table of 650,000 keys to build)."""
    if not sorted_keys.size:
        return np.zeros(values.shape, bool)
    where = np.minimum(np.searchsorted(sorted_keys, values), sorted_keys.size - 1)
    return sorted_keys[where] == values


def sorted_union(arrays: Sequence[np.ndarray]) -> np.ndarray:
    """The sorted distinct values of `arrays` (np.unique of their concatenation)."""
    merged = np.sort(np.concatenate(arrays), kind="stable")
    if not merged.size:
        return merged
    return merged[np.concatenate(([True], merged[1:] != merged[:-1]))]
