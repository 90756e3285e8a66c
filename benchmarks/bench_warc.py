"""What the WARC files cost (issue 33): run time and disk, beside the body cache they
replace.

1. Real pages: the extraction development set (945 real pages, ../shared/data/
   extraction-dev, when present; said when not) served by a local HTTP server as a
   common web server sends them (gzip at level 6 when asked, the usual headers: the
   headers are this server's, the bodies are real), fetched by collie's Fetcher (robots.txt
   included). Disk: the WARC files (every exchange, request and response records) beside
   the body cache the same bodies made before (cache/: one gzip file a body), in bytes
   and in the blocks the file system allocates; the time to write each.
2. A whole run: `make demo`'s world (GENERATED sites from UDHR text, 300 sites, served by
   the local proxy with its search endpoint), mined by the real command line in a new
   workspace per run (collie.mininet.demo), 2 loops, fetch.delay 0. Runs alternate
   between `warc.keep=none` (the baseline: no WARC files, the body cache, as before) and
   `warc.keep=all` (every exchange, no body cache) ROUNDS times; the best time of each
   is printed with the ratio, and the disk of each; `warc.keep=target` once more.

Run: python benchmarks/bench_warc.py [--sites N] [--rounds K] [--pages N]
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

from collie.archive.bodycache import compress_body, write_body
from collie.archive.writer import WarcArchive
from collie.fetch.fetcher import FetchConfig, Fetcher
from collie.fetch.pool import fetch_all
from collie.mininet.demo import demo_options, ensure_world, run_demo

ROUNDS = 3
DEV = Path(__file__).resolve().parents[2] / "shared" / "data" / "extraction-dev"


def folder_bytes(path: Path, pattern: str = "**/*") -> int:
    return sum(p.stat().st_size for p in path.glob(pattern) if p.is_file())


def folder_blocks(path: Path, pattern: str = "**/*") -> int:
    """The bytes the file system allocates to the files (st_blocks)."""
    return sum(p.stat().st_blocks * 512 for p in path.glob(pattern) if p.is_file())


class _PageHandler(BaseHTTPRequestHandler):
    pages: ClassVar[list[bytes]] = []
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        if self.path == "/robots.txt":
            body, kind = b"User-agent: *\nDisallow: /admin/\n", "text/plain"
        elif self.path.startswith("/page/"):
            body, kind = self.pages[int(self.path.split("/")[2])], "text/html"
        else:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Last-Modified", "Tue, 03 Nov 2026 08:12:31 GMT")
        self.send_header("ETag", f'"{hashlib.sha1(body).hexdigest()[:16]}"')
        self.send_header("Cache-Control", "max-age=600")
        self.send_header("Vary", "Accept-Encoding")
        if "gzip" in self.headers.get("Accept-Encoding", ""):
            body = gzip.compress(body, 6)
            self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def real_pages(limit: int) -> None:
    """Part 1 (module docstring)."""
    if not DEV.is_dir():
        print("real pages: ../shared/data/extraction-dev is not here (a fresh clone): skipped")
        return
    files = sorted((DEV / "html").glob("*.gz"))[:limit]
    _PageHandler.pages = [gzip.decompress(f.read_bytes()) for f in files]
    server = ThreadingHTTPServer(("127.0.0.1", 0), _PageHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    urls = [f"{base}/page/{i}" for i in range(len(files))]
    with Fetcher(FetchConfig(delay=0.0, workers=4, allow_private=True)) as fetcher:
        results = list(fetch_all(fetcher, urls))
    server.shutdown()
    bodies = [r.body for r in results if r.body]
    exchanges = [e for r in results for e in r.exchanges]
    with tempfile.TemporaryDirectory(prefix="collie-bench-warc-") as tmp:
        cache, folder = Path(tmp) / "cache", Path(tmp) / "warc"
        started = time.perf_counter()
        for body in bodies:
            write_body(cache, compress_body(body))
        cache_seconds = time.perf_counter() - started
        started = time.perf_counter()
        with WarcArchive(folder, 1_000_000_000) as archive:
            for exchange in exchanges:
                archive.write(exchange)
        warc_seconds = time.perf_counter() - started
        cached, cached_blocks = folder_bytes(cache, "*/*.gz"), folder_blocks(cache, "*/*.gz")
        warc, warc_blocks = folder_bytes(folder, "*.warc.gz"), folder_blocks(folder, "*.warc.gz")
    raw = sum(len(b) for b in bodies)
    print(f"real pages: {len(bodies)} of {len(files)} fetched from ../shared/data/extraction-dev "
          f"({raw:,} bytes of HTML; served gzipped with this server's headers), "
          f"{len(exchanges)} exchanges with robots.txt")  # fmt: skip
    print(f"  disk: WARC files {warc:,} bytes, body cache {cached:,} bytes: "
          f"{warc / cached:.3f}x the cache (target <= 1.2x)")  # fmt: skip
    print(f"  disk allocated: WARC files {warc_blocks:,} bytes, body cache {cached_blocks:,} "
          f"bytes: {warc_blocks / cached_blocks:.3f}x")  # fmt: skip
    print(f"  writing: WARC {warc_seconds:.2f} s, body cache {cache_seconds:.2f} s "
          f"({warc_seconds / cache_seconds:.2f}x)")  # fmt: skip


def mine(world: Path, keep: str) -> tuple[float, int, int, int, int]:
    """(seconds, WARC bytes, cache bytes, target documents, allocated bytes of the WARC
    files and cache/) of one run."""
    with tempfile.TemporaryDirectory(prefix="collie-bench-warc-") as tmp:
        started = time.monotonic()
        result = run_demo(world, Path(tmp) / "run", delay=0.0, settings=[f"warc.keep={keep}"],
                          quiet=True, echo=io.StringIO())  # fmt: skip
        seconds = time.monotonic() - started
        workspace = Path(tmp) / "run" / "workspace"
        warc = folder_bytes(workspace / "warc", "*.warc.gz")
        cache = folder_bytes(workspace / "cache")
        blocks = folder_blocks(workspace / "warc", "*.warc.gz") + folder_blocks(workspace / "cache")
        return seconds, warc, cache, result.scores.exported, blocks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sites", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("--pages", type=int, default=945, help="real pages at most")
    args = parser.parse_args()
    real_pages(args.pages)
    world, built = ensure_world(demo_options(sites=args.sites))
    print(f"world: {world.name} ({'built now' if built else 'cached'}, GENERATED pages of UDHR "
          f"text); {args.rounds} rounds, runs alternating, best time of each")  # fmt: skip
    times: dict[str, list[float]] = {"none": [], "all": []}
    disk: dict[str, tuple[int, int, int, int]] = {}
    for _ in range(args.rounds):
        for keep in ("none", "all"):
            seconds, warc, cache, docs, blocks = mine(world, keep)
            times[keep].append(seconds)
            disk[keep] = (warc, cache, docs, blocks)
            print(f"  warc.keep={keep:4s} {seconds:6.1f} s", flush=True)
    seconds, warc_target, _, _, _ = mine(world, "target")
    base, with_warc = min(times["none"]), min(times["all"])
    warc, cache_all, docs, blocks_all = disk["all"]
    _, cache, docs_none, blocks_none = disk["none"]
    print(f"run time: warc.keep=all {with_warc:.1f} s, none {base:.1f} s: "
          f"{with_warc / base:.3f}x (target <= 1.10x)")  # fmt: skip
    print(f"disk: warc.keep=all: WARC files {warc:,} bytes (body cache {cache_all:,}); "
          f"warc.keep=none: body cache {cache:,} bytes: {warc / cache:.2f}x "
          f"(GENERATED pages of a few kB: headers and request records weigh more than on real "
          f"pages); {warc / max(docs, 1):,.0f} WARC bytes per target document ({docs} "
          f"documents; {docs_none} without WARC)")  # fmt: skip
    print(f"disk allocated: warc.keep=all {blocks_all:,} bytes, warc.keep=none {blocks_none:,} "
          f"bytes: {blocks_all / blocks_none:.2f}x")  # fmt: skip
    print(f"disk with warc.keep=target: {warc_target:,} bytes ({warc_target / cache:.2f}x the "
          f"cache), run {seconds:.1f} s")  # fmt: skip


if __name__ == "__main__":
    main()
