"""A language the model does not know, among relatives it does not know either.

Two closed worlds, each mined from a new workspace with the real command line over HTTP
(collie.mininet.demo), with the target and its close relatives hidden from the model
(langid.hide): the target is learnt from seed documents at `collie init`.

- news: the development world from real text, read from ../shared/data/news-text when
  it is there (never committed, never needed by `make test`): Zulu news is the target
  (the seed documents are its first SEED_WORDS words, the pages are built from the rest),
  a third of the sites are in its relatives (Xhosa news, UDHR Southern Ndebele and
  Swati), the others in Tswana, Shona, Chichewa, Kinyarwanda and Swahili news and
  English (UDHR);
- demo (learn): `make demo`'s world with a third of the sites in Zulu's relatives and
  half of Zulu's UDHR text as seed documents (~500 words: init goes on with --force),
  UDHR text only, self-contained.

Each world is mined with the current rule (langid.min_pass = 0: no relative check, the
rule before issue 16) and the new one (the defaults: page and site rules, and the
relatives pass that learns the target again against the relative-suspected pages'
text, collie.relatives), side by side; under each, the same corpus restricted to its
documents mainly in the target (`collie export --min-share 0.5`).

Run: python benchmarks/bench_relatives.py [--world news|demo|both]
"""

from __future__ import annotations

import argparse
import gzip
import io
import tempfile
import time
from pathlib import Path

from collie.mininet.demo import demo_options, ensure_world, hidden_for, run_demo
from collie.mininet.records import BuildOptions
from collie.mininet.score import MAINLY, Scores, read_jsonl, score
from collie.mininet.worldfile import StoredWorld
from collie.udhr import cache_dir

NEWS = Path(__file__).resolve().parents[2] / "shared" / "data" / "news-text"
SEED_WORDS = 30_000
NEWS_FILES = {"zul": "zul", "xho": "xho", "tsn": "tsn", "sna": "sna", "nya": "nya",
              "kin": "kin", "swh": "swa"}  # fmt: skip
OTHERS = ("xho", "nbl", "ssw", "eng", "tsn", "sna", "nya", "kin", "swh")
RULES = [("current rule (langid.min_pass=0)", ["langid.min_pass=0"]), ("new rule", [])]


def news_options(sites: int = 150) -> BuildOptions | None:
    """The news world's options, its text folders linked into collie's cache (None when
    ../shared/data/news-text is absent)."""
    if not NEWS.is_dir():
        return None
    docs = {}
    for code, name in NEWS_FILES.items():
        folder = cache_dir() / "news-text" / code
        folder.mkdir(parents=True, exist_ok=True)
        link = folder / f"{name}.txt"
        if not link.exists():
            link.symlink_to(NEWS / f"{name}.txt")
        docs[code] = folder
    return BuildOptions(target="zul", langs=OTHERS, sites=sites, docs=docs,
                        relative_share=1 / 3, seed_head=SEED_WORDS)  # fmt: skip


NTREX = NEWS.parent / "ntrex" / "NTREX-128"
TSWANA_OTHERS = ("nso", "sot", "eng", "zul", "xho", "sna", "nya", "kin", "swh")


def tswana_options(sites: int = 150) -> BuildOptions | None:
    """A second news world, for a pair of relatives closer than Zulu and Xhosa: Tswana
    news is the target; a third of the sites are in its relatives, NTREX-128's `nso`
    file (real news, translated from English; its text reads as Sesotho) and the
    UDHR's Southern Sotho; the others as in the news world. The NTREX file is unpacked
    into collie's cache (never into the repository). None when ../shared/data is
    absent."""
    options = news_options(sites)
    source = NTREX / "newstest2019-ref.nso.txt.gz"
    if options is None or not source.is_file():
        return None
    folder = cache_dir() / "ntrex" / "nso"
    folder.mkdir(parents=True, exist_ok=True)
    text = folder / "nso.txt"
    if not text.exists():
        with gzip.open(source, "rt", encoding="utf-8") as packed:  # a sentence a line,
            text.write_text(packed.read(), encoding="utf-8")  # as news-text/ holds them
    docs = {code: folder for code, folder in options.docs.items() if code != "tsn"}
    docs["nso"] = folder
    docs["tsn"] = options.docs["tsn"]
    return BuildOptions(target="tsn", langs=TSWANA_OTHERS, sites=sites, docs=docs,
                        relative_share=1 / 3, seed_head=SEED_WORDS)  # fmt: skip


def news_world(label: str) -> list[tuple[str, BuildOptions, tuple[str, ...]]]:
    """[(label, the news world's options, what to hide from the model)], or [] (and a
    line saying so) when ../shared/data/news-text is absent."""
    options = news_options()
    if options is None:
        print(f"news world skipped: {NEWS} is not there")
        return []
    return [(label, options, hidden_for(options.target))]


def mine(world: Path, settings: list[str], hide: tuple[str, ...]) -> tuple[Scores, Scores, float]:
    """(scores of the corpus, of its documents mainly in the target (what `collie export
    --min-share 0.5` writes), seconds)."""
    with tempfile.TemporaryDirectory(prefix="collie-bench-relatives-") as tmp:
        started = time.monotonic()
        result = run_demo(world, Path(tmp) / "run", delay=0.0, settings=settings,
                          quiet=True, echo=io.StringIO(), hide=hide)  # fmt: skip
        seconds = time.monotonic() - started
        docs = read_jsonl(Path(tmp) / "run" / "corpus.jsonl")
        mainly = [d for d in docs if (d.get("target_share") or 0.0) >= MAINLY]
        return result.scores, score(StoredWorld(world), mainly), seconds


def print_world(name: str, options: BuildOptions) -> None:
    world, built = ensure_world(options)
    hide = hidden_for(options.target)
    hidden = ",".join(hide)
    print(f"== {name} world: {world.name} ({'built now' if built else 'cached'}); "
          f"langid.hide={hidden}; 2 loops", flush=True)  # fmt: skip
    print(f"{'rule':34} {'docs':>5} {'prec.some':>9} {'prec.main':>9} {'recall.reach':>12} "
          f"{'rel.fetched':>11} {'rel.exported':>12} {'rel.words':>9} {'seconds':>7}")  # fmt: skip
    for label, settings in RULES:
        s, mainly, seconds = mine(world, settings, hide)
        fetched = s.relative_pages_fetched
        for name, row in ((label, s), ("  its --min-share 0.5 export", mainly)):
            share = row.relative_pages_exported / fetched if fetched else 0.0
            print(f"{name:34} {row.exported:5d} {row.precision_some:9.4f} "
                  f"{row.precision_mainly:9.4f} {row.recall_reachable:12.4f} {fetched or 0:11d} "
                  f"{row.relative_pages_exported:5d} ({share:4.1%}) {row.relative_words:9d} "
                  f"{seconds:7.1f}", flush=True)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--world", choices=("news", "demo", "both"), default="both")
    args = parser.parse_args()
    if args.world in ("news", "both"):
        options = news_options()
        if options is None:
            print(f"news world: skipped, {NEWS} is not there (development data, see "
                  "../shared/data/news-text/SOURCES.md)")  # fmt: skip
        else:
            print_world("news", options)
    if args.world in ("demo", "both"):
        print_world("demo (learn)", demo_options(learn=True))


if __name__ == "__main__":
    main()
