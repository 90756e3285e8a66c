"""What the WARC files cost (issue 33): run time and disk, beside a run that writes none.

The world is `make demo`'s (GENERATED sites from UDHR text, 300 sites, served by the
local proxy with its search endpoint), mined by the real command line in a new workspace
per run (collie.mininet.demo), 2 loops, fetch.delay 0. Runs alternate between
`warc.keep=none` (the baseline: no WARC files, the body cache only) and `warc.keep=all`
(every exchange) ROUNDS times; the best time of each is printed, with the ratio. Disk:
the WARC files beside the body cache (cache/, what the workspace kept before WARC), in
bytes, and per target document; `warc.keep=target` once more for its disk.

Run: python benchmarks/bench_warc.py [--sites N] [--rounds K]
"""

from __future__ import annotations

import argparse
import io
import tempfile
import time
from pathlib import Path

from collie.mininet.demo import demo_options, ensure_world, run_demo

ROUNDS = 3


def folder_bytes(path: Path, pattern: str = "**/*") -> int:
    return sum(p.stat().st_size for p in path.glob(pattern) if p.is_file())


def mine(world: Path, keep: str) -> tuple[float, int, int, int]:
    """(seconds, WARC bytes, cache bytes, target documents) of one run."""
    with tempfile.TemporaryDirectory(prefix="collie-bench-warc-") as tmp:
        started = time.monotonic()
        result = run_demo(world, Path(tmp) / "run", delay=0.0, settings=[f"warc.keep={keep}"],
                          quiet=True, echo=io.StringIO())  # fmt: skip
        seconds = time.monotonic() - started
        workspace = Path(tmp) / "run" / "workspace"
        warc = folder_bytes(workspace / "warc", "*.warc.gz")
        cache = folder_bytes(workspace / "cache")
        return seconds, warc, cache, result.scores.exported


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sites", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    args = parser.parse_args()
    world, built = ensure_world(demo_options(sites=args.sites))
    print(f"world: {world.name} ({'built now' if built else 'cached'}, GENERATED pages of UDHR "
          f"text); {args.rounds} rounds, runs alternating, best time of each")  # fmt: skip
    times: dict[str, list[float]] = {"none": [], "all": []}
    disk: dict[str, tuple[int, int, int]] = {}
    for _ in range(args.rounds):
        for keep in ("none", "all"):
            seconds, warc, cache, docs = mine(world, keep)
            times[keep].append(seconds)
            disk[keep] = (warc, cache, docs)
            print(f"  warc.keep={keep:4s} {seconds:6.1f} s", flush=True)
    seconds, warc_target, _, _ = mine(world, "target")
    base, with_warc = min(times["none"]), min(times["all"])
    warc, cache, docs = disk["all"]
    print(f"run time: warc.keep=all {with_warc:.1f} s, none {base:.1f} s: "
          f"{with_warc / base:.3f}x (target <= 1.10x)")  # fmt: skip
    print(f"disk: WARC files {warc:,} bytes, body cache {cache:,} bytes: {warc / cache:.2f}x "
          f"the cache (target <= 1.2x); {warc / max(docs, 1):,.0f} WARC bytes per target "
          f"document ({docs} documents)")  # fmt: skip
    print(f"disk with warc.keep=target: {warc_target:,} bytes ({warc_target / cache:.2f}x the "
          f"cache), run {seconds:.1f} s")  # fmt: skip


if __name__ == "__main__":
    main()
