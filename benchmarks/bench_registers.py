"""Language identification on real text of every register the model never trained on,
collie beside py3langid, pycld2, CLD3, lingua and heliport in one run (issue 53).

Test sets (development data of ../shared/data, read when present and never committed;
the benchmark says which are missing and goes on with the others): lid-registers' test
files (Tatoeba conversation, African Storybook story pages, Universal Dependencies
treebank sentences; split by document by their maker), NTREX-128's held-out documents
(langmodel/ntrex.py), OLDI Seed's held-out articles (langmodel/realtext.py) and
news-text's held-out blocks (langmodel/registers.py). The build trains on none of them.

Items are sentences (a story page for African Storybook) of at least MIN_LETTERS
letters (collie's count), at most CAP a language and set taken evenly over the file;
paragraphs are PARAGRAPH consecutive items of one file (one document for NTREX and OLDI).
A confusion within one ISO 639-3 macrolanguage counts as right; `und` and no answer as
wrong. For each outside tool, on the languages it and collie both cover: the macro
accuracy (the mean of the languages' accuracies) of each, and the languages where collie
is more than MARGIN points below it; and the same with collie choosing among that tool's
languages only ("its languages only": the same candidates, since a tool that knows 97
languages cannot take Spanish for Asturian or Chavacano). Then collie's own floors: its
languages under 92% of sentences or 97% of paragraphs. Last, speed on one core: collie in
one batch call, the others one item per call (their APIs).

    python benchmarks/bench_registers.py                   # everything (~10 min)
    python benchmarks/bench_registers.py --baseline F      # a second collie model beside
    python benchmarks/bench_registers.py --tools collie,heliport --sets tatoeba,asp

`pip install '.[bench]'` installs the outside tools (heliport is GPL-3.0: a benchmark
peer, never a dependency); a tool that is not installed is skipped and says so.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench_langid import macrolanguage, pin_one_core
from bench_ntrex import Tool, heliport_tool, is_right, py3langid_tool, truth_of

from collie.langid import load_model
from collie.langid.corpus import udhr_heldout_texts
from collie.langid.evaluate import evaluate, heldout_snippets
from collie.langid.features import letter_counts
from collie.langid.model import NO_ANSWER, LangModel
from collie.languages import all_languages
from langmodel.groups import read_groups
from langmodel.realtext import ntrex_heldout, ntrex_present, oldi_heldout, oldi_present
from langmodel.registers import code_of, heldout_sets

MIN_LETTERS = 20
CAP = 200  # items a language and set
PARAGRAPH = 5
MARGIN = 2.0  # points below the best peer that a language may be
SENTENCE_FLOOR, PARAGRAPH_FLOOR = 92.0, 97.0
SPEED_ITEMS = 3000


def part1_map() -> dict[str, str]:
    return {lang.part1: code for code, lang in all_languages().items() if lang.part1}


def with_macros(codes: set[str]) -> set[str]:
    return codes | {macrolanguage(c) for c in codes}


class CollieIdentify:
    """A collie model's labels (the model kept for the UDHR lines)."""

    def __init__(self, model: LangModel) -> None:
        self.model = model

    def __call__(self, texts: Sequence[str]) -> list[str]:
        return [code for code, _ in self.model.identify_batch(texts)]

    def among(self, texts: Sequence[str], covers: Callable[[str], bool]) -> list[str]:
        """The labels when the model chooses among the languages `covers` names only (a
        peer's): its own answer where that is `und` or `zxx`, else the most probable of
        those languages (a member of a macrolanguage the peer names counts as named).
        What collie's scores say on the peer's own terms: a tool that knows 97 languages
        cannot take Spanish for Asturian or Chavacano."""
        allowed = np.array(
            [j for j, c in enumerate(self.model.codes) if covers(c) or covers(macrolanguage(c))],
            np.int64,
        )
        answers = self(texts)
        proba = self.model.predict_proba(texts)[:, allowed]
        best = proba.argmax(axis=1)
        return [
            a if a in NO_ANSWER else self.model.codes[allowed[b]]
            for a, b in zip(answers, best.tolist(), strict=True)
        ]


