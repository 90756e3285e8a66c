"""What each part of the loop is worth, measured on the closed world.

Every row mines the same default world (300 sites around Zulu, `collie demo`'s) from the
same seed documents, with the real command line over HTTP (collie.mininet.demo), and is
scored by `collie mininet score`; each baseline changes one thing:

- collie: as `make demo` (fetch.delay 0 here: only the time changes);
- search only, BootCaT-style: no crawling out (crawl.depth = 0);
- no language filter: every page kept whatever its language (langid.min_share = 0);
- no boilerplate rules (extract.boilerplate = none);
- regex extraction: the pre-cleaning with regular expressions collie used before the DOM
  step (extract.main = rules).
- no near-duplicate filter: exact copies only (dedup.max_distance = 0, dedup.paragraphs
  = false).

Run: python benchmarks/bench_world.py   (about two minutes on 2 cores)
"""

from __future__ import annotations

import io
import tempfile
import time
from pathlib import Path

from collie.mininet.demo import ensure_world, run_demo
from collie.mininet.records import BuildOptions
from collie.mininet.score import Scores

ROWS = [
    ("collie (as make demo)", []),
    ("search only, BootCaT-style (crawl.depth=0)", ["crawl.depth=0"]),
    ("no language filter (langid.min_share=0)", ["langid.min_share=0"]),
    ("no boilerplate rules (extract.boilerplate=none)", ["extract.boilerplate=none"]),
    ("regex extraction, as before (extract.main=rules)", ["extract.main=rules"]),
    (
        "no near-duplicate filter (exact copies only)",
        ["dedup.max_distance=0", "dedup.paragraphs=false"],
    ),
]


def mine(world: Path, settings: list[str]) -> tuple[Scores, float]:
    with tempfile.TemporaryDirectory(prefix="collie-bench-world-") as tmp:
        started = time.monotonic()
        result = run_demo(world, Path(tmp) / "demo", delay=0.0, settings=settings, quiet=True,
                          echo=io.StringIO())  # fmt: skip
        return result.scores, time.monotonic() - started


def main() -> None:
    world, built = ensure_world(BuildOptions())
    print(f"world: {world.name} ({'built now' if built else 'cached'}); 2 loops, 20 queries each")
    header = (f"{'miner':50} {'docs':>5} {'prec.some':>9} {'prec.main':>9} {'recall.reach':>12} "
              f"{'dups':>5} {'boilerpl.':>9} {'fetched':>7} {'seconds':>7}")  # fmt: skip
    print(header)
    base: Scores | None = None
    for name, settings in ROWS:
        s, seconds = mine(world, settings)
        base = base or s
        print(f"{name:50} {s.exported:5d} {s.precision_some:9.4f} {s.precision_mainly:9.4f} "
              f"{s.recall_reachable:12.4f} {s.near_duplicates_leaked:5d} "
              f"{s.boilerplate_leaked:9.4f} {s.pages_fetched or 0:7d} {seconds:7.1f}")  # fmt: skip
    assert base is not None
    print(
        f"collie: {base.found_reachable} of {base.target_reachable} reachable target pages, "
        f"{base.exported - base.mainly - base.some} exported documents without target text"
    )


if __name__ == "__main__":
    main()
