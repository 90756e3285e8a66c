"""Fetcher throughput on loopback: 200 hosts x 20 pages, delay 0 s (issues 5 and 19).

The closed-world server runs in its own process (as a real web would: it does not share
this process's interpreter lock), on the same 2 cores. Rows, all measured in this run:

- baseline: a bare sequential `requests.Session.get` loop over the same URLs (no
  robots.txt, no pacing, no limits), i.e. what HTTP alone costs here;
- collie's scheduler (fetchpool.fetch_all) with 1 and with `fetch.workers` (64) threads:
  fetched only;
- collie's fetch stage as a run does it (pipeline: frontier -> pool -> decode, main text,
  language ID, fingerprints -> recorded in the workspace, small transactions): fetched
  and recorded. Targets: >= 200 pages/s fetched (issue 5), >= 1,000 pages/s fetched and
  recorded (issue 19).

Run: python benchmarks/bench_fetch.py
"""

from __future__ import annotations

import multiprocessing
import os
import random
import tempfile
import time
from dataclasses import replace
from multiprocessing.connection import Connection
from pathlib import Path

import requests

from collie.fetch.fetcher import FetchConfig, Fetcher
from collie.fetch.pool import fetch_all
from collie.langid import load_model
from collie.mininet.server import MiniWebServer, Response, World
from collie.mining.config import RunConfig
from collie.mining.loop import run
from collie.mining.records import RunLimits
from collie.models import QueueEntry
from collie.search import make_backend
from collie.store import Store
from collie.udhr import load_declarations
from collie.workspace.folder import create_workspace, open_workspace
from collie.workspace.seedfiles import SeedInput, plan_seed_documents

HOSTS, PAGES = 200, 20
TARGET_FETCHED, TARGET_RECORDED = 200.0, 1000.0
WORKERS = 64


def urls() -> list[str]:
    return [f"http://site{h:03d}.example.ke/page/{p}" for h in range(HOSTS) for p in range(PAGES)]


def build_world() -> World:
    """Every page its own Zulu text: five paragraphs of 40 words drawn from the Zulu
    UDHR's words (2-3 KB; distinct pages, no near-duplicates among them)."""
    world = World()
    words = " ".join(load_declarations()["zul"].training_paragraphs()).split()
    rng = random.Random(5)
    for url in urls():
        host = url.split("/")[2]
        world.add(f"http://{host}/robots.txt", Response.text("User-agent: *\nDisallow: /x/\n"))
        body = "".join(f"<p>{' '.join(rng.choices(words, k=40))}.</p>" for _ in range(5))
        html = f"<html><head><title>{url}</title></head><body><main>{body}</main></body></html>"
        world.add(url, Response.html(html))
    return world


def serve(conn: Connection) -> None:
    """The child process: serve the world until told to stop."""
    with MiniWebServer(build_world()) as server:
        conn.send(server.proxy_url)
        conn.recv()


def run_baseline(targets: list[str]) -> tuple[float, int]:
    started = time.perf_counter()
    ok = 0
    with requests.Session() as session:
        for url in targets:
            ok += session.get(url, timeout=10).status_code == 200
    return time.perf_counter() - started, ok


def run_pool(targets: list[str], workers: int) -> tuple[float, int]:
    started = time.perf_counter()
    with Fetcher(FetchConfig(delay=0.0, workers=workers)) as fetcher:
        fetched = sum(r.outcome == "fetched" for r in fetch_all(fetcher, targets))
    return time.perf_counter() - started, fetched


def run_stage(targets: list[str], tmp: Path, search_url: str) -> tuple[float, int]:
    """The fetch stage of a run over a frontier of `targets` (the loop's search done)."""
    docs = tmp / "zulu.txt"
    docs.write_text("\n\n".join(load_declarations()["zul"].training_paragraphs()), "utf-8")
    root = tmp / "ws"
    settings = {"language.code": "zul", "search.backend": "searxng", "search.url": search_url,
                "fetch.delay": 0.0, "fetch.workers": WORKERS, "crawl.depth": 0}  # fmt: skip
    create_workspace(root, settings, plan_seed_documents([SeedInput(docs, "target", None)]), [])
    ws = open_workspace(root, os.environ, {})
    store = Store(ws.db)
    loop = store.frontier.open_loop()
    store.frontier.enqueue(
        QueueEntry(u, u.split("/")[2], loop.number, "search", 0, 2.0) for u in targets
    )
    store.frontier.mark_searched(loop.number)
    model = load_model()
    config = replace(RunConfig.of(ws, model), limits=RunLimits(loops=1))  # crawl.depth 0
    fetcher = Fetcher(config.fetch)
    started = time.perf_counter()
    run(ws, make_backend(ws.settings, os.environ), fetcher, model, config)
    seconds = time.perf_counter() - started
    recorded = int(ws.conn.execute(
        "SELECT COUNT(*) FROM pages WHERE http_status = 200 AND body_sha1 IS NOT NULL"
    ).fetchone()[0])  # fmt: skip
    fetcher.close()
    ws.close()
    return seconds, recorded


def main() -> None:
    targets = urls()
    parent, child = multiprocessing.Pipe()
    server = multiprocessing.Process(target=serve, args=(child,), daemon=True)
    server.start()
    proxy = parent.recv()
    os.environ["HTTP_PROXY"] = os.environ["http_proxy"] = proxy
    for name in ("NO_PROXY", "no_proxy"):
        os.environ.pop(name, None)
    print(f"{HOSTS} hosts x {PAGES} pages ({len(targets)} URLs) through the local proxy in its "
          "own process, delay 0 s (both share these 2 cores)")  # fmt: skip
    try:
        base_s, base_ok = run_baseline(targets)
        rows = [(f"collie scheduler, {n} worker(s), fetched", *run_pool(targets, n), TARGET_FETCHED)
                for n in (1, WORKERS)]  # fmt: skip
        with tempfile.TemporaryDirectory(prefix="collie-bench-fetch-") as tmp:
            secs, recorded = run_stage(targets, Path(tmp), proxy)  # its search is not used
        rows.append((f"collie fetch stage, {WORKERS} workers, fetched and recorded", secs,
                     recorded, TARGET_RECORDED))  # fmt: skip
    finally:
        parent.send("stop")
        server.join(10)
    base_rate = base_ok / base_s
    print(f"  baseline (sequential requests.get, no politeness): {base_rate:8.1f} pages/s "
          f"({base_ok} pages in {base_s:.2f} s)")  # fmt: skip
    for name, secs, count, target in rows:
        rate = count / secs
        verdict = "met" if rate >= target else "NOT met"
        print(f"  {name}: {rate:8.1f} pages/s ({count} pages in {secs:.2f} s; target >= "
              f"{target:.0f}: {verdict}); ratio collie/baseline "
              f"{rate / base_rate:.2f}x")  # fmt: skip


if __name__ == "__main__":
    main()
