"""A full 2-loop `collie run` over a few hundred local sites: per-page overhead.

The world: 300 sites of five pages each (Zulu, Xhosa, English, Swahili and French UDHR
text, with navigation and footers), served by the local proxy with its search endpoint.
The run's time is split into waiting on the network (the run waiting for the fetch pool's
results, and inside the search backend, the server's own work included: it shares these
cores) and everything else:
the pipeline's overhead, printed per fetched page beside the cost of the stages alone
(process() + paragraph language ID on the same pages), measured in the same run.
Run: python benchmarks/bench_run.py
"""

from __future__ import annotations

import os
import random
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from collie.fetch.fetcher import FetchConfig, Fetcher
from collie.fetch.pool import FetchPool
from collie.langid import load_model
from collie.mininet.server import MiniWebServer, Response, World
from collie.mining.config import RunConfig
from collie.mining.loop import run
from collie.mining.records import RunLimits
from collie.models import FetchResult
from collie.page.process import process
from collie.search import make_backend
from collie.udhr import load_declarations
from collie.workspace.folder import create_workspace, open_workspace
from collie.workspace.seedfiles import SeedInput, plan_seed_documents

LANGUAGES = {"zul": 60, "xho": 40, "eng": 100, "swh": 50, "fra": 50}
SETTINGS = {"language.code": "zul", "search.backend": "searxng", "fetch.delay": 0.0,
            "search.rate_limit": 0.0, "queries.count": 20, "search.results": 20,
            "crawl.depth": 3, "run.seed": 11}  # fmt: skip


def page(title: str, paragraphs: list[str], links: list[str]) -> str:
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    anchors = "".join(f"<li><a href='{href}'>Page {href}</a></li>" for href in links)
    return (f"<html><head><title>{title}</title></head><body><nav><a href='/'>Home</a> | "
            f"<a href='/about'>About</a></nav><main><h1>{title}</h1>{body}<ul>{anchors}</ul>"
            "</main><footer>© 2024 Site. All rights reserved.</footer></body></html>")  # fmt: skip


def build_world(world: World) -> list[str]:
    decl = load_declarations()
    rng = random.Random(5)
    bodies = []
    n = 0
    for code, sites in LANGUAGES.items():
        paragraphs = decl[code].training_paragraphs()
        for s in range(sites):
            host = f"site{n:03d}.example.{'co.za' if code in ('zul', 'xho') else 'com'}"
            n += 1
            paths = ["/", *(f"/p/{i}" for i in range(1, 5))]
            for i, path in enumerate(paths):
                chosen = rng.sample(paragraphs, 5)  # random 5 of ~60: rarely near-duplicates
                body = page(f"{code} {s} {i}", chosen, paths[1:])
                world.add(f"http://{host}{path}", Response.html(body))
                bodies.append(body)
    return bodies


def main() -> None:
    world = World()
    bodies = build_world(world)
    zulu = "\n\n".join(load_declarations()["zul"].training_paragraphs())
    with tempfile.TemporaryDirectory() as tmp, MiniWebServer(world) as server:
        os.environ["HTTP_PROXY"] = os.environ["http_proxy"] = server.proxy_url
        docs = Path(tmp) / "zulu.txt"
        docs.write_text(zulu, encoding="utf-8")
        root = Path(tmp) / "ws"
        plan = plan_seed_documents([SeedInput(docs, "target", None)], 0.7, None)
        create_workspace(root, {**SETTINGS, "search.url": server.search_url}, plan, [])
        ws = open_workspace(root, os.environ, {})
        model = load_model()
        backend = make_backend(ws.settings, os.environ)
        waited = [0.0]
        fetcher = Fetcher(FetchConfig.from_settings(ws.settings, workers=8))
        take, search = FetchPool.take, backend.search

        def timed_take(pool: FetchPool, timeout: float = 0.0) -> list[Any]:
            started = time.perf_counter()  # the run waiting for the pool: the network
            try:
                return take(pool, timeout)
            finally:
                waited[0] += time.perf_counter() - started

        def timed_search(*args: object, **kwargs: object) -> object:
            started = time.perf_counter()
            try:
                return search(*args, **kwargs)  # type: ignore[arg-type]
            finally:
                waited[0] += time.perf_counter() - started

        FetchPool.take = timed_take  # type: ignore[method-assign]
        backend.search = timed_search  # type: ignore[method-assign,assignment]
        config = RunConfig.of(ws, model)
        config = replace(config, limits=RunLimits(2), crawl=replace(config.crawl, depth=3))
        started = time.perf_counter()
        report = run(ws, backend, fetcher, model, config)
        total = time.perf_counter() - started
        fetched = sum(sum(loop.pages.values()) for loop in report.loops)
        kept = sum(loop.pages["kept"] for loop in report.loops)
        dups = sum(loop.pages["duplicate"] for loop in report.loops)
        ws.close()
    sample = [FetchResult(f"http://x/{i}", f"http://x/{i}", 200,
                          {"content-type": "text/html; charset=utf-8"}, b.encode())
              for i, b in enumerate(bodies[:fetched])]  # fmt: skip
    started = time.perf_counter()
    for result in sample:
        model.identify_paragraphs(process(result.url, result).paragraphs)
    stages = (time.perf_counter() - started) / len(sample) * 1000
    overhead = (total - waited[0]) / fetched * 1000
    print(f"{sum(LANGUAGES.values())} sites x 5 pages; 2 loops: {fetched} pages fetched, "
          f"{kept} Zulu documents, {dups} near-duplicates (pages share UDHR paragraphs), "
          f"{total:.1f} s in all, {waited[0]:.1f} s waiting on the "
          "network (the local server included)")  # fmt: skip
    print(f"  pipeline time per fetched page, network excluded: {overhead:6.2f} ms")
    print(f"  baseline, the stages alone (process + paragraph language ID): {stages:6.2f} ms "
          f"per page; ratio pipeline/stages {overhead / stages:.2f}x")  # fmt: skip


if __name__ == "__main__":
    main()
