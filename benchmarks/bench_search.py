"""Search spend against recall (issues 19 and 31): when the search is exhausted.

Closed worlds mined for 2 loops of up to 400 queries (the default `queries.count`) with
the real command line (collie.mininet.demo), scored by `collie mininet score`:

- demo: `make demo`'s world (300 sites around Zulu, UDHR text): GENERATED;
- large: the same generator with 1,200 sites: GENERATED;
- news: the development world from real Zulu news and its relatives (bench_relatives.py's,
  read from ../shared/data/news-text when it is there; skipped, and said, when not),
  Zulu and its relatives hidden from the model: REAL TEXT, generated pages around it.

Rows, side by side in one run:

- current rule (before issue 31): the search stage stops after search.max_fruitless (20)
  queries in a row with no URL new to the search, and every query asks for page 2
  (`search.saturation=0 search.next_page=always`);
- saturation (the default): the coverage estimate (Chao2 over the target sites the
  results bring, collie/search/coverage.py) stops a loop's search; page 2 only while
  page 1 brought a target-language result new to the search;
- the same stop with every query's page 2 (`search.next_page=always`): what the page-2
  rule costs in recall and saves in requests.

Printed per row: search requests (every page counted) and their share of the current
rule's, queries, recall of reachable target pages, precision, wall seconds, and the
coverage estimate when the search stopped beside the truth: the target sites search can
return (a target-language page of the site is indexed and allowed by robots.txt). The
news world is mined at the defaults (search.rate_limit 1 request/s, fetch.delay 1 s), as
a user's run is; the generated worlds without either (the time is then the pipeline's).
Targets: the same recall (within 0.005) with <= 25% of the current rule's requests; the
news world's 2-loop run <= 300 s; the estimate within +-15% of the truth, its interval
containing it; on the long tail, the tail sites that spending every query finds.

- long tail: collie/mininet/longtail.py, a world built to punish a search that stops
  early (6 head sites, 16 tail sites each found only through a rare seed word of its
  own; REAL TEXT, the UDHR's Zulu), mined for one loop of up to 150 queries over eight
  run seeds; beside the two rules, spending every query.

Run: python benchmarks/bench_search.py [--world demo|large|news|tail|all]
"""

from __future__ import annotations

import argparse
import io
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from collie.mininet.demo import ensure_world, run_demo
from collie.mininet.longtail import build_long_tail
from collie.mininet.records import BuildOptions
from collie.mininet.server import MiniWebServer, World
from collie.mining.coverage import coverage_by_loop
from collie.search.coverage import site_key
from collie.udhr import load_declarations
from collie.workspace.folder import open_workspace

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_relatives import news_world

COUNT = ["queries.count=400"]
ROWS = [
    ("current rule (fruitless 20, page 2 always)",
     ["search.saturation=0", "search.next_page=always"]),
    ("saturation (default)", []),
    ("saturation, page 2 always", ["search.next_page=always"]),
]  # fmt: skip


def searchable_sites(world: Path, target: str) -> int:
    """The truth: target sites (hosts, as the estimate counts them) with an indexed
    target-language page robots.txt allows."""
    conn = sqlite3.connect(world)
    rows = conn.execute(
        "SELECT url FROM pages WHERE lang = ? AND indexed = 1 AND disallowed = 0", (target,)
    ).fetchall()
    conn.close()
    return len({site_key(url) for (url,) in rows})


def mine(
    world: Path, settings: list[str], hide: tuple[str, ...], delay: float
) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="collie-bench-search-") as tmp:
        began = time.monotonic()
        result = run_demo(world, Path(tmp) / "run", delay=delay, settings=[*COUNT, *settings],
                          quiet=True, echo=io.StringIO(), hide=hide)  # fmt: skip
        took = time.monotonic() - began
        conn = sqlite3.connect(result.workspace / "collie.db")
        requests = int(conn.execute("SELECT COALESCE(SUM(attempts), 0) FROM queries").fetchone()[0])
        queries = int(conn.execute(
            "SELECT COUNT(DISTINCT loop || text) FROM queries WHERE status = 'done'"
        ).fetchone()[0])  # fmt: skip
        conn.close()
        ws = open_workspace(result.workspace, os.environ, {})
        curve = coverage_by_loop(ws)
        ws.close()
    last = curve[max(curve)][-1] if curve else None
    s = result.scores
    return {"requests": requests, "queries": queries, "recall": s.recall_reachable,
            "precision": s.precision_some, "seconds": took, "estimate": last}  # fmt: skip


LONG_TAIL_SEEDS = range(1, 9)
LONG_TAIL_ROWS = [
    *ROWS[:2],
    ("every query (150)", ["search.saturation=0", "search.max_fruitless=0"]),
]


