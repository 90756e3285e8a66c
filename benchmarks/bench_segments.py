"""The corpus holds the target language (issue 30): one mined workspace exported with
the rule before (`--segments all`: every paragraph) and the new default (`--segments
target`: the target-language paragraphs, code-switched ones when mainly target, headings
with their section), side by side.

Worlds: the news world from real text (../shared/data/news-text, as
bench_relatives.py builds it; skipped when absent) and the demo's world (pages this
project generated: its figures describe collie on that world, not on the web). Printed
per rule: documents, words, the words left out and by which language collie gave them,
and the world's scores of the export (precision some/mainly by the pages' ground truth,
boilerplate leaked: exported tokens not in the page's main text).

Run: python benchmarks/bench_segments.py [--world news|demo|both]
"""

from __future__ import annotations

import argparse
import io
import os
import tempfile
from collections import Counter
from pathlib import Path

from bench_relatives import news_options

from collie.corpus.export import ExportChoice, export_corpus
from collie.mininet.demo import demo_options, ensure_world, hidden_for, run_demo
from collie.mininet.records import BuildOptions
from collie.mininet.score import read_jsonl, score
from collie.mininet.worldfile import StoredWorld
from collie.workspace.folder import open_workspace


def left_out(docs: list[dict]) -> Counter[str]:
    """Words of the paragraphs a target export leaves out, by their language."""
    words: Counter[str] = Counter()
    for doc in docs:
        for p in doc["paragraphs"]:
            if not p["kept"]:
                words[p["language"]] += len(p["text"].split())
    return words


def print_world(name: str, options: BuildOptions, hide: tuple[str, ...]) -> None:
    world, built = ensure_world(options)
    hidden = ",".join(hide) or "-"
    print(f"== {name} world: {world.name} ({'built now' if built else 'cached'}); "
          f"langid.hide={hidden}; 2 loops, default settings", flush=True)  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="collie-bench-segments-") as tmp:
        result = run_demo(world, Path(tmp) / "run", delay=0.0, quiet=True,
                          echo=io.StringIO(), hide=hide)  # fmt: skip
        print(f"{'export':28} {'docs':>5} {'words':>8} {'left out':>9} {'prec.some':>9} "
              f"{'prec.main':>9} {'boilerpl.':>9}")  # fmt: skip
        words = {}
        for segments, label in (("all", "--segments all (before)"), ("target", "default (target)")):
            out = Path(tmp) / f"{segments}.jsonl"
            with open_workspace(result.workspace, os.environ, {}) as ws:
                count = export_corpus(ws, str(out), ExportChoice("jsonl", segments=segments))
            docs = read_jsonl(out)
            s = score(StoredWorld(world), docs)
            words[segments] = count.words
            print(f"{label:28} {count.documents:5d} {count.words:8,d} {count.other_words:9,d} "
                  f"{s.precision_some:9.4f} {s.precision_mainly:9.4f} "
                  f"{s.boilerplate_leaked:9.4f}", flush=True)  # fmt: skip
        change = words["target"] / words["all"] - 1 if words["all"] else 0.0
        langs = ", ".join(f"{code} {n:,}" for code, n in left_out(docs).most_common(6))
        print(f"  words: {change:+.1%} with the default; left out by language: {langs or '-'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--world", choices=("news", "demo", "both"), default="both")
    args = parser.parse_args()
    if args.world in ("news", "both"):
        options = news_options()
        if options is None:
            print("news world: skipped, ../shared/data/news-text is not there")
        else:
            print_world("news (real text)", options, hidden_for(options.target))
    if args.world in ("demo", "both"):
        print_world("demo (generated pages)", demo_options(), ())


if __name__ == "__main__":
    main()
