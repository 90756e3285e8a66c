"""Discovery beyond the search engine (issue 21): links to other sites, sitemaps, feeds.

The closed worlds hold target pages search cannot return, reachable only through other
sites' links (hidden target sites in blogrolls, one of them two hops away) or only
through a sitemap (robots.txt `Sitemap:`) or an RSS feed (old posts nothing links to).
Each world is mined for 2 loops with the real command line (collie.mininet.demo) and
scored by `collie mininet score`, with recall broken down by how a target page is
reachable (mininet.reach.REACH). Side by side in one run:

- before: search + crawling within sites (crawl.max_new_sites = 0, crawl.sitemaps = false);
- collie: the defaults (a target document's links to new sites, up to
  crawl.max_new_sites a loop; the sitemaps and feeds of every site that yields a target
  document).

Targets: other-site-only pages found >= 80%, sitemap-only >= 90%, precision not lower,
pages fetched per target page found no worse than +20%, no robots.txt violation.
Worlds: demo (`make demo`'s generator, 300 sites) and, when ../shared/data/news-text is
there, the news world of bench_relatives.py (said when skipped).

Run: python benchmarks/bench_discovery.py   (about 3 minutes on 2 cores)
"""

from __future__ import annotations

import io
import sys
import tempfile
from pathlib import Path

from collie.mininet.demo import ensure_world, run_demo
from collie.mininet.records import BuildOptions
from collie.mininet.score import Scores

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_relatives import news_world

ROWS = [
    ("before: search + same-site crawl", ["crawl.max_new_sites=0", "crawl.sitemaps=false"]),
    ("collie: + other sites, sitemaps, feeds", []),
]


def mine(world: Path, settings: list[str], hide: tuple[str, ...]) -> Scores:
    with tempfile.TemporaryDirectory(prefix="collie-bench-discovery-") as tmp:
        return run_demo(world, Path(tmp) / "run", delay=0.0, settings=settings, quiet=True,
                        echo=io.StringIO(), hide=hide).scores  # fmt: skip


def reach(s: Scores, how: str) -> str:
    found, total = s.recall_by_reach.get(how, [0, 0])
    return f"{found}/{total} ({found / total:.0%})" if total else "-"


def main() -> None:
    worlds: list[tuple[str, BuildOptions, tuple[str, ...]]] = [("demo", BuildOptions(), ())]
    worlds += news_world("news")
    for name, options, hide in worlds:
        world, _ = ensure_world(options)
        print(f"== {name} world ({world.name}); recall by how a target page is reachable")
        print(f"{'':40} {'docs':>5} {'prec.':>6} {'recall':>6} {'indexed':>13} {'same-site':>13} "
              f"{'other-site':>13} {'sitemap':>13} {'pages/doc':>9} {'robots':>6}")  # fmt: skip
        for label, settings in ROWS:
            s = mine(world, settings, hide)
            print(f"{label:40} {s.exported:5d} {s.precision_some:6.4f} {s.recall_reachable:6.4f} "
                  f"{reach(s, 'indexed'):>13} {reach(s, 'same-site'):>13} "
                  f"{reach(s, 'other-site'):>13} {reach(s, 'sitemap'):>13} "
                  f"{s.pages_per_target_document or 0:9.2f} {s.robots_violations or 0:6d}",
                  flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
