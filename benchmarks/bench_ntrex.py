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
`fra-CA` -> fra); the second Spanish reference is left out. Accuracy is over each tool's
own languages (those it can answer), `und` and no answer counting as wrong, a confusion
within one ISO 639-3 macrolanguage counted right (the strict figure in brackets); then
the three on the languages all of them cover. Speed: sentences per second on one core,
collie in one batch call, the others one sentence per call (their APIs).

Run: python benchmarks/bench_ntrex.py [--model F] [--collie-only]   (about a minute;
`pip install '.[bench]'` for heliport and py3langid; a row without its tool is skipped
and says so)
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from collie.langid import load_model
from collie.langid.corpus import udhr_heldout_texts
from collie.langid.evaluate import evaluate, heldout_snippets
from collie.languages import all_languages

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench_langid import HELIPORT_CODES, SERBO_CROATIAN, macrolanguage, pin_one_core

from langmodel.ntrex import HELD_OUT_EVERY, NTREX, documents, held_out, ntrex_split

Identify = Callable[[Sequence[str]], list[str]]


def is_right(truth: str, guess: str) -> tuple[bool, bool]:
    """(right counting macrolanguages, strictly right)."""
    strict = guess == truth
    macro = macrolanguage(guess)
    return strict or macro == macrolanguage(truth) != guess or macro == truth, strict


@dataclass
class Tool:
    name: str
    identify: Identify
    covers: Callable[[str], bool]  # can it answer this ISO 639-3 code?
    batch: bool  # timed as one batch call


def collie_tool(path: Path | None = None) -> Tool:
    model = load_model(path)
    codes = set(model.codes)
    macros = {macrolanguage(c) for c in codes}

    def identify(texts: Sequence[str]) -> list[str]:
        return [code for code, _ in model.identify_batch(texts)]

    name = f"collie ({path.name})" if path else "collie (bundled)"
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


def score(tool: Tool, tests: dict[str, list[str]], codes: set[str]) -> tuple[float, float, int]:
    """(accuracy with macrolanguages, strict accuracy, languages) over `codes`."""
    right = strict = n = 0
    for variant, sentences in tests.items():
        truth = variant.split("-")[0]
        if truth not in codes:
            continue
        for guess in tool.identify(sentences):
            ok, exact = is_right(truth, guess)
            right, strict, n = right + ok, strict + exact, n + 1
    languages = len({v.split("-")[0] for v in tests} & codes)
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


def udhr_lines(path: Path | None) -> None:
    """The model's strict accuracy on the held-out UDHR snippets (articles 21-30), per
    band: what must not fall when real sentences join the training."""
    model = load_model(path)
    report = evaluate(model.identify_batch, heldout_snippets(udhr_heldout_texts()),
                      method="collie", single_calls=0)  # fmt: skip
    bands = " / ".join(f"{100 * s.accuracy:.1f}" for s in report.bands.values())
    print(f"  UDHR held-out, {len(model.codes)} languages, strict (50 / 150 / 400B): {bands}")


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
          f"{len({v.split('-')[0] for v in tests})} languages")  # fmt: skip
    tools: list[Tool] = [collie_tool(args.model)]
    for made in () if args.collie_only else (heliport_tool(), py3langid_tool()):
        if isinstance(made, str):
            print(f"  skipped: {made}")
        else:
            tools.append(made)
    everything = {v.split("-")[0] for v in tests}
    mixed = [s for sentences in tests.values() for s in sentences[::7]]
    print("each tool on its own languages:")
    for tool in tools:
        own = {c for c in everything if tool.covers(c)}
        acc, strict, languages = score(tool, tests, own)
        rate = speed(tool, mixed)
        print(f"  {tool.name:18s} {languages:3d} languages  accuracy {100 * acc:5.1f} "
              f"({100 * strict:5.1f} strict)  {rate:9,.0f} sentences/s "
              f"({'batch' if tool.batch else 'one per call'})", flush=True)  # fmt: skip
    common = {c for c in everything if all(t.covers(c) for t in tools)}
    print(f"on the {len(common)} languages all {len(tools)} cover:")
    for tool in tools:
        acc, strict, _ = score(tool, tests, common)
        print(
            f"  {tool.name:18s} accuracy {100 * acc:5.1f} ({100 * strict:5.1f} strict)", flush=True
        )
    missing = sorted(everything - {c for c in everything if tools[0].covers(c)})
    print(f"NTREX languages collie's model lacks ({len(missing)}): {', '.join(missing) or '-'}")
    udhr_lines(args.model)


if __name__ == "__main__":
    main()
