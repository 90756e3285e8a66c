"""The open set on real text: languages the model does not know come back `und` (issue 53).

A model is built without LEFT_OUT (24 languages of eleven families, their UDHR and real
text left out: `langmodel/build.py --leave-out`, cached in build/ and rebuilt when the
list changes; about 5 minutes). Then, on held-out real sentences of at least 20 letters
(the test sets of benchmarks/bench_registers.py: lid-registers, news-text, NTREX-128,
OLDI Seed; development data of ../shared/data, read when present):

1. every left-out language: the share of its sentences that come back `und` (target:
   at least 90% for each), with the open-set rule (collie.langid.unknown) and without it
   (the maxent layer's threshold alone);
2. the known languages: the points of accuracy they lose to the rule (target: at most 1),
   on the leave-out model and on the bundled model.

    python benchmarks/bench_openset.py [--model F] [--bundled F]
"""

from __future__ import annotations

import argparse
import copy
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench_ntrex import is_right
from bench_registers import sentences_of, test_sets

from collie.langid import LangModel, load_model

ROOT = Path(__file__).resolve().parents[1]

# Bantu (lug ven bem loz), Austronesian (war pam), Germanic (isl),
# Celtic (bre cym), Slavic (hsb ukr), Uralic (sme myv), Turkic (tat uig tuk), Semitic
# (mlt), Berber (kab), Atlantic and Mande (wol bam), Kwa (ewe), isolate (eus), Mayan
# (quc), Indo-Aryan (mar).
LEFT_OUT = [
    *("bam", "bem", "bre", "cym", "eus", "ewe", "hsb", "isl", "kab", "loz", "lug", "mar"),
    *("mlt", "myv", "pam", "quc", "sme", "tat", "tuk", "uig", "ukr", "ven", "war", "wol"),
]
MODEL = ROOT / "build" / "langid-leave-out.npz"
UNKNOWN_TARGET, KNOWN_LOSS = 90.0, 1.0


def without_rule(model: LangModel) -> LangModel:
    other = copy.copy(model)
    other.meta = {k: v for k, v in model.meta.items() if k != "unknown"}
    other.__dict__.pop("unknown_rule", None)
    return other


def leave_out_model(path: Path | None) -> LangModel:
    if path is not None:
        return load_model(path)
    if MODEL.exists() and load_model(MODEL).meta.get("left_out") == LEFT_OUT:
        return load_model(MODEL)
    print(f"building {MODEL.relative_to(ROOT)} without {len(LEFT_OUT)} languages ...", flush=True)
    subprocess.run(
        [
            sys.executable,
            "langmodel/build.py",
            "--out",
            str(MODEL),
            "--leave-out",
            ",".join(LEFT_OUT),
        ],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=True,
    )
    return load_model(MODEL)


def pooled(sets: dict[str, dict[str, list[list[str]]]]) -> dict[str, list[str]]:
    """truth code -> its sentences over every test set."""
    out: dict[str, list[str]] = {}
    for by_truth in sets.values():
        for truth, docs in by_truth.items():
            out.setdefault(truth, []).extend(sentences_of(docs))
    return out


def known_loss(model: LangModel, items: dict[str, list[str]]) -> tuple[float, float, list[str]]:
    """(macro accuracy without the rule, with it, the languages losing more than 2 points)."""
    bare = without_rule(model)
    codes = set(model.codes)
    before, after, worst = [], [], []
    for truth, texts in sorted(items.items()):
        if truth not in codes or not texts:
            continue
        a = sum(is_right(truth, c)[0] for c, _ in bare.identify_batch(texts)) / len(texts)
        b = sum(is_right(truth, c)[0] for c, _ in model.identify_batch(texts)) / len(texts)
        before.append(100 * a)
        after.append(100 * b)
        if a - b > 0.02:
            worst.append(f"{truth} {100 * a:.0f}->{100 * b:.0f}")
    n = max(len(before), 1)
    return sum(before) / n, sum(after) / n, worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", type=Path, help="a model built with --leave-out LEFT_OUT")
    parser.add_argument("--bundled", type=Path, help="the full model (default: the bundled one)")
    args = parser.parse_args()
    sets, missing = test_sets(None)
    for name in missing:
        print(f"not there, skipped: {name}")
    if not sets:
        print("no test set is there: nothing to measure (development data)")
        return
    items = pooled(sets)
    model = leave_out_model(args.model)
    if model.unknown_rule is None:
        print("this model has no open-set rule (built before it): nothing to measure")
        return
    known_out = sorted(set(LEFT_OUT) & set(model.codes))
    if known_out:
        print(f"the model still knows {', '.join(known_out)}: not a leave-out model")
        return
    print(f"1. {len(LEFT_OUT)} languages left out of the model: their sentences `und`")
    shares, bare_shares = [], []
    for code in LEFT_OUT:
        texts = items.get(code, [])
        if not texts:
            print(f"  {code}: no held-out sentences")
            continue
        answers = [c for c, _ in model.identify_batch(texts)]
        bare = [c for c, _ in without_rule(model).identify_batch(texts)]
        share = 100 * answers.count("und") / len(texts)
        bare_share = 100 * bare.count("und") / len(texts)
        shares.append(share)
        bare_shares.append(bare_share)
        taken = Counter(c for c in answers if c != "und").most_common(3)
        print(
            f"  {code} {len(texts):4d} sentences: und {share:5.1f}% (without the rule "
            f"{bare_share:5.1f}%); taken for {', '.join(f'{c} {n}' for c, n in taken) or '-'}"
        )
    under = sum(s < UNKNOWN_TARGET for s in shares)
    print(
        f"  mean {sum(shares) / len(shares):.1f}% und (without the rule "
        f"{sum(bare_shares) / len(bare_shares):.1f}%); {under} of {len(shares)} languages "
        f"under {UNKNOWN_TARGET:.0f}%"
    )
    print("2. known languages: macro accuracy without the rule -> with it")
    for name, full in (("leave-out model", model), ("full model", load_model(args.bundled))):
        a, b, worst = known_loss(full, items)
        print(
            f"  {name}: {a:.2f} -> {b:.2f} ({b - a:+.2f} points); losing over 2 points: "
            f"{len(worst)} {', '.join(worst[:20])}"
        )


if __name__ == "__main__":
    main()