def collie_tool(path: Path | None, name: str) -> Tool:
    model = load_model(path)
    known = with_macros(set(model.codes))
    return Tool(name, CollieIdentify(model), lambda c: c in known, True)


def udhr_figures(model: LangModel) -> str:
    """Strict accuracy on the UDHR's held-out snippets per band: all languages | the
    members of the confusable groups."""
    snippets = heldout_snippets(udhr_heldout_texts())
    report = evaluate(model.identify_batch, snippets, method="collie", single_calls=0)
    members = {code for group in read_groups() for code in group}
    right: dict[Any, list[int]] = {band: [0, 0] for band in report.bands}
    for snippet, guess in zip(snippets, report.predictions, strict=True):
        if snippet.code in members:
            right[snippet.band][0] += guess == snippet.code
            right[snippet.band][1] += 1
    every = " / ".join(f"{100 * b.accuracy:.1f}" for b in report.bands.values())
    groups = " / ".join(f"{100 * r / max(n, 1):.1f}" for r, n in right.values())
    return f"all {every} | group members {groups}"


def group_table(
    per_set: dict[str, dict[str, dict[str, float]]], tools: list[Tool], collie: str
) -> None:
    """Each member of a confusable group (langmodel/groups.tsv) on each test set that has
    it: collie (and a baseline model), the best peer that covers it, and whether collie
    is more than MARGIN points below that peer."""
    models = [t.name for t in tools if isinstance(t.identify, CollieIdentify)]
    peers = [t.name for t in tools if not isinstance(t.identify, CollieIdentify)]
    print("\nconfusable groups (langmodel/groups.tsv), sentences right per language and set:")
    print(
        "  " + " ".join(f"{n[:22]:>22s}" for n in ["group: language, set", *models]) + "  best peer"
    )
    behind = 0
    for group in read_groups():
        for code in group:
            for name, results in per_set.items():
                if code not in results.get(collie, {}):
                    continue
                figures = [
                    f"{results[m][code]:22.1f}" if code in results[m] else " " * 22 for m in models
                ]
                best = max(
                    ((results[p][code], p) for p in peers if code in results[p]), default=None
                )
                peer = f"{best[0]:5.1f} {best[1]}" if best else "-"
                short = best is not None and results[collie][code] < best[0] - MARGIN
                behind += short
                label = f"{group[0]}..: {code}, {name}"
                print(
                    f"  {label:>22s} "
                    + " ".join(figures)
                    + f"  {peer}"
                    + ("  (collie behind)" if short else "")
                )
    print(f"  group languages more than {MARGIN:.0f} points behind the best peer: {behind}")


# CLD2 and CLD3 labels that are not ISO 639-1 codes of the language meant.
CLD_CODES = {"iw": "heb", "jw": "jav", "in": "ind", "fil": "tgl", "mo": "ron", "tl": "tgl"}


def cld_code(label: str, by_part1: dict[str, str]) -> str:
    base = label.split("-")[0]
    if base in CLD_CODES:
        return CLD_CODES[base]
    return by_part1.get(base, base if len(base) == 3 else "und")


def pycld2_tool() -> Tool | str:
    try:
        import pycld2
    except ImportError:
        return "pycld2: not installed (pip install '.[bench]')"
    by_part1 = part1_map()
    names = dict(pycld2.LANGUAGES)
    known = with_macros(
        {cld_code(names[n], by_part1) for n in pycld2.DETECTED_LANGUAGES if n in names}
    )
    known.discard("und")

    def one(text: str) -> str:
        try:
            return cld_code(pycld2.detect(text)[2][0][1], by_part1)
        except pycld2.error:
            return "und"

    return Tool("pycld2 0.42", lambda texts: [one(t) for t in texts], lambda c: c in known, False)


