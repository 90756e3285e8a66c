"""Language identification on real news sentences: NTREX-128's held-out documents (issue
32's yardstick), collie beside heliport and py3langid on the same sentences, one run.

Data: ../shared/data/ntrex (the same 1,997 news sentences of 123 documents in 128
language variants, CC BY-SA 4.0: SOURCES.md there), read when present and never
committed; the benchmark says so and stops when it is absent. The split is by document,
never by line (the files are translations of each other): a document is held out when
the SHA-1 of its id is 0 modulo HELD_OUT_EVERY, so about a fifth of the documents (and
of the sentences of every language) are the test set, the same on every machine
(langmodel/ntrex.py: the split the model build uses too). Only the held-out sentences
are scored here; the others are what `langmodel/build.py --ntrex-chars N` trains on.
Last, collie's strict accuracy on the held-out UDHR snippets, which must not fall.

A variant's truth is its ISO 639-3 code without script or country (`srp-Latn` -> srp,
`fra-CA` -> fra), Filipino (fil) read as Tagalog (tgl), its standard form, which every
tool here answers; the second Spanish reference is left out. Accuracy is over each tool's
own languages (those it can answer), `und` and no answer counting as wrong, a confusion
within one ISO 639-3 macrolanguage counted right (the strict figure in brackets: see
`is_right`); then
the three on the languages all of them cover, on all sentences and on those of at least
20 letters: collie leaves a shorter text `und` by default (langid.min_chars 20, a dense
script's character counted as 2-3 letters), so its second row is the same model with
langid.min_chars 10, the setting a user identifying single sentences would choose.
Speed: sentences per second on one core, collie in one batch call, the others one
sentence per call (their APIs). Last, the UDHR held-out snippets: all languages, then
those with NTREX text apart from those with the UDHR only (the balance of issue 32).

Run: python benchmarks/bench_ntrex.py [--model F] [--collie-only]   (about a minute;
`pip install '.[bench]'` for heliport and py3langid; a row without its tool is skipped
and says so)
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from collie.langid import load_model
from collie.langid.corpus import udhr_heldout_texts
from collie.langid.evaluate import evaluate, heldout_snippets
from collie.langid.features import letter_counts
from collie.langid.model import DEFAULT_MIN_CHARS as MIN_CHARS
from collie.languages import all_languages

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench_langid import HELIPORT_CODES, SERBO_CROATIAN, macrolanguage, pin_one_core

from langmodel.ntrex import (
    ALIASES,
    HELD_OUT_EVERY,
    NTREX,
    classes_for,
    documents,
    held_out,
    ntrex_split,
)

STARTUP_RUNS = 3
SHORT_SETTING = 10  # the second collie row: langid.min_chars 10 instead of 20

Identify = Callable[[Sequence[str]], list[str]]


def truth_of(variant: str) -> str:
    """The language a variant's sentences are in (module docstring)."""
    base = variant.split("-")[0]
    return {"fil": "tgl", "nso": ALIASES["nso"]}.get(base, base)


def is_right(truth: str, guess: str) -> tuple[bool, bool]:
    """(right counting macrolanguages, strictly right). Strictly right is the very code,
    or for a file named by a macrolanguage (zho, fas, msa...) any of its members: the
    file does not say which one it is in."""
    macro = macrolanguage(guess)
    strict = guess == truth or macro == truth
    same_macro = macro == macrolanguage(truth) or guess == macrolanguage(truth)
    return strict or same_macro, strict


@dataclass
class Tool:
    name: str
    identify: Identify
    covers: Callable[[str], bool]  # can it answer this ISO 639-3 code?
    batch: bool  # timed as one batch call


def collie_tool(path: Path | None = None, min_chars: int | None = None) -> Tool:
    model = load_model(path)
    if min_chars is not None:
        model = model.with_settings(model.threshold, min_chars)
    codes = set(model.codes)
    macros = {macrolanguage(c) for c in codes}

    def identify(texts: Sequence[str]) -> list[str]:
        return [code for code, _ in model.identify_batch(texts)]

    name = f"collie ({path.name})" if path else "collie (bundled)"
    if min_chars is not None:
        name = f"  min_chars {min_chars}"
    return Tool(name, identify, lambda c: c in codes or c in macros, True)


