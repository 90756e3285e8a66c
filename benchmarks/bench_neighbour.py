"""A known target fitted to the user's documents beside a close neighbour the model knows.

Issue 59: a Kirundi corpus mined with Kirundi news documents was 46% Kinyarwanda: the
target fitted to the documents (collie.langid.learn.fit_language) took the neighbour's
pages. This closed world is built from real text, read from ../shared/data/news-text
when it is there (never committed, never needed by `make test`): Xhosa news is the
target (the seed documents are its first SEED_WORDS words, the pages are built from the
rest), a third of the sites are in its relatives (Zulu news, which the model knows too,
and the UDHR's Southern Ndebele and Swati), the others in Tswana, Shona, Chichewa,
Kinyarwanda and Swahili news and English (UDHR); every language but the target from
the news blocks the model's build held out, as new to it as the web is. The model knows
the target: it is fitted, not learnt. `--target zul` swaps the pair (Zulu the target, Xhosa news the
neighbour); `--udhr-only` takes the target's real text out of the model first
(langid.hide CODE/real), the case of Kirundi, known from the UDHR alone, beside
Kinyarwanda with real text.

Printed: the corpus's documents, precision (some / mainly target), recall of the
reachable target pages, the relatives' pages fetched and exported, their words and
their share of the corpus's words (target at most 1%), and what init said of the
neighbours. Mined with the default settings, 2 loops, over HTTP.

Run: python benchmarks/bench_neighbour.py [--target xho|zul] [--baseline DIR]
(about 2 minutes a world row). A checkout of the code before issue 59 knows no
`langid.hide CODE/real`: for its rows known from the UDHR alone, give it learn.base_model's
and create._hidden_languages' handling of it first (the rows of docs/benchmarks.md were
measured so); its other rows need nothing.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
# The code measured: this checkout, or a baseline's (--baseline runs this file again in it).
sys.path.insert(0, os.environ.get("COLLIE_BENCH_CODE", str(Path(__file__).resolve().parents[1])))
from bench_relatives import NEWS, NEWS_FILES, news_options

from collie.langid import load_model
from collie.langid.learn import base_model, fit_language
from collie.langid.modelfile import read_model
from collie.mininet.demo import ensure_world, run_demo
from collie.mininet.records import BuildOptions
from collie.mininet.score import read_jsonl
from collie.store.database import INIT_WARNINGS
from collie.udhr import cache_dir
from langmodel.build import REAL_CHARS
from langmodel.registers import news_text_split, spread

CODE = "COLLIE_BENCH_CODE"
OTHERS = ("zul", "xho", "nbl", "ssw", "eng", "tsn", "sna", "nya", "kin", "swh")
PAIRS = (("zul", "xho"), ("xho", "zul"))


def world_options(target: str) -> BuildOptions | None:
    """The world's options: the target's news as news-text holds it, every other
    language's news from the blocks the model's build held out (langmodel/registers.py
    news_text_split: the model never read them, as it never read the web's pages),
    written into collie's cache (never into the repository)."""
    options = news_options()
    if options is None:
        return None
    held_out = {NEWS_FILES[code]: code for code in NEWS_FILES}
    docs = dict(options.docs)
    for name, (_, test) in news_text_split(NEWS).items():
        code = held_out.get(name)
        if code is None or code == target:
            continue
        folder = cache_dir() / "news-text" / f"{code}-held-out"
        folder.mkdir(parents=True, exist_ok=True)
        text = folder / f"{name}.txt"
        if not text.exists():
            text.write_text("\n".join(test) + "\n", encoding="utf-8")
        docs[code] = folder
    return BuildOptions(target=target, langs=tuple(c for c in OTHERS if c != target),
                        sites=options.sites, docs=docs, relative_share=1 / 3,
                        seed_head=options.seed_head)  # fmt: skip


def mine_row(target: str, hide: tuple[str, ...]) -> str:
    """The world mined from a new workspace: its table row, and what init and the loop
    said of the neighbours (read from the workspace: init's warnings, the model's meta)."""
    options = world_options(target)
    assert options is not None
    world, _ = ensure_world(options)
    with tempfile.TemporaryDirectory(prefix="collie-bench-neighbour-") as tmp:
        started = time.monotonic()
        result = run_demo(world, Path(tmp) / "run", delay=0.0, quiet=True, echo=io.StringIO(),
                          hide=hide)  # fmt: skip
        seconds = time.monotonic() - started
        root = Path(tmp) / "run" / "workspace"
        words = sum(len(d["text"].split()) for d in read_jsonl(Path(tmp) / "run" / "corpus.jsonl"))
        meta = read_model(root / "models" / "langid.npz").meta
        with sqlite3.connect(root / "collie.db") as conn:
            warned = [w for w in init_warnings_of(conn) if "close to" in w]
    s = result.scores
    share = s.relative_words / words if words else 0.0
    said = [f"    init: {w[:150]}" for w in warned]
    if meta.get("neighbour_web"):
        said.append(f"    loop: the neighbours' web text (letters) {meta['neighbour_web']}")
    return "\n".join([
        f"{s.exported:5d} {s.precision_some:9.4f} {s.precision_mainly:9.4f} "
        f"{s.recall_reachable:12.4f} {s.relative_pages_fetched or 0:11d} "
        f"{s.relative_pages_exported:12d} {s.relative_words:9d} {share:8.2%} {seconds:7.1f}",
        *said,
    ])  # fmt: skip


def init_warnings_of(conn: sqlite3.Connection) -> list[str]:
    row = conn.execute("SELECT value FROM workspace_info WHERE key = ?", (INIT_WARNINGS,))
    found = row.fetchone()
    return list(json.loads(found[0])) if found else []


def paragraphs_of(sentences: list[str], size: int = 5) -> list[str]:
    return [" ".join(sentences[i : i + size]) for i in range(0, len(sentences) - size + 1, size)]


def paragraph_part(fit_sentences: int) -> None:
    """Point 1 of issue 59 on real held-out text: the neighbour's held-out news
    paragraphs the target takes before fitting, fitted (all the documents in the user's
    column: what collie does) and, the alternative measured and not taken, fitted to
    documents capped at a real-text column (REAL_CHARS, taken evenly over them), the
    target as built and known from the UDHR alone."""
    split = news_text_split(NEWS)
    model = load_model()
    print(f"1. the neighbour's held-out news paragraphs (5 sentences) taken for the target "
          f"fitted to {fit_sentences} news sentences, and the target's own held-out "
          f"paragraphs kept: before fitting / fitted / fitted to {REAL_CHARS:,} characters "
          "of them")  # fmt: skip
    for target, neighbour in PAIRS:
        for udhr_only in (False, True):
            base = base_model([f"{target}/real"]) if udhr_only else model
            sentences = split[NEWS_FILES[target]][0][:fit_sentences]
            documents = ["\n".join(sentences[i : i + 20]) for i in range(0, len(sentences), 20)]
            capped = [d for _, d in spread(documents, REAL_CHARS)]
            fitted = fit_language(base, target, documents).model
            small = fit_language(base, target, capped).model
            theirs = paragraphs_of(split[NEWS_FILES[neighbour]][1])
            mine = paragraphs_of(split[NEWS_FILES[target]][1])
            cells = []
            for texts in (theirs, mine):
                shares = [
                    sum(c == target for c, _ in m.identify_batch(texts)) / len(texts)
                    for m in (base, fitted, small)
                ]
                cells.append(" / ".join(f"{100 * x:5.1f}" for x in shares))
            print(f"  {target} ({'UDHR only' if udhr_only else 'as built'}) beside {neighbour}: "
                  f"{neighbour} taken {cells[0]} ({len(theirs)}); {target} kept {cells[1]} "
                  f"({len(mine)})", flush=True)  # fmt: skip


def use_code() -> None:
    """The commands run_demo starts (`python -m collie`) run the code measured too."""
    code = os.environ.get(CODE, str(Path(__file__).resolve().parents[1]))
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (code, os.environ.get("PYTHONPATH", "")) if p
    )