CLD3_LABELS = [
    "af",
    "am",
    "ar",
    "bg",
    "bn",
    "bs",
    "ca",
    "ceb",
    "co",
    "cs",
    "cy",
    "da",
    "de",
    "el",
    "en",
    "eo",
    "es",
    "et",
    "eu",
    "fa",
    "fi",
    "fil",
    "fr",
    "fy",
    "ga",
    "gd",
    "gl",
    "gu",
    "ha",
    "haw",
    "hi",
    "hmn",
    "hr",
    "ht",
    "hu",
    "hy",
    "id",
    "ig",
    "is",
    "it",
    "iw",
    "ja",
    "jv",
    "ka",
    "kk",
    "km",
    "kn",
    "ko",
    "ku",
    "ky",
    "la",
    "lb",
    "lo",
    "lt",
    "lv",
    "mg",
    "mi",
    "mk",
    "ml",
    "mn",
    "mr",
    "ms",
    "mt",
    "my",
    "ne",
    "nl",
    "no",
    "ny",
    "pa",
    "pl",
    "ps",
    "pt",
    "ro",
    "ru",
    "sd",
    "si",
    "sk",
    "sl",
    "sm",
    "sn",
    "so",
    "sq",
    "sr",
    "st",
    "su",
    "sv",
    "sw",
    "ta",
    "te",
    "tg",
    "th",
    "tr",
    "uk",
    "ur",
    "uz",
    "vi",
    "xh",
    "yi",
    "yo",
    "zh",
    "zu",
]


def cld3_tool() -> Tool | str:
    try:
        import gcld3
    except ImportError:
        return "CLD3: not installed (pip install '.[bench]': cld3-py)"
    by_part1 = part1_map()
    finder = gcld3.NNetLanguageIdentifier(min_num_bytes=0, max_num_bytes=1000)
    known = with_macros({cld_code(label, by_part1) for label in CLD3_LABELS})

    def one(text: str) -> str:
        found = finder.FindLanguage(text)
        return cld_code(found.language, by_part1)

    return Tool(
        "CLD3 (cld3-py 3.1)", lambda texts: [one(t) for t in texts], lambda c: c in known, False
    )


def lingua_tool() -> Tool | str:
    try:
        from lingua import Language, LanguageDetectorBuilder
    except ImportError:
        return "lingua: not installed (pip install '.[bench]')"
    detector = LanguageDetectorBuilder.from_all_languages().with_preloaded_language_models().build()
    known = with_macros({lang.iso_code_639_3.name.lower() for lang in Language.all()})

    def one(text: str) -> str:
        found = detector.detect_language_of(text)
        return found.iso_code_639_3.name.lower() if found else "und"

    return Tool("lingua 2.1", lambda texts: [one(t) for t in texts], lambda c: c in known, False)


MAKERS: dict[str, Callable[[], Tool | str]] = {
    "heliport": heliport_tool,
    "py3langid": py3langid_tool,
    "pycld2": pycld2_tool,
    "cld3": cld3_tool,
    "lingua": lingua_tool,
}


def evenly(items: list[str], cap: int) -> list[str]:
    if len(items) <= cap:
        return items
    step = len(items) / cap
    return [items[int(i * step)] for i in range(cap)]


def test_sets(names: set[str] | None) -> tuple[dict[str, dict[str, list[list[str]]]], list[str]]:
    """set -> truth code -> documents (lists of items), and what is missing."""
    raw: dict[str, dict[str, list[list[str]]]] = {}
    missing = []
    for name, by_label in heldout_sets().items():
        raw[name] = {}
        for label, items in by_label.items():
            raw[name].setdefault(code_of(label), []).append(items)
    if not raw:
        missing.append("lid-registers and news-text (../shared/data)")
    if ntrex_present():
        raw["ntrex"] = {}
        for variant, docs in ntrex_heldout().items():
            if variant.startswith("spa-") and variant != "spa":
                continue
            raw["ntrex"].setdefault(truth_of(variant), []).extend(docs.values())
    else:
        missing.append("ntrex")
    if oldi_present():
        raw["oldi"] = {}
        for variant, docs in oldi_heldout().items():
            raw["oldi"].setdefault(variant.split("_")[0], []).extend(docs.values())
    else:
        missing.append("oldi-seed")
    if names:
        raw = {k: v for k, v in raw.items() if k in names}
    return raw, missing