def heliport_tool() -> Tool | str:
    try:
        import heliport
    except ImportError:
        return "heliport: not installed (pip install '.[bench]')"
    identifier = heliport.Identifier()
    path = Path(str(heliport.__file__)).parent / "confidenceThresholds"
    labels = {line.split()[0] for line in path.read_text().splitlines() if line.strip()}
    known = {HELIPORT_CODES.get(label, label) for label in labels} | (
        SERBO_CROATIAN if "hbs" in labels else set()
    )
    known |= {macrolanguage(c) for c in known}

    def identify(texts: Sequence[str]) -> list[str]:
        codes = (identifier.identify(t) for t in texts)
        return [HELIPORT_CODES.get(c, c) for c in codes]

    return Tool("heliport 1.0.1", identify, lambda c: c in known, False)


def py3langid_tool() -> Tool | str:
    try:
        import py3langid.langid as langid
    except ImportError:
        return "py3langid: not installed (pip install '.[bench]')"
    langid.classify("warm up")  # loads the model
    by_part1 = {lang.part1: code for code, lang in all_languages().items() if lang.part1}
    labels = list(langid.IDENTIFIER.nb_classes)
    known = {by_part1.get(label, label) for label in labels}
    known |= {macrolanguage(c) for c in known}

    def identify(texts: Sequence[str]) -> list[str]:
        return [by_part1.get(label, label) for label, _ in map(langid.classify, texts)]

    return Tool("py3langid", identify, lambda c: c in known, False)


def long_enough(tests: dict[str, list[str]], letters: int) -> dict[str, list[str]]:
    """The sentences of at least `letters` letters (collie's count, langid.min_chars)."""
    return {
        variant: [
            s for s, n in zip(sentences, letter_counts(sentences), strict=True) if n >= letters
        ]
        for variant, sentences in tests.items()
    }


def score(tool: Tool, tests: dict[str, list[str]], codes: set[str]) -> tuple[float, float, int]:
    """(accuracy with macrolanguages, strict accuracy, languages) over `codes`."""
    right = strict = n = 0
    for variant, sentences in tests.items():
        truth = truth_of(variant)
        if truth not in codes or not sentences:
            continue
        for guess in tool.identify(sentences):
            ok, exact = is_right(truth, guess)
            right, strict, n = right + ok, strict + exact, n + 1
    languages = len({truth_of(v) for v in tests} & codes)
    return (right / n if n else 0.0), (strict / n if n else 0.0), languages


def speed(tool: Tool, sentences: list[str]) -> float:
    sample = sentences[:3000]
    began = time.perf_counter()
    if tool.batch:
        tool.identify(sample)
    else:
        for text in sample:
            tool.identify([text])
    return len(sample) / (time.perf_counter() - began)


def startup(path: Path | None) -> None:
    """Seconds for `collie langid identify` on one line, process start to exit (best of
    STARTUP_RUNS): the interpreter, the imports, the model's load and its first batch."""
    command = [sys.executable, "-m", "collie", "langid", "identify"]
    if path:
        command += ["--model", str(path)]
    best = float("inf")
    for _ in range(STARTUP_RUNS):
        began = time.perf_counter()
        subprocess.run(command, input="Kila mtu ana haki ya kupumzika\n", text=True,
                       capture_output=True, check=True)  # fmt: skip
        best = min(best, time.perf_counter() - began)
    print(f"collie langid identify, one line, start to exit (best of {STARTUP_RUNS}): {best:.2f} s")


