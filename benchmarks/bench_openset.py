"""The open set on real text: languages the model does not know come back `und` (issue 53).

A model is built without LEFT_OUT (39 languages: a development group DEV, on which the
open-set rules' choices were made, and a test group TEST of 24 languages of fifteen
families, measured only; their UDHR and real text left out: `langmodel/build.py
--leave-out`, cached in build/ and rebuilt when the list changes; about 7 minutes). Then,
on held-out real sentences of at least 20 letters (the test sets of
benchmarks/bench_registers.py: lid-registers, news-text, NTREX-128, OLDI Seed; development
data of ../shared/data, read when present):

1. every left-out language, by group: the share of its sentences that come back `und`
   (target: at least 90% for each) with both open-set rules (collie.langid.unknown: the
   lift, and the letters its best language does not write), with the lift alone, and
   with neither (the maxent layer's threshold alone);
2. the known languages: the points of accuracy they lose to the rules (target: at most
   1), on the leave-out model and on the bundled model;
3. with --curve, the trade-off: for other quantiles of the lift rule's calibration and
   with or without the letter rule, the groups' `und` and the known languages' loss.

    python benchmarks/bench_openset.py [--model F] [--bundled F] [--curve]
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

# The test group, measured only (24 languages of fifteen families): Bantu (lug ven bem
# loz), Austronesian (war pam), Germanic (isl), Celtic (bre cym), Slavic (hsb ukr), Uralic
# (sme myv), Turkic (tat uig tuk), Semitic (mlt), Berber (kab), Atlantic and Mande (wol
# bam), Kwa (ewe), isolate (eus), Mayan (quc), Indo-Aryan (mar).
TEST = [
    *("bam", "bem", "bre", "cym", "eus", "ewe", "hsb", "isl", "kab", "loz", "lug", "mar"),
    *("mlt", "myv", "pam", "quc", "sme", "tat", "tuk", "uig", "ukr", "ven", "war", "wol"),
]
# The development group, on which the open-set rules' choices were made (issue 53, third
# round: langmodel/README.md), most with a close relative in the model: Germanic (afr nno),
# Slavic (bel mkd slk szl), Turkic (crh kir), Celtic (gla), Romance (glg lij), Indo-Aryan
# (hne), Austronesian (jav), Uralic (mhr), Cushitic (som).
DEV = [
    *("afr", "bel", "crh", "gla", "glg", "hne", "jav", "kir", "lij", "mhr", "mkd", "nno"),
    *("slk", "som", "szl"),
]
LEFT_OUT = sorted(TEST + DEV)
MODEL = ROOT / "build" / "langid-leave-out.npz"
UNKNOWN_TARGET, KNOWN_LOSS = 90.0, 1.0


def without_rule(model: LangModel, letters: bool = False) -> LangModel:
    """The model without its open-set rules (`letters`: without the letter rule only)."""
    other = copy.copy(model)
    unknown = model.meta.get("unknown", {})
    kept = {k: v for k, v in unknown.items() if k != "letters"} if letters else {}
    other.meta = {**{k: v for k, v in model.meta.items() if k != "unknown"}, "unknown": kept}
    other.__dict__.pop("unknown_rule", None)
    other.__dict__.pop("letter_rule", None)
    return other


def at_quantile(model: LangModel, quantile: str, letters: bool) -> LangModel:
    """The model with its lift rule at another calibration quantile (the factors the build
    recorded for it), with or without the letter rule."""
    unknown = dict(model.meta["unknown"])
    old, new = unknown["factors"], unknown["factors_at"][quantile]
    unknown["codes"] = {
        code: [t * n / o for t, o, n in zip(row, old, new, strict=True)]
        for code, row in unknown["codes"].items()
    }
    if not letters:
        unknown.pop("letters", None)
    other = copy.copy(model)
    other.meta = {**model.meta, "unknown": unknown}
    other.__dict__.pop("unknown_rule", None)
    other.__dict__.pop("letter_rule", None)
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


def known_loss(
    model: LangModel, items: dict[str, list[str]], bare: LangModel
) -> tuple[float, float, list[str]]:
    """(macro accuracy of `bare`, of `model`, the languages losing more than 2 points)."""
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


def und_shares(model: LangModel, items: dict[str, list[str]], codes: list[str]) -> dict[str, float]:
    """code -> the share of its sentences `und` (codes with sentences only)."""
    out = {}
    for code in codes:
        texts = items.get(code, [])
        if texts:
            answers = [c for c, _ in model.identify_batch(texts)]
            out[code] = 100 * answers.count("und") / len(texts)
    return out


def group_report(
    name: str, model: LangModel, items: dict[str, list[str]], codes: list[str]
) -> None:
    print(f"{name}: {len(codes)} languages left out of the model, their sentences `und`")
    shares, lift_shares, bare_shares = [], [], []
    lift_only, bare = without_rule(model, letters=True), without_rule(model)
    for code in codes:
        texts = items.get(code, [])
        if not texts:
            print(f"  {code}: no held-out sentences")
            continue
        answers = [c for c, _ in model.identify_batch(texts)]
        share = 100 * answers.count("und") / len(texts)
        lift = 100 * [c for c, _ in lift_only.identify_batch(texts)].count("und") / len(texts)
        none = 100 * [c for c, _ in bare.identify_batch(texts)].count("und") / len(texts)
        shares.append(share)
        lift_shares.append(lift)
        bare_shares.append(none)
        taken = Counter(c for c in answers if c != "und").most_common(3)
        print(
            f"  {code} {len(texts):4d} sentences: und {share:5.1f}% (lift alone {lift:5.1f}%, "
            f"neither {none:5.1f}%); taken for {', '.join(f'{c} {n}' for c, n in taken) or '-'}"
        )
    under = sum(s < UNKNOWN_TARGET for s in shares)
    print(
        f"  mean {sum(shares) / len(shares):.1f}% und (lift alone "
        f"{sum(lift_shares) / len(lift_shares):.1f}%, neither "
        f"{sum(bare_shares) / len(bare_shares):.1f}%); {under} of {len(shares)} languages "
        f"under {UNKNOWN_TARGET:.0f}%"
    )


def curve(model: LangModel, full: LangModel, items: dict[str, list[str]]) -> None:
    """The trade-off at the quantiles the build recorded, with and without letters."""
    print("3. the trade-off: quantile of the lift rule, letter rule; mean und of each group")
    print("   (and of ukr, tat, isl); points the known languages lose (leave-out, full model)")
    known = {c: t for c, t in items.items() if c in set(full.codes)}
    bare, bare_full = without_rule(model), without_rule(full)
    for quantile in model.meta["unknown"].get("factors_at", {}):
        for letters in (False, True):
            variant = at_quantile(model, quantile, letters)
            dev = und_shares(variant, items, DEV)
            test = und_shares(variant, items, TEST)
            a, b, _ = known_loss(variant, known, bare)
            if quantile in full.meta.get("unknown", {}).get("factors_at", {}):
                c, d, _ = known_loss(at_quantile(full, quantile, letters), known, bare_full)
                on_full = f"{d - c:+.2f}"
            else:
                on_full = "-"
            dev_mean, test_mean = sum(dev.values()) / len(dev), sum(test.values()) / len(test)
            close = " ".join(f"{k} {test[k]:.0f}" for k in ("ukr", "tat", "isl") if k in test)
            print(
                f"  q {quantile:6s} letters {'yes' if letters else 'no ':3s}: dev "
                f"{dev_mean:5.1f}%, test {test_mean:5.1f}% "
                f"({close}); known {b - a:+.2f} / {on_full} points"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", type=Path, help="a model built with --leave-out LEFT_OUT")
    parser.add_argument("--bundled", type=Path, help="the full model (default: the bundled one)")
    parser.add_argument(
        "--curve", action="store_true", help="the trade-off at other settings (a few minutes)"
    )
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
    group_report("1a. development group (the rules' choices were made on it)", model, items, DEV)
    group_report("1b. test group (measured only)", model, items, TEST)
    print("2. known languages: macro accuracy without the rules -> with them")
    full = load_model(args.bundled)
    for name, one in (("leave-out model", model), ("full model", full)):
        a, b, worst = known_loss(one, items, without_rule(one))
        _, c, _ = known_loss(without_rule(one, letters=True), items, without_rule(one))
        print(
            f"  {name}: {a:.2f} -> {b:.2f} ({b - a:+.2f} points; the lift rule alone "
            f"{c - a:+.2f}); losing over 2 points: {len(worst)} {', '.join(worst[:20])}"
        )
    if args.curve:
        curve(model, full, items)


if __name__ == "__main__":
    main()