def sentences_of(docs: list[list[str]]) -> list[str]:
    items = [s for doc in docs for s in doc]
    counts = letter_counts(items) if items else []
    return evenly([s for s, n in zip(items, counts, strict=True) if n >= MIN_LETTERS], CAP)


def paragraphs_of(docs: list[list[str]]) -> list[str]:
    out = []
    for doc in docs:
        for start in range(0, len(doc) - PARAGRAPH + 1, PARAGRAPH):
            out.append(" ".join(doc[start : start + PARAGRAPH]))
    return evenly(out, CAP)


def accuracy(tool: Tool, items: dict[str, list[str]]) -> dict[str, float]:
    """truth -> percent right, over the languages the tool covers."""
    out = {}
    for truth, texts in items.items():
        if texts and tool.covers(truth):
            guesses = tool.identify(texts)
            out[truth] = 100 * sum(is_right(truth, g)[0] for g in guesses) / len(texts)
    return out


def among_line(
    collie: CollieIdentify, tool: Tool, items: dict[str, list[str]], theirs: dict[str, float]
) -> str:
    """collie choosing among `tool`'s languages only, on the languages both cover, beside
    `tool`: the same comparison with the same candidates."""
    mine = {}
    for truth, texts in items.items():
        guesses = collie.among(texts, tool.covers)
        mine[truth] = 100 * sum(is_right(truth, g)[0] for g in guesses) / len(texts)
    a, b = mean(list(mine.values())), mean([theirs[c] for c in mine])
    behind = [c for c in mine if mine[c] < theirs[c] - MARGIN]
    return (
        f"     its languages only: collie {a:5.1f} / {b:5.1f} ({a - b:+.1f}); collie >"
        f" {MARGIN:.0f} points behind on {len(behind)}"
        + (": " + ", ".join(f"{c} {mine[c]:.0f}/{theirs[c]:.0f}" for c in behind) if behind else "")
    )


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", type=Path, help="a collie model file instead of the bundled one")
    parser.add_argument("--baseline", type=Path, help="a second collie model, printed beside")
    parser.add_argument("--tools", default="collie," + ",".join(MAKERS))
    parser.add_argument("--sets", help="comma-separated test sets (default: all there)")
    parser.add_argument("--no-paragraphs", action="store_true")
    parser.add_argument("--no-udhr", action="store_true", help="no UDHR held-out lines")
    args = parser.parse_args()
    print(pin_one_core())
    sets, missing = test_sets(set(args.sets.split(",")) if args.sets else None)
    for name in missing:
        print(f"not there, skipped: {name}")
    if not sets:
        print(
            "no test set is there: nothing to measure (development data, never needed by make test)"
        )
        return
    wanted = args.tools.split(",")
    collie = collie_tool(
        args.model, "collie" if not args.baseline else f"collie ({args.model or 'bundled'})"
    )
    tools: list[Tool] = [collie]
    if args.baseline:
        tools.append(collie_tool(args.baseline, f"collie ({args.baseline.name})"))
    for key in wanted:
        if key in MAKERS:
            made = MAKERS[key]()
            if isinstance(made, str):
                print(f"skipped: {made}")
            else:
                tools.append(made)
    summary: list[str] = []
    per_set: dict[str, dict[str, dict[str, float]]] = {}
    for name, by_truth in sets.items():
        sentences = {t: sentences_of(docs) for t, docs in by_truth.items()}
        sentences = {t: s for t, s in sentences.items() if s}
        n = sum(map(len, sentences.values()))
        print(
            f"\n== {name}: {n:,} sentences of {MIN_LETTERS}+ letters in {len(sentences)} languages"
            f" (at most {CAP} a language)",
            flush=True,
        )
        results = {}
        for tool in tools:
            began = time.process_time()
            results[tool.name] = accuracy(tool, sentences)
            spent = time.process_time() - began
            own = results[tool.name]
            print(
                f"  {tool.name:22s} {len(own):3d} languages, macro {mean(list(own.values())):5.1f}"
                f"  ({spent:.1f} s CPU)",
                flush=True,
            )
        per_set[name] = results
        mine = results[collie.name]
        for tool in tools[1:]:
            theirs = results[tool.name]
            shared = sorted(set(mine) & set(theirs))
            if not shared:
                continue
            a, b = mean([mine[c] for c in shared]), mean([theirs[c] for c in shared])
            behind = [c for c in shared if mine[c] < theirs[c] - MARGIN]
            line = (
                f"  vs {tool.name:19s} on {len(shared):3d} shared: collie {a:5.1f} / {b:5.1f}"
                f" ({a - b:+.1f}); collie > {MARGIN:.0f} points behind on {len(behind)}"
            )
            print(line)
            summary.append(f"{name:9s} {line.strip()}")
            if behind:
                print("     " + ", ".join(f"{c} {mine[c]:.0f}/{theirs[c]:.0f}" for c in behind))
            if isinstance(collie.identify, CollieIdentify) and not isinstance(
                tool.identify, CollieIdentify
            ):
                line = among_line(collie.identify, tool, {c: sentences[c] for c in shared}, theirs)
                print(line)
                summary.append(f"{name:9s} {line.strip()}")
        low = sorted((v, c) for c, v in mine.items() if v < SENTENCE_FLOOR)
        print(
            f"  collie under {SENTENCE_FLOOR:.0f}% of sentences: {len(low)} of {len(mine)}: "
            + ", ".join(f"{c} {v:.0f}" for v, c in low)
        )
        if not args.no_paragraphs:
            paragraphs = {t: paragraphs_of(docs) for t, docs in by_truth.items()}
            paragraphs = {t: p for t, p in paragraphs.items() if p}
            own = accuracy(collie, paragraphs)
            low = sorted((v, c) for c, v in own.items() if v < PARAGRAPH_FLOOR)
            print(
                f"  collie paragraphs of {PARAGRAPH}: macro {mean(list(own.values())):.1f} over "
                f"{len(own)}; under {PARAGRAPH_FLOOR:.0f}%: {len(low)}: "
                + ", ".join(f"{c} {v:.0f}" for v, c in low)
            )
    print("\nsummary (macro accuracy on shared languages, collie / peer):")
    for line in summary:
        print("  " + line)
    group_table(per_set, tools, collie.name)
    if not args.no_udhr:
        print("\nUDHR held-out snippets, strict (50 / 150 / 400B; articles 21-30):")
        for tool in tools:
            if isinstance(tool.identify, CollieIdentify):
                print(f"  {tool.name:22s} {udhr_figures(tool.identify.model)}", flush=True)
    pool = [
        s for by_truth in sets.values() for docs in by_truth.values() for s in sentences_of(docs)
    ]
    sample = evenly(pool, SPEED_ITEMS)
    print(f"\nspeed on one core, {len(sample)} items:")
    for tool in tools:
        began = time.perf_counter()
        if tool.batch:
            tool.identify(sample)
        else:
            for text in sample:
                tool.identify([text])
        rate = len(sample) / (time.perf_counter() - began)
        print(
            f"  {tool.name:22s} {rate:9,.0f} items/s ({'batch' if tool.batch else 'one per call'})"
        )


if __name__ == "__main__":
    main()
