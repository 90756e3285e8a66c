"""Search spend against recall (issues 19, 31 and 42): when the search has seen enough.

Closed worlds mined for 2 loops of up to 400 queries (the default `queries.count`) with
the real command line (collie.mininet.demo), scored by `collie mininet score`:

- demo: `make demo`'s world (300 sites around Zulu, UDHR text): GENERATED;
- large: the same generator with 1,200 sites: GENERATED;
- news: the development world from real Zulu news and its relatives (bench_relatives.py's,
  read from ../shared/data/news-text when it is there; skipped, and said, when not),
  Zulu and its relatives hidden from the model: REAL TEXT, generated pages around it.
  50 of its 150 sites are in Zulu's relatives (Xhosa news, UDHR Southern Ndebele and
  Swati), more than the 19 Zulu sites;
- Tswana news: the same with Tswana news as the target and closer relatives, NTREX-128's
  `nso` news (which reads as Sesotho) and the UDHR's Southern Sotho (bench_relatives.py's
  `tswana_options`; needs ../shared/data/ntrex too). Here a learnt Tswana takes the
  relatives' snippets for its own until they are contrasted, as a learnt Dholuo took
  Acholi's: REAL TEXT, generated pages around it.

Rules, side by side in one run, every world:

- every query: no stop rule (`search.stop_rule=none search.max_fruitless=0`), the
  baseline the others are measured against;
- fruitless 20 (issue 19's rule): the search stops after 20 queries in a row with no
  URL new to the search, every query asks for page 2;
- upper bound (issue 31's rule): the target sites found reach 0.9 of the upper bound of
  Chao2's 95% interval (`search.stop_rule=upper-bound`), first with the search's results
  judged against the relatives only at the loop's end (`search.contrast_pages=0`, as
  before issue 42), then during the search too (the default);
- extrapolation (issue 42): the loop's unspent queries are expected to bring fewer than
  0.5 new target sites (Chao et al. 2014's extrapolation).

The row of the default rule is marked "(default)".

Printed per row: search requests (every page counted) and their share of every query's,
queries, recall of reachable target pages and its difference from every query's,
precision, wall seconds, and the estimate when the search stopped beside the truth (the
target sites search can return: a target-language page of the site is indexed and
allowed by robots.txt). The news world is mined at the defaults (search.rate_limit 1
request/s, fetch.delay 1 s), as a user's run is; the generated worlds without either
(the time is then the pipeline's). Targets (issue 42): the news worlds' 2-loop runs <=
150 requests and <= 300 s, their recall not below every query's; the large world <= 40% of
every query's requests, recall within 0.005 of it; on the long tail, >= 124 of 128 tail
sites.

- long tail: collie/mininet/longtail.py, a world built to punish a search that stops
  early (6 head sites, 16 tail sites each found only through a rare seed word of its
  own; REAL TEXT, the UDHR's Zulu), mined for one loop of up to 150 queries over eight
  run seeds: per rule the requests saved and the tail sites lost beside every query.

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

from collie.config.table import SETTINGS_BY_KEY
from collie.mininet.demo import ensure_world, hidden_for, run_demo
from collie.mininet.longtail import build_long_tail
from collie.mininet.records import BuildOptions
from collie.mininet.server import MiniWebServer, World
from collie.mining.coverage import coverage_by_loop
from collie.search.coverage import Estimate, site_key
from collie.udhr import load_declarations
from collie.workspace.folder import open_workspace

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_relatives import news_world, tswana_options

COUNT = ["queries.count=400"]
EVERY = ["search.stop_rule=none", "search.max_fruitless=0"]
ROWS = [
    ("every query", EVERY),
    ("fruitless 20, page 2 always (issue 19)",
     ["search.stop_rule=none", "search.next_page=always"]),
    ("upper bound 0.9, contrast at loop end",
     ["search.stop_rule=upper-bound", "search.contrast_pages=0"]),
    ("upper bound 0.9 (issue 31)", ["search.stop_rule=upper-bound"]),
    ("extrapolation 0.5", ["search.stop_rule=extrapolation"]),
]  # fmt: skip


def label_of(label: str, settings: list[str]) -> str:
    """The row's label, marked when its rule is the default's."""
    default = SETTINGS_BY_KEY["search.stop_rule"].default
    rule = next((s.split("=")[1] for s in settings if s.startswith("search.stop_rule=")), "")
    plain = len(settings) == 1
    return f"{label} (default)" if rule == default and plain else label


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
LONG_TAIL_ROWS = ROWS


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
    tail sites found (of 16) per seed, their totals, and what the rule saved and lost
    beside spending every query."""
    print(f"long tail (REAL TEXT, GENERATED sites: 6 head sites, 16 tail sites each found "
          f"only through a rare seed word; 150 queries at most; run.seed "
          f"{LONG_TAIL_SEEDS.start}-{LONG_TAIL_SEEDS.stop - 1}):", flush=True)  # fmt: skip
    every: tuple[int, int] | None = None
    for label, settings in LONG_TAIL_ROWS:
        runs = [mine_long_tail(settings, seed) for seed in LONG_TAIL_SEEDS]
        spent, tails = sum(r[0] for r in runs), sum(r[1] for r in runs)
        every = every or (spent, tails)
        per_seed = " ".join(f"{r[1]:2d}" for r in runs)
        print(
            f"  {label_of(label, settings):48s} {spent:5d} requests "
            f"({spent / every[0]:4.0%} of every query's), "
            f"tail sites found per seed: {per_seed} (in all {tails} of {16 * len(runs)}; "
            f"{every[1] - tails} lost)",
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
        tswana = tswana_options()
        if tswana is None:
            print("Tswana news world skipped: ../shared/data/ntrex or news-text is not there")
        else:
            worlds.append(("Tswana news (REAL TEXT, Sotho relatives), search.rate_limit 1/s, "
                           "fetch.delay 1 s", tswana, hidden_for("tsn"), rate, 1.0))  # fmt: skip
    for name, options, hide, extra, delay in worlds:
        world, _ = ensure_world(options)
        truth = searchable_sites(world, options.target)
        print(f"{name}: {truth} target sites search can return", flush=True)
        first: dict[str, object] = {}
        for label, settings in ROWS:
            row = mine(world, [*settings, *extra], hide, delay)
            first = first or row
            spent, base = int(row["requests"]), int(first["requests"])  # type: ignore[call-overload]
            recall = float(row["recall"])  # type: ignore[arg-type]
            change = recall - float(first["recall"])  # type: ignore[arg-type]
            est: Estimate | None = row["estimate"]  # type: ignore[assignment]
            at_stop = "no estimate"
            if est is not None:
                at_stop = (
                    f"at least {est.at_least()} of {truth} (jackknife {est.jackknife:.1f}, "
                    f"coverage {est.coverage:.1%}), {est.observed} seen"
                )
            print(f"  {label_of(label, settings):48s} {spent:4d} requests ({spent / base:4.0%}), "
                  f"{row['queries']:3d} queries, recall {recall:.4f} ({change:+.4f}), "
                  f"precision {row['precision']:.4f}, {row['seconds']:5.0f} s; {at_stop}",
                  flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
