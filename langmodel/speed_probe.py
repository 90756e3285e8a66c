"""Where batch speed ends: a compiled scoring loop and a two-stage cascade, on dev snippets.

Two ways past numpy's per-n-gram overheads that were tried for issue 3's 20,000
snippets/s and not kept (langmodel/README.md, "Speed, third round"):

1. The naive Bayes evidence computed by a loop compiled with numba (not a collie
   dependency: `pip install numba` to run this part), text by text in phases so that the
   memory loads of one phase do not wait on each other (with and without LLVM prefetch
   hints): hash every n-gram (orders 1-5, the model's rolling hash), look each up in the
   model's table, read each feature's entry, add the weights (sparse ones directly, the
   rows of n-grams counted in at least DENSE columns once per distinct n-gram and text).
   Printed per phase, cumulatively.
2. A cascade in numpy: a first pass over the trigrams alone; a text whose best language
   leads the next by more than T (score per sqrt(known trigrams)) keeps that answer, the
   others go through the full model. Printed: speed of the first pass, how many texts it
   settles, and how many of those disagree with the full model.

Snippets: the dev split of langmodel/dev.py (training articles 5, 10, 15, 20 held back),
400-byte band for the speed, shuffled; one core. The held-out articles 21-30 are not read.

    PYTHONPATH=. python langmodel/speed_probe.py            # both parts (~2 min)
    PYTHONPATH=. python langmodel/speed_probe.py --cascade  # the numpy part only
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "langmodel"))

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402
from dev import SEEDS, dev_model, dev_split  # noqa: E402

from collie.langid.corpus import udhr_training_articles  # noqa: E402
from collie.langid.evaluate import heldout_snippets  # noqa: E402
from collie.langid.features import (  # noqa: E402
    BOUNDARY,
    MIX,
    MULTIPLIER,
    SEPARATOR,
    FeatureIndex,
    hash_ngrams,
    prepare_texts,
)
from collie.langid.model import LangModel  # noqa: E402

BATCH = 256
ROUNDS = 3
DENSE = (12, 32, 64)  # n-grams counted in at least this many columns: dense rows
THRESHOLDS = (2.0, 3.0, 4.0)
PHASES = ("lookup", "+ entries", "+ sparse weights, dense counts", "+ dense rows")


def best_rate(run: Callable[[Sequence[str]], object], texts: Sequence[str]) -> float:
    rates = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        for i in range(0, len(texts), BATCH):
            run(texts[i : i + BATCH])
        rates.append(len(texts) / (time.perf_counter() - start))
    return max(rates)


def kernel_arrays(model: LangModel, dense_from: int) -> tuple:
    """The model's weights for the compiled loop: features numbered by training frequency
    (hot ones share cache lines), one int64 entry per feature (CSR start << 16 | length,
    or dense row << 16 | 0xFFFF), and the dense rows."""
    weights = model.weights
    rows = sp.vstack([sp.csr_matrix(weights.dense), weights.sparse]).tocsr()
    keys = model.keys[model._scoring_order]
    frequency = np.asarray(model.counts.tocsr()[model._scoring_order].sum(axis=1)).ravel()
    order = np.argsort(-frequency, kind="stable")
    rows, keys = rows[order].tocsr(), keys[order]
    lengths = np.diff(rows.indptr)
    dense = lengths >= dense_from
    dense_number = np.cumsum(dense) - 1
    entry = np.where(
        dense, (dense_number << 16) | 0xFFFF, (rows.indptr[:-1].astype(np.int64) << 16) | lengths
    ).astype(np.int64)
    index = FeatureIndex.build(keys)
    block = rows[np.flatnonzero(dense)].toarray().astype(np.float32)
    return (
        index.bits,
        index.table,
        index.keys,
        entry,
        block,
        rows.indices.astype(np.int16),
        rows.data.astype(np.float32),
    )


def prefetch_intrinsic() -> Callable:
    """`prefetch(array, i)`: LLVM's prefetch hint for array[i], callable from numba code."""
    from llvmlite import ir
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic

    @intrinsic
    def prefetch(typingctx, array, i):  # type: ignore[no-untyped-def]
        def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
            kind = signature.args[0]
            struct = context.make_array(kind)(context, builder, args[0])
            pointer = cgutils.get_item_pointer(
                context, builder, kind, struct, [args[1]], wraparound=False
            )
            byte = ir.IntType(8).as_pointer()
            word = ir.IntType(32)
            function = cgutils.get_or_insert_function(
                builder.module,
                ir.FunctionType(ir.VoidType(), [byte, word, word, word]),
                "llvm.prefetch.p0",
            )
            flags = [ir.Constant(word, 0), ir.Constant(word, 3), ir.Constant(word, 1)]
            builder.call(function, [builder.bitcast(pointer, byte), *flags])
            return context.get_dummy_value()

        return types.void(array, i), codegen

    return prefetch