def main() -> None:
    use_code()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", choices=("xho", "zul"), default="zul")
    parser.add_argument("--baseline", type=Path,
                        help="a checkout of collie before (its world rows printed above, "
                        "mined in the same run with its code)")  # fmt: skip
    parser.add_argument("--fit-sentences", type=int, default=3000)
    parser.add_argument("--row", choices=("built", "udhr"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if world_options(args.target) is None:
        print(f"known-neighbour benchmark skipped: {NEWS} is not there (development data, "
              "see ../shared/data/news-text/SOURCES.md)")  # fmt: skip
        return
    if args.row:  # one world row, for a baseline's run
        print(mine_row(args.target, (f"{args.target}/real",) if args.row == "udhr" else ()))
        return
    paragraph_part(args.fit_sentences)
    world, built = ensure_world(world_options(args.target))  # type: ignore[arg-type]
    print(f"2. the world {world.name} ({'built now' if built else 'cached'}): target "
          f"{args.target} fitted to the seed documents, 2 loops")  # fmt: skip
    print(f"  {'':28} {'docs':>5} {'prec.some':>9} {'prec.main':>9} {'recall.reach':>12} "
          f"{'rel.fetched':>11} {'rel.exported':>12} {'rel.words':>9} {'of words':>8} "
          f"{'seconds':>7}")  # fmt: skip
    for row, label in (("built", "as built"), ("udhr", "known from the UDHR alone")):
        hide = (f"{args.target}/real",) if row == "udhr" else ()
        if args.baseline:
            env = {**os.environ, CODE: str(args.baseline.resolve())}
            command = [sys.executable, __file__, "--target", args.target, "--row", row]
            done = subprocess.run(
                command, capture_output=True, text=True, env=env, check=False, cwd=args.baseline
            )  # `python -m collie` reads its folder first
            lines = (done.stdout.strip() or done.stderr.strip()[-300:]).splitlines()
            print(f"  {'baseline, ' + label:28} {lines[0] if lines else '?'}")
            for line in lines[1:]:
                print(f"  {line}")
        lines = mine_row(args.target, hide).splitlines()
        print(f"  {'now, ' + label:28} {lines[0]}", flush=True)
        for line in lines[1:]:
            print(f"  {line}")


if __name__ == "__main__":
    main()