def mine_long_tail(settings: list[str], seed: int) -> tuple[int, int, int]:
    """(requests, tail sites found, target pages kept) on the long-tail world, one loop
    of up to 150 queries (collie/mininet/longtail.py), with the real command line."""
    decl = load_declarations()
    world = World()
    made = build_long_tail(world, decl["zul"], decl["eng"], decl["xho"])
    with (
        tempfile.TemporaryDirectory(prefix="collie-bench-tail-") as tmp,
        MiniWebServer(world) as web,
    ):
        docs, words, ws = Path(tmp) / "seed.txt", Path(tmp) / "words.txt", Path(tmp) / "ws"
        docs.write_text(made.seed_text, encoding="utf-8")
        words.write_text("\n".join(made.seed_words), encoding="utf-8")
        env = dict(os.environ, HTTP_PROXY=web.proxy_url, http_proxy=web.proxy_url)
        sets = ["fetch.delay=0", "search.rate_limit=0", "queries.count=150",
                f"run.seed={seed}", f"seeds.manual={words}", *settings]  # fmt: skip
        collie = [sys.executable, "-m", "collie"]
        subprocess.run([*collie, "init", "-w", str(ws), "--lang", "zul", "--docs", str(docs),
                        "--search", "searxng", "--search-url", web.search_url,
                        *[a for x in sets for a in ("--set", x)]],
                       env=env, check=True, capture_output=True)  # fmt: skip
        subprocess.run([*collie, "-q", "-w", str(ws), "run", "--loops", "1"], env=env,
                       check=True, capture_output=True)  # fmt: skip
        conn = sqlite3.connect(ws / "collie.db")
        kept = {u for (u,) in conn.execute("SELECT url FROM pages WHERE status = 'kept'")}
        spent = int(conn.execute("SELECT SUM(attempts) FROM queries").fetchone()[0])
        conn.close()
    tails = sum(f"http://{host}/" in kept for host in made.tail_sites)
    return spent, tails, len(kept & made.target_urls)


def long_tail() -> None:
    """The long-tail world over LONG_TAIL_SEEDS run seeds: per rule, the requests and the
    tail sites found (of 16) per seed, and their totals."""
    print(f"long tail (REAL TEXT, GENERATED sites: 6 head sites, 16 tail sites each found "
          f"only through a rare seed word; 150 queries at most; run.seed "
          f"{LONG_TAIL_SEEDS.start}-{LONG_TAIL_SEEDS.stop - 1}):", flush=True)  # fmt: skip
    for label, settings in LONG_TAIL_ROWS:
        runs = [mine_long_tail(settings, seed) for seed in LONG_TAIL_SEEDS]
        spent = sum(r[0] for r in runs)
        tails = " ".join(f"{r[1]:2d}" for r in runs)
        print(
            f"  {label:42s} {spent:5d} requests, tail sites found per seed: {tails} "
            f"(in all {sum(r[1] for r in runs)} of {16 * len(runs)})",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--world", choices=("demo", "large", "news", "tail", "all"), default="all")
    which = parser.parse_args().world
    if which in ("tail", "all"):
        long_tail()
    worlds: list[tuple[str, BuildOptions, tuple[str, ...], list[str], float]] = []
    if which in ("demo", "all"):
        worlds.append(("demo (300 sites, GENERATED)", BuildOptions(), (), [], 0.0))
    if which in ("large", "all"):
        worlds.append(("large (1,200 sites, GENERATED)", BuildOptions(sites=1200), (), [], 0.0))
    if which in ("news", "all"):
        rate = ["search.rate_limit=1"]  # the defaults, with fetch.delay 1 s: a user's run
        worlds += [(f"{n}, search.rate_limit 1/s, fetch.delay 1 s", o, h, rate, 1.0)
                   for n, o, h in news_world("news (REAL TEXT, relatives)")]  # fmt: skip
    for name, options, hide, extra, delay in worlds:
        world, _ = ensure_world(options)
        truth = searchable_sites(world, options.target)
        print(f"{name}: {truth} target sites search can return", flush=True)
        first = 0
        for label, settings in ROWS:
            row = mine(world, [*settings, *extra], hide, delay)
            first = first or int(row["requests"])  # type: ignore[call-overload]
            est = row["estimate"]
            at_stop = "no estimate"
            if est is not None:
                off = est.estimate / truth - 1 if truth else 0.0  # type: ignore[attr-defined]
                inside = est.low <= truth <= est.high  # type: ignore[attr-defined]
                at_stop = (
                    f"estimate {est.estimate:.1f} ({off:+.0%} of the truth), 95% "  # type: ignore[attr-defined]
                    f"{est.low:.0f}-{est.high:.0f} {'holds' if inside else 'MISSES'} it, "  # type: ignore[attr-defined]
                    f"{est.observed} seen"
                )  # type: ignore[attr-defined]
            print(f"  {label:42s} {row['requests']:4d} requests ({row['requests'] / first:4.0%}), "
                  f"{row['queries']:3d} queries, recall {row['recall']:.4f}, precision "
                  f"{row['precision']:.4f}, {row['seconds']:5.0f} s; {at_stop}",
                  flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
