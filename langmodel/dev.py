"""Dev measurements for the bundled model's design: training articles only.

The dev split holds back training articles 5, 10, 15 and 20 of every declaration; the
model (naive Bayes and the maxent layer's folds) is trained on the heading, preamble and
the other 16 articles, and scored on snippets of the held-back articles
(`heldout_snippets`, seeds 21 and 22: 20 per band and language). The held-out articles
21-30 are never read here. Prints accuracy per band (`und` wrong, and argmax) and the
batch speed on the 400-byte dev snippets (best of ROUNDS, one core).

    PYTHONPATH=. python langmodel/dev.py                  # the current code
    PYTHONPATH=. python langmodel/dev.py --orders 2,3,4,5 # another set of n-gram orders
    PYTHONPATH=. python langmodel/dev.py --shuffle        # time them in random order
    PYTHONPATH=. python langmodel/dev.py --articles 17,18,19,20  # another dev set
    PYTHONPATH=. python langmodel/dev.py --alpha 0.01 --margin 5 --c 30  # other settings

The dev model is cached in build/ (keyed by the options), so that scorer-only changes
are measured without retraining (`--retrain` to rebuild).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from collie.langid.corpus import udhr_training_articles  # noqa: E402
from collie.langid.evaluate import heldout_snippets  # noqa: E402
from collie.langid.model import LangModel  # noqa: E402
from collie.langid.modelfile import BUNDLED_LEVEL, read_model, save_model  # noqa: E402
from collie.langid.train import train_stacked  # noqa: E402

DEV_ARTICLES = (5, 10, 15, 20)
SEEDS = (21, 22)
ROUNDS = 5


def dev_split(
    articles: dict[str, list[tuple[int, str]]], held: tuple[int, ...] = DEV_ARTICLES
) -> tuple[dict[str, list[tuple[int, str]]], dict[str, list[str]]]:
    """(training articles without the dev articles `held`, code -> dev paragraphs)."""
    fit = {c: [(n, p) for n, p in ps if n not in held] for c, ps in articles.items()}
    dev = {c: [p for n, p in ps if n in held] for c, ps in articles.items()}
    return fit, {c: ps for c, ps in dev.items() if ps}


def dev_model(
    fit: dict[str, list[tuple[int, str]]],
    orders: tuple[int, ...],
    retrain: bool,
    held: tuple[int, ...] = DEV_ARTICLES,
    **options: Any,
):
    """The dev model trained on `fit` (cached in build/, keyed by every option)."""
    name = "".join(map(str, orders))
    if held != DEV_ARTICLES:
        name += "-without-" + "-".join(map(str, held))
    name += "".join(f"-{key}{value}" for key, value in sorted(options.items()))
    path = ROOT / "build" / f"langid-dev-{name}.npz"
    if path.exists() and not retrain:
        return read_model(path)
    started = time.monotonic()
    model = train_stacked(fit, orders=orders, **options)
    print(f"trained dev model (orders {orders}) in {time.monotonic() - started:.0f} s")
    save_model(model, path, BUNDLED_LEVEL)
    return read_model(path)


def measure(model: LangModel, dev: dict[str, list[str]], shuffle: bool = False) -> None:
    items = [s for seed in SEEDS for s in heldout_snippets(dev, seed=seed)]
    items = [s for s in items if s.code in set(model.codes)]
    texts = [s.text for s in items]
    labels = [c for c, _ in model.identify_batch(texts)]
    best = np.asarray(model.codes)[model.predict_proba(texts).argmax(axis=1)]
    line = []
    for band in ("50", "150", "400B"):
        rows = [i for i, s in enumerate(items) if s.band == band]
        right = sum(labels[i] == items[i].code for i in rows)
        arg = sum(best[i] == items[i].code for i in rows)
        line.append(f"{band}: {100 * right / len(rows):.2f} (argmax {100 * arg / len(rows):.2f})")
    print(f"{len(items)} dev snippets; " + "; ".join(line))
    long = [s.text for s in items if s.band == "400B"]
    if shuffle:  # the snippets come sorted by language, which favours the caches
        long = [long[i] for i in np.random.default_rng(0).permutation(len(long))]
    model.identify_batch(long[:10])
    rates = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        model.identify_batch(long)
        rates.append(len(long) / (time.perf_counter() - start))
    order = " (shuffled)" if shuffle else ""
    print(f"batch, {len(long)} snippets of <= 400 bytes{order}: best {max(rates):,.0f}/s "
          f"(rounds: {', '.join(f'{r:,.0f}' for r in rates)})")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--orders", default="1,2,3,4,5", help="n-gram orders of the model")
    parser.add_argument("--retrain", action="store_true", help="rebuild the cached dev model")
    parser.add_argument("--shuffle", action="store_true", help="time the snippets shuffled")
    parser.add_argument(
        "--articles", default="5,10,15,20", help="training articles held back as the dev set"
    )
    parser.add_argument("--alpha", type=float, help="additive smoothing (default: the model's)")
    parser.add_argument("--margin", type=float, help="the maxent layer's closeness margin")
    parser.add_argument("--min-count", type=int, help="n-grams seen fewer times are dropped")
    parser.add_argument("--c", type=float, help="the maxent layer's regularisation C")
    args = parser.parse_args(argv)
    options = {
        key: value
        for key, value in (
            ("alpha", args.alpha),
            ("margin", args.margin),
            ("min_count", args.min_count),
            ("regularisation", args.c),
        )
        if value is not None
    }
    try:
        core = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {core})
    except (AttributeError, OSError):
        pass
    held = tuple(int(a) for a in args.articles.split(","))
    if not set(held) <= set(range(1, 21)):
        parser.error("--articles: training articles are 1-20 (21-30 are held out)")
    fit, dev = dev_split(udhr_training_articles(), held)
    orders = tuple(int(o) for o in args.orders.split(","))
    measure(dev_model(fit, orders, args.retrain, held, **options), dev, args.shuffle)
    return 0


if __name__ == "__main__":
    sys.exit(main())
