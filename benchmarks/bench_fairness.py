"""Is the language model fair to small languages? Real text it never trained on (issue 40).

Data: ../shared/data/ntrex (NTREX-128 news, held-out documents) and
../shared/data/oldi-seed (OLDI Seed Wikipedia sentences, held-out articles), development
data read when present and never committed (langmodel/ntrex.py, langmodel/realtext.py:
the splits the build uses); the benchmark says so and stops when they are absent. A
paragraph is 5 consecutive sentences of one document or article; sentences count from
20 letters (langid.min_chars). A confusion within one ISO 639-3 macrolanguage counts as
right (bench_ntrex.is_right). NTREX-128's "nso" file is Southern Sotho (langmodel/ntrex.py).

1. Every language with real text in the model (news, Wikipedia), as built and with that
   text taken away: the language known from the UDHR alone while its neighbours keep
   theirs, the case of Southern Sotho, Kirundi or Bhojpuri beside a neighbour with news
   (its real-text columns masked and the lending of collie.langid.model recomputed
   without them; the maxent layer and the n-gram pruning stay as built). The languages
   under 97% of their paragraphs either way are named, with what took them.
2. OLDI Seed's languages: held-out paragraphs (target 97%) and sentences (target 90%).
3. Close pairs (langmodel/close_pairs.tsv): the share of each side's real paragraphs
   kept, as built and with the side's real text taken away (target 95%).
4. A known target fitted to 100 real sentences of the user's (collie.langid.learn
   .fit_language, what `collie init --docs` does, after its real text was taken away):
   its other held-out paragraphs (target 95%) and its neighbour's taken for it (5%).

With `--baseline F` (the model before, say `git show COMMIT:collie/data/langid/model.npz
> F`), parts 1-3 print its figures beside, measured in the same run.

Run: python benchmarks/bench_fairness.py [--model F] [--baseline F] [--fit-all]
(about 3 minutes; --fit-all fits every language of part 1, not only the pairs' ~8 min)
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench_ntrex import is_right, truth_of

from collie.langid import LangModel, load_model
from collie.langid.learn import fit_language
from collie.langid.model import column_code
from collie.langid.train import remove_columns
from langmodel.realtext import (
    NTREX,
    OLDI,
    ntrex_heldout,
    ntrex_present,
    ntrex_training_sentences,
    oldi_heldout,
    oldi_language,
    oldi_present,
    oldi_training_sentences,
    paragraphs_of,
)

PAIRS = Path(__file__).resolve().parents[1] / "langmodel" / "close_pairs.tsv"
MIN_LETTERS = 20
PARAGRAPH_TARGET = 0.97
SENTENCE_TARGET = 0.90
PAIR_TARGET = 0.95
FIT_SENTENCES = 100
FIT_RECALL, FIT_TAKEN = 0.95, 0.05
MACROS = {"zho", "fas", "msa", "hmn", "pus"}  # NTREX files named by a macrolanguage


@dataclass
class Texts:
    """Held-out real text by language: (source, kind) -> texts."""

    by_language: dict[str, dict[tuple[str, str], list[str]]] = field(default_factory=dict)

    def add(self, language: str, source: str, kind: str, texts: Sequence[str]) -> None:
        self.by_language.setdefault(language, {}).setdefault((source, kind), []).extend(texts)

    def of(self, language: str, kind: str, source: str | None = None) -> list[str]:
        found = self.by_language.get(language, {})
        return [t for (s, k), ts in found.items() if k == kind and source in (None, s) for t in ts]


def held_out_texts() -> Texts:
    texts = Texts()
    for variant, docs in ntrex_heldout().items():
        truth = truth_of(variant)
        texts.add(truth, "news", "para", paragraphs_of(docs))
        texts.add(truth, "news", "sent", [s for ss in docs.values() for s in ss])
    for variant, articles in oldi_heldout().items():
        language = oldi_language(variant)
        if language != "eng":
            texts.add(language, "wiki", "para", paragraphs_of(articles))
            texts.add(language, "wiki", "sent", [s for ss in articles.values() for s in ss])
    return texts


class Scorer:
    """One model's labels for texts, as built or with a language's real text away."""

    def __init__(self, model: LangModel) -> None:
        self.model = model
        registers = model.meta.get("registers") or {
            c: "news" for c in model.columns if c.endswith("/news")
        }
        self.real: dict[str, list[int]] = defaultdict(list)
        for j, column in enumerate(model.columns):
            if column in registers:
                self.real[column_code(column)].append(j)
        self.udhr = {column_code(c) for c in model.columns if c not in registers}

    def knows(self, language: str) -> bool:
        return language in self.model.codes or language in MACROS

    def simulable(self, language: str) -> bool:
        """Has it real text to take away, and a UDHR column left?"""
        return language in self.real and language in self.udhr

    def labels(self, texts: Sequence[str], without: str | None = None) -> list[str]:
        model = self.model
        if without is not None and self.simulable(without):
            model = model.without_columns([model.columns[j] for j in self.real[without]])
        return [code for code, _ in model.identify_batch(texts)]


def long_sentences(texts: Sequence[str]) -> list[str]:
    return [t for t in texts if sum(ch.isalpha() for ch in t) >= MIN_LETTERS]


def share_right(truth: str, labels: Sequence[str]) -> tuple[float, Counter[str]]:
    wrong = Counter(g for g in labels if not is_right(truth, g)[0])
    return (1 - sum(wrong.values()) / len(labels)) if labels else float("nan"), wrong


def took(wrong: Counter[str]) -> str:
    return ",".join(f"{g}:{n}" for g, n in wrong.most_common(2))


def part_one(scorers: dict[str, Scorer], texts: Texts) -> None:
    print("1. each language with real text in the model: paragraphs | sentences right, as "
          "built and with its real text taken away (UDHR only)")  # fmt: skip
    for name, scorer in scorers.items():
        sums = {k: [0.0, 0] for k in ("built p", "built s", "away p", "away s")}
        low: list[str] = []
        for language in sorted(scorer.real):
            if not scorer.simulable(language) or not texts.of(language, "para"):
                continue
            paragraphs, sentences = (
                texts.of(language, "para"),
                long_sentences(texts.of(language, "sent")),
            )
            row = []
            for key, without in (("built", None), ("away", language)):
                p, wrong = share_right(language, scorer.labels(paragraphs, without))
                s, _ = share_right(language, scorer.labels(sentences, without))
                sums[f"{key} p"][0] += p * len(paragraphs)
                sums[f"{key} p"][1] += len(paragraphs)
                sums[f"{key} s"][0] += s * len(sentences)
                sums[f"{key} s"][1] += len(sentences)
                row.append((p, wrong))
            if min(p for p, _ in row) < PARAGRAPH_TARGET:
                low.append(f"{language} {100 * row[0][0]:.0f}% ({took(row[0][1]) or '-'}) / "
                           f"{100 * row[1][0]:.0f}% ({took(row[1][1]) or '-'})")  # fmt: skip
        figures = {k: 100 * v[0] / max(v[1], 1) for k, v in sums.items()}
        simulated = sum(
            1 for lang in scorer.real if scorer.simulable(lang) and texts.of(lang, "para")
        )
        print(f"  {name}: {simulated} languages; as built {figures['built p']:.1f}% | "
              f"{figures['built s']:.1f}%; real text away {figures['away p']:.1f}% | "
              f"{figures['away s']:.1f}%")  # fmt: skip
        print(f"    under {100 * PARAGRAPH_TARGET:.0f}% of paragraphs as built / away "
              f"({len(low)}): {'; '.join(low) or '-'}")  # fmt: skip


def part_two(scorers: dict[str, Scorer], texts: Texts) -> None:
    print(f"2. OLDI Seed's languages, held-out paragraphs (target "
          f"{100 * PARAGRAPH_TARGET:.0f}%) | sentences of {MIN_LETTERS}+ letters (target "
          f"{100 * SENTENCE_TARGET:.0f}%)")  # fmt: skip
    languages = sorted({lang for lang, found in texts.by_language.items()
                        if any(s == "wiki" for s, _ in found)})  # fmt: skip
    for name, scorer in scorers.items():
        cells, misses, total = [], [], [0.0, 0, 0.0, 0]
        for language in languages:
            if not scorer.knows(language):
                cells.append(f"{language} -")
                continue
            paragraphs = texts.of(language, "para", "wiki")
            sentences = long_sentences(texts.of(language, "sent", "wiki"))
            p, wrong = share_right(language, scorer.labels(paragraphs))
            s, _ = share_right(language, scorer.labels(sentences))
            total[0] += p * len(paragraphs)
            total[1] += len(paragraphs)
            total[2] += s * len(sentences)
            total[3] += len(sentences)
            cells.append(f"{language} {100 * p:.0f}|{100 * s:.0f}")
            if p < PARAGRAPH_TARGET or s < SENTENCE_TARGET:
                misses.append(f"{language} ({took(wrong) or '-'})")
        known = sum(scorer.knows(lang) for lang in languages)
        print(f"  {name}: {known} of {len(languages)} known; paragraphs "
              f"{100 * total[0] / max(total[1], 1):.1f}%, sentences "
              f"{100 * total[2] / max(total[3], 1):.1f}%; under target: "
              f"{', '.join(misses) or '-'}")  # fmt: skip
        print(f"    {' '.join(cells)}")


def read_pairs(path: Path = PAIRS) -> list[tuple[str, str]]:
    rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()]
    return [
        (r[0], r[1]) for r in rows if len(r) >= 2 and not r[0].startswith("#") and r[0] != "small"
    ]


def part_three(scorers: dict[str, Scorer], texts: Texts) -> None:
    pairs = read_pairs()
    print(f"3. close pairs ({PAIRS.name}): each side's real paragraphs kept as built / with its "
          f"real text away (target {100 * PAIR_TARGET:.0f}%); '-' no real text here")  # fmt: skip
    for name, scorer in scorers.items():
        cells, failing = [], 0
        for small, neighbour in pairs:
            sides = []
            for side in (small, neighbour):
                paragraphs = texts.of(side, "para")
                if not paragraphs or not scorer.knows(side):
                    sides.append(f"{side} -")
                    continue
                built, _ = share_right(side, scorer.labels(paragraphs))
                away = None
                if scorer.simulable(side):
                    away, _ = share_right(side, scorer.labels(paragraphs, side))
                failing += built < PAIR_TARGET or (away is not None and away < PAIR_TARGET)
                sides.append(
                    f"{side} {100 * built:.0f}" + (f"/{100 * away:.0f}" if away is not None else "")
                )
            cells.append(" ".join(sides))
        print(f"  {name}: sides under target {failing}")
        print("    " + "; ".join(cells))


def part_four(model: LangModel, texts: Texts, every: bool) -> None:
    """A known target fitted to 100 of its real training sentences, its real text away."""
    training = {truth_of(v): s for v, s in ntrex_training_sentences().items()}
    for variant, sentences in oldi_training_sentences().items():
        training.setdefault(oldi_language(variant), sentences)
    scorer = Scorer(model)
    pairs = read_pairs()
    neighbour_of = dict(pairs) | {b: a for a, b in pairs if b not in dict(pairs)}
    if every:
        chosen = sorted(
            lang for lang in scorer.real if scorer.simulable(lang) and texts.of(lang, "para")
        )
    else:
        chosen = sorted({side for pair in pairs for side in pair
                         if scorer.simulable(side) and texts.of(side, "para")})  # fmt: skip
    print(f"4. a known target fitted to {FIT_SENTENCES} real sentences (its real text away "
          f"first): recall on its held-out paragraphs (target {100 * FIT_RECALL:.0f}%) | its "
          f"neighbour's taken for it (target <= {100 * FIT_TAKEN:.0f}%), "
          f"{len(chosen)} languages")  # fmt: skip
    results, started = [], time.monotonic()
    for language in chosen:
        base = remove_columns(model, {model.columns[j] for j in scorer.real[language]})
        docs = training.get(language, [])[:FIT_SENTENCES]
        if len(docs) < FIT_SENTENCES:
            continue
        fitted = fit_language(base, language, ["\n".join(docs)]).model
        recall, _ = share_right(
            language, [c for c, _ in fitted.identify_batch(texts.of(language, "para"))]
        )
        before, _ = share_right(
            language, [c for c, _ in base.identify_batch(texts.of(language, "para"))]
        )
        neighbour = neighbour_of.get(language)
        if neighbour is None or not texts.of(neighbour, "para"):  # the one that took most
            taken = Counter(
                c for c, _ in base.identify_batch(texts.of(language, "para")) if c != language
            )
            neighbour = next((c for c, _ in taken.most_common() if texts.of(c, "para")), None)
        theirs = texts.of(neighbour, "para") if neighbour else []
        stolen = (
            sum(c == language for c, _ in fitted.identify_batch(theirs)) / len(theirs)
            if theirs
            else float("nan")
        )
        results.append((language, before, recall, neighbour, stolen))
    ok = sum(r[2] >= FIT_RECALL and not r[4] > FIT_TAKEN for r in results)
    print(f"  {ok} of {len(results)} meet both ({time.monotonic() - started:.0f} s); mean recall "
          f"{100 * np.mean([r[2] for r in results]):.1f}% (UDHR only before fitting "
          f"{100 * np.mean([r[1] for r in results]):.1f}%)")  # fmt: skip
    print("    " + "; ".join(f"{lang} {100 * b:.0f}->{100 * r:.0f}% ({n or '-'} {100 * s:.0f}%)"
                             for lang, b, r, n, s in results))  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", type=Path, help="a model file instead of the bundled one")
    parser.add_argument("--baseline", type=Path, help="the model before, printed beside")
    parser.add_argument("--fit-all", action="store_true", help="part 4 for every language")
    args = parser.parse_args()
    if not (ntrex_present() and oldi_present()):
        print(f"fairness benchmark skipped: {NTREX} or {OLDI} is not there (development data, "
              "never needed by make test)")  # fmt: skip
        return
    texts = held_out_texts()
    model = load_model(args.model)
    scorers = {f"model ({args.model.name if args.model else 'bundled'})": Scorer(model)}
    if args.baseline:
        scorers[f"baseline ({args.baseline.name})"] = Scorer(load_model(args.baseline))
    part_one(scorers, texts)
    part_two(scorers, texts)
    part_three(scorers, texts)
    part_four(model, texts, args.fit_all)


if __name__ == "__main__":
    main()