def compiled_kernel() -> Callable:
    from numba import njit

    prefetch = prefetch_intrinsic()

    @njit(cache=False)
    def score(stream, texts, bits, table, keys, entry, dense, indices, data, phases, hints):
        columns = dense.shape[1]
        scores = np.zeros((texts, columns), np.float32)
        counted = np.zeros(dense.shape[0], np.int32)
        touched = np.empty(dense.shape[0], np.int32)
        mask = np.uint64((1 << bits) - 1)
        shift = np.uint64(64 - bits)
        hashes = np.empty(0, np.uint64)
        features = np.empty(0, np.int32)
        entries = np.empty(0, np.int64)
        begin, text = 0, 0
        while begin < stream.size and text < texts:
            end = begin
            while end < stream.size and stream[end] != SEPARATOR:
                end += 1
            if 5 * (end - begin) > hashes.size:
                hashes = np.empty(5 * (end - begin), np.uint64)
                features = np.empty(hashes.size, np.int32)
                entries = np.empty(hashes.size, np.int64)
            n = 0
            for start in range(begin, end):  # every n-gram's hash
                h = np.uint64(stream[start]) + MIX
                if stream[start] != BOUNDARY:
                    mixed = h * MIX
                    hashes[n] = mixed ^ (mixed >> np.uint64(31))
                    n += 1
                for order in range(2, min(end - start, 5) + 1):
                    h = h * MULTIPLIER + np.uint64(stream[start + order - 1])
                    mixed = h * MIX
                    hashes[n] = mixed ^ (mixed >> np.uint64(31))
                    n += 1
            if hints:
                for i in range(n):
                    prefetch(table, hashes[i] >> shift)
            for i in range(n):  # first slots: independent loads
                features[i] = table[hashes[i] >> shift]
            for i in range(n):
                f = features[i]
                if f < 0 or keys[f] == hashes[i]:
                    continue
                slot = ((hashes[i] >> shift) + np.uint64(1)) & mask
                f = table[slot]
                while f >= 0 and keys[f] != hashes[i]:
                    slot = (slot + np.uint64(1)) & mask
                    f = table[slot]
                features[i] = f
            known = 0
            if hints:
                for i in range(n):
                    if features[i] >= 0:
                        prefetch(entry, features[i])
            if phases >= 2:
                for i in range(n):
                    if features[i] >= 0:
                        entries[known] = entry[features[i]]
                        known += 1
            target = scores[text]
            distinct = 0
            if hints and phases >= 3:
                for i in range(known):
                    if entries[i] & 0xFFFF != 0xFFFF:
                        prefetch(data, entries[i] >> 16)
                        prefetch(indices, entries[i] >> 16)
            if phases >= 3:
                for i in range(known):
                    length, first = entries[i] & 0xFFFF, entries[i] >> 16
                    if length == 0xFFFF:
                        if counted[first] == 0:
                            touched[distinct] = first
                            distinct += 1
                        counted[first] += 1
                    else:
                        for j in range(first, first + length):
                            target[indices[j]] += data[j]
            if hints and phases >= 4:
                for k in range(distinct):
                    for c in range(0, columns, 16):
                        prefetch(dense[touched[k]], c)
            for k in range(distinct):
                row = touched[k]
                weight = np.float32(counted[row])
                counted[row] = 0
                if phases >= 4:
                    for c in range(columns):
                        target[c] += weight * dense[row, c]
            begin, text = end + 1, text + 1
        return scores

    return score


