"""Crawl traps (issue 58): requests a run spends in generated chains, before and after.

Two worlds, each mined twice in the same run of this script: with generated chains not
limited (crawl.chain_budget = 0, the spider as it was) and with the default budget.

- a news site whose /calendar/YYYY/MM/DD/ days and months are listing pages of the same
  teasers, linking to the days and months beside them without end
  (collie.mininet.calendar), mined for one loop at the default crawl.depth;
- the default closed world (`collie demo`'s: 300 sites, two loops), whose endless
  calendars `collie mininet score` counts as "requests into traps".

The pages are generated (UDHR text in the closed world's layouts): the figures say how
the spider treats the chains, not how often real sites make them.

Run: python benchmarks/bench_traps.py   (about five minutes on 2 cores; --calendar-only:
the first world alone; --world FILE: a world file too, such as a real-news world that
benchmarks/bench_neighbour.py built from ../shared/data)
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
from pathlib import Path

from collie.cli import main
from collie.mininet.calendar import PREFIX, add_calendar_site
from collie.mininet.demo import ensure_world, run_demo
from collie.mininet.records import BuildOptions
from collie.mininet.server import MiniWebServer, World
from collie.udhr import load_declarations

HOST = "izindaba-calendar.example.za"
SETTINGS = ["fetch.delay=0", "search.rate_limit=0", "queries.count=4", "search.results=10",
            "run.seed=7"]  # fmt: skip
BUDGETS = (("chains not limited (crawl.chain_budget=0)", "0"), ("collie (default budget 3)", "3"))


def collie(*args: str) -> int:
    with contextlib.redirect_stderr(io.StringIO()):
        try:
            main(list(args))
        except SystemExit as exc:
            return int(exc.code or 0)
    return 0


def calendar_world() -> None:
    world = World()
    zul = load_declarations()["zul"].training_paragraphs()
    articles = add_calendar_site(world, HOST, zul[:24])
    counts: list[int] = []
    print(f"calendar world: 1 site, {len(articles)} articles, an endless calendar; 1 loop")
    print(f"{'miner':45} {'trap requests':>13} {'requests':>8} {'articles':>8}")
    with MiniWebServer(world) as web, tempfile.TemporaryDirectory() as tmp:
        os.environ["HTTP_PROXY"] = os.environ["http_proxy"] = web.proxy_url
        docs = Path(tmp) / "zulu.txt"
        docs.write_text("\n\n".join(zul[24:]), encoding="utf-8")
        for name, budget in BUDGETS:
            root = Path(tmp) / f"ws-{budget}"
            sets = [a for s in [*SETTINGS, f"crawl.chain_budget={budget}"] for a in ("--set", s)]
            assert (
                collie(
                    "init",
                    "-w",
                    str(root),
                    "--lang",
                    "zul",
                    "--docs",
                    str(docs),
                    "--search",
                    "searxng",
                    "--search-url",
                    web.search_url,
                    *sets,
                )
                == 0
            )
            web.clear_log()
            assert collie("-w", str(root), "-q", "run", "--loops", "1") == 0
            paths = [e.path for e in web.requests_for(HOST)]
            trapped = sum(1 for p in paths if p.startswith(PREFIX))
            found = len({f"http://{HOST}{p}" for p in paths} & set(articles))
            print(f"{name:45} {trapped:>13} {len(paths):>8} {found:>8}")
            counts.append(trapped)
    before, after = counts
    print(f"trap requests: {after} against {before} with chains not limited "
          f"({after / before:.3f}x; target: at most 5 a run)")  # fmt: skip


def closed_world(given: Path | None = None) -> None:
    """The default world, or the world file `given` (a real-news world of
    bench_neighbour.py, built from ../shared/data)."""
    if given is None:
        world, built = ensure_world(BuildOptions())
        print(f"\ndefault world: {world.name} ({'built now' if built else 'cached'}); 2 loops")
    else:
        world = given
        print(f"\nworld {world.name} (given); 2 loops")
    print(f"{'miner':45} {'trap requests':>13} {'fetched':>8} {'docs':>5} {'recall.reach':>12}")
    for name, budget in BUDGETS:
        with tempfile.TemporaryDirectory(prefix="collie-bench-traps-") as tmp:
            result = run_demo(world, Path(tmp) / "demo", delay=0.0, quiet=True, echo=io.StringIO(),
                              settings=[f"crawl.chain_budget={budget}"])  # fmt: skip
        s = result.scores
        print(f"{name:45} {s.trap_requests:>13} {s.pages_fetched:>8} {s.exported:>5} "
              f"{s.recall_reachable:>12.4f}")  # fmt: skip


if __name__ == "__main__":
    calendar_world()
    if "--calendar-only" not in sys.argv:
        closed_world()
    if "--world" in sys.argv:
        closed_world(Path(sys.argv[sys.argv.index("--world") + 1]))
