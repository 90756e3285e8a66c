"""Search spend that follows yield (issue 19): queries sent against recall.

Closed worlds mined for 2 loops of up to 400 queries (the default `queries.count`) with
the real command line (collie.mininet.demo), scored by `collie mininet score`:

- demo: `make demo`'s world (300 sites around Zulu, UDHR text);
- large: the same generator with 1,200 sites;
- news: the development world from real Zulu news and its relatives (bench_relatives.py's,
  read from ../shared/data/news-text when it is there; skipped, and said, when not),
  with Zulu and its relatives hidden from the model.

Rows, side by side in one run: every query spent (search.max_fruitless = 0, uniform
random seed words: what collie did before); the search stage stopped after 20 queries in
a row that brought no URL new to the search (the default) with random words; and the same
with the seed-word bandit (queries.bandit, off by default). Target: the same recall
with <= 50% of the queries.

Run: python benchmarks/bench_search.py   (about 5 minutes on 2 cores)
"""

from __future__ import annotations

import io
import sqlite3
import sys
import tempfile
from pathlib import Path

from collie.mininet.demo import ensure_world, run_demo
from collie.mininet.records import BuildOptions

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_relatives import news_world

COUNT = ["queries.count=400"]
ROWS = [
    ("every query spent (before)", ["search.max_fruitless=0", "queries.bandit=false"]),
    ("yield stop, random words", ["queries.bandit=false"]),
    ("yield stop + seed-word bandit", ["queries.bandit=true"]),
]


def mine(world: Path, settings: list[str], hide: tuple[str, ...]) -> tuple[int, float, float, int]:
    """(queries sent, recall of reachable pages, precision, documents)."""
    with tempfile.TemporaryDirectory(prefix="collie-bench-search-") as tmp:
        result = run_demo(world, Path(tmp) / "run", delay=0.0, settings=[*COUNT, *settings],
                          quiet=True, echo=io.StringIO(), hide=hide)  # fmt: skip
        conn = sqlite3.connect(result.workspace / "collie.db")
        sent = int(conn.execute("SELECT COUNT(*) FROM queries WHERE status = 'done'").fetchone()[0])
        conn.close()
    s = result.scores
    return sent, s.recall_reachable, s.precision_some, s.exported


def main() -> None:
    worlds: list[tuple[str, BuildOptions, tuple[str, ...]]] = [
        ("demo (300 sites)", BuildOptions(), ()),
        ("large (1,200 sites)", BuildOptions(sites=1200), ()),
    ]
    worlds += news_world("news (real text, relatives)")
    for name, options, hide in worlds:
        world, _ = ensure_world(options)
        print(f"{name}:")
        first = None
        for label, settings in ROWS:
            sent, recall, precision, docs = mine(world, settings, hide)
            first = first or sent
            print(f"  {label:32s} {sent:4d} queries ({sent / first:4.0%} of spending them all), "
                  f"recall {recall:.4f}, precision {precision:.4f}, {docs} documents",
                  flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