def probe_kernel(model: LangModel, long: list[str]) -> None:
    try:
        score = compiled_kernel()
    except ImportError:
        print("compiled kernel: numba is not installed (pip install numba); skipped")
        return
    print(f"numpy path (LangModel.identify_batch): {best_rate(model.identify_batch, long):,.0f}/s")
    for dense_from in DENSE:
        arrays = kernel_arrays(model, dense_from)
        for hints in (False, True):
            figures = []
            for phases, name in enumerate(PHASES, start=1):

                def run(
                    texts: Sequence[str], phases: int = phases, hints: bool = hints, arrays=arrays
                ) -> object:
                    stream = prepare_texts(texts)[1:]  # the loop starts at the first text
                    return score(stream, len(texts), *arrays, phases, hints)

                run(long[:4])  # compile
                figures.append(f"{name} {best_rate(run, long):,.0f}/s")
            label = "with prefetch hints" if hints else "no hints"
            rows = arrays[4].shape[0]
            print(
                f"compiled, dense rows from {dense_from} columns ({rows:,}), {label}: "
                + "; ".join(figures)
            )


def first_pass(model: LangModel, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """(best code number, lead over the next per sqrt(known trigrams)) from trigrams."""
    weights = model.weights
    hashes, text_of = hash_ngrams(prepare_texts(texts), (3,))
    columns = model.index.lookup(hashes)
    found = columns >= 0
    columns, rows = columns[found], text_of[found]
    hits = np.bincount(rows, minlength=len(texts))
    rare = columns >= weights.split
    shape = (len(texts), weights.sparse.shape[0])
    ones = np.ones(rare.sum(), np.float32)
    counts = sp.csr_matrix((ones, (rows[rare], columns[rare] - weights.split)), shape=shape)
    scores = np.asarray((counts @ weights.sparse).toarray())
    common = sp.csr_matrix(
        (np.ones((~rare).sum(), np.float32), (rows[~rare], columns[~rare])),
        shape=(len(texts), weights.split),
    )
    common.sum_duplicates()
    scores += common @ weights.dense
    scores += hits[:, None].astype(np.float32) * weights.base
    code_scores = model.code_scores(scores)
    two = -np.partition(-code_scores, 1, axis=1)[:, :2]
    return code_scores.argmax(axis=1), (two[:, 0] - two[:, 1]) / np.sqrt(np.maximum(hits, 1))


def probe_cascade(model: LangModel, items: list, long: list[str]) -> None:
    texts = [s.text for s in items]
    full = np.asarray([code for code, _ in model.identify_batch(texts)])
    best, lead = first_pass(model, texts)
    first = np.asarray(model.codes)[best]
    long_band = np.asarray([s.band == "400B" for s in items])
    rate = best_rate(lambda t: first_pass(model, t), long)
    print(f"cascade: trigram first pass {rate:,.0f}/s on 400-byte snippets")
    for threshold in THRESHOLDS:
        settled = lead > threshold
        differ = int((first[settled] != full[settled]).sum())
        print(
            f"  lead > {threshold}: settles {100 * settled.mean():.1f}% of {len(texts):,} "
            f"dev snippets ({100 * settled[long_band].mean():.1f}% at 400 bytes), "
            f"{differ} of them unlike the full model"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cascade", action="store_true", help="only the numpy cascade")
    args = parser.parse_args(argv)
    with contextlib.suppress(AttributeError, OSError):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    fit, dev = dev_split(udhr_training_articles())
    model = dev_model(fit, (1, 2, 3, 4, 5), retrain=False)
    items = [s for seed in SEEDS for s in heldout_snippets(dev, seed=seed)]
    items = [s for s in items if s.code in set(model.codes)]
    long = [s.text for s in items if s.band == "400B"]
    long = [long[i] for i in np.random.default_rng(0).permutation(len(long))]
    if not args.cascade:
        probe_kernel(model, long)
    probe_cascade(model, items, long)
    return 0


if __name__ == "__main__":
    sys.exit(main())