def udhr_lines(path: Path | None, tests: dict[str, list[str]]) -> None:
    """The model's strict accuracy on the held-out UDHR snippets (articles 21-30), per
    band: what must not fall when real sentences join the training; then apart for the
    languages with NTREX text and those with the UDHR only (the balance: a language of
    the UDHR only must not be swallowed by a richer neighbour)."""
    model = load_model(path)
    snippets = heldout_snippets(udhr_heldout_texts())
    report = evaluate(model.identify_batch, snippets, method="collie", single_calls=0)
    macro_of = {c: lang.macrolanguage for c, lang in all_languages().items() if lang.macrolanguage}
    news = {classes_for(v, model.codes, macro_of) for v in tests} & {s.code for s in snippets}
    groups = {
        f"{len(news)} with NTREX text": news,
        f"{len({s.code for s in snippets} - news)} with the UDHR only": {s.code for s in snippets}
        - news,
    }
    print(f"UDHR held-out snippets, strict (50 / 150 / 400B), {len(model.codes)} languages:")
    print(f"  all {len({s.code for s in snippets})}: {bands_of(report.bands.values())}")
    for name, codes in groups.items():
        right = {band: [0, 0] for band in report.bands}
        for snippet, guess in zip(snippets, report.predictions, strict=True):
            if snippet.code in codes:
                right[snippet.band][0] += guess == snippet.code
                right[snippet.band][1] += 1
        figures = " / ".join(f"{100 * r / max(n, 1):.1f}" for r, n in right.values())
        print(f"  {name}: {figures}")


def bands_of(scores: Iterable[Any]) -> str:
    return " / ".join(f"{100 * s.accuracy:.1f}" for s in scores)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", type=Path, help="a model file instead of the bundled one")
    parser.add_argument("--collie-only", action="store_true", help="no outside tools")
    args = parser.parse_args()
    if not (NTREX / "DOCUMENT_IDS.tsv").exists():
        print(f"NTREX benchmark skipped: {NTREX} is not there (development data, never needed "
              "by make test)")  # fmt: skip
        return
    print(pin_one_core())
    split = ntrex_split()
    tests = {variant: test for variant, (_, test) in split.items()}
    n = sum(len(t) for t in tests.values())
    docs = sum(held_out(d) for d in set(documents()))
    print(f"NTREX-128 held-out documents ({docs} of 123, by SHA-1 of the id mod "
          f"{HELD_OUT_EVERY}): {n:,} sentences in {len(tests)} variants, "
          f"{len({truth_of(v) for v in tests})} languages")  # fmt: skip
    tools: list[Tool] = [collie_tool(args.model)]
    setting = collie_tool(args.model, min_chars=SHORT_SETTING)
    for made in () if args.collie_only else (heliport_tool(), py3langid_tool()):
        if isinstance(made, str):
            print(f"  skipped: {made}")
        else:
            tools.append(made)
    everything = {truth_of(v) for v in tests}
    mixed = [s for sentences in tests.values() for s in sentences[::7]]
    print("each tool on its own languages:")
    for tool in [tools[0], setting, *tools[1:]]:
        own = {c for c in everything if tool.covers(c)}
        acc, strict, languages = score(tool, tests, own)
        rate = speed(tool, mixed)
        print(f"  {tool.name:18s} {languages:3d} languages  accuracy {100 * acc:5.1f} "
              f"({100 * strict:5.1f} strict)  {rate:9,.0f} sentences/s "
              f"({'batch' if tool.batch else 'one per call'})", flush=True)  # fmt: skip
    common = {c for c in everything if all(t.covers(c) for t in tools)}
    longer = long_enough(tests, MIN_CHARS)
    kept = sum(map(len, longer.values()))
    print(f"on the {len(common)} languages all {len(tools)} cover: all sentences | the "
          f"{100 * kept / n:.1f}% of {MIN_CHARS} letters or more "
          "(collie's langid.min_chars)")  # fmt: skip
    for tool in [tools[0], setting, *tools[1:]]:
        acc, strict, _ = score(tool, tests, common)
        acc_long, strict_long, _ = score(tool, longer, common)
        print(f"  {tool.name:18s} accuracy {100 * acc:5.1f} ({100 * strict:5.1f} strict) | "
              f"{100 * acc_long:5.1f} ({100 * strict_long:5.1f} strict)", flush=True)  # fmt: skip
    missing = sorted(everything - {c for c in everything if tools[0].covers(c)})
    print(f"NTREX languages collie's model lacks ({len(missing)}): {', '.join(missing) or '-'}")
    startup(args.model)
    udhr_lines(args.model, tests)


if __name__ == "__main__":
    main()
