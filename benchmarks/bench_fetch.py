"""Fetcher throughput through the local proxy: 200 hosts x 20 pages (issue 5).

Target: >= 200 pages/s with a 0 s delay on loopback. Side by side, in the same run, the
baseline: a bare sequential `requests.Session.get` loop over the same URLs (no robots.txt,
no pacing, no limits), i.e. what HTTP alone costs here. Run: python benchmarks/bench_fetch.py
"""

from __future__ import annotations

import os
import time

import requests

from collie.fetch import FetchConfig, Fetcher
from collie.fetchpool import fetch_all
from collie.mininet.server import MiniWebServer, Response, World

HOSTS, PAGES = 200, 20
TARGET = 200.0


def build_world() -> tuple[World, list[str]]:
    world = World()
    body = ("<!DOCTYPE html><html><head><title>Page</title></head><body>"
            + "<p>Ji duto onyuol ka gin thuolo kendo gin gi luor.</p>" * 60
            + "</body></html>")  # fmt: skip
    page = Response.html(body)
    urls = []
    for h in range(HOSTS):
        host = f"site{h:03d}.example.ke"
        world.add(f"http://{host}/robots.txt", Response.text("User-agent: *\nDisallow: /x/\n"))
        for p in range(PAGES):
            world.add(f"http://{host}/page/{p}", page)
            urls.append(f"http://{host}/page/{p}")
    return world, urls


def run_collie(urls: list[str], workers: int) -> tuple[float, int]:
    started = time.perf_counter()
    with Fetcher(FetchConfig(delay=0.0, workers=workers)) as fetcher:
        fetched = sum(r.outcome == "fetched" for r in fetch_all(fetcher, urls))
    return time.perf_counter() - started, fetched


def run_baseline(urls: list[str]) -> tuple[float, int]:
    started = time.perf_counter()
    ok = 0
    with requests.Session() as session:
        for url in urls:
            ok += session.get(url, timeout=10).status_code == 200
    return time.perf_counter() - started, ok


def main() -> None:
    world, urls = build_world()
    with MiniWebServer(world) as server:
        os.environ["HTTP_PROXY"] = os.environ["http_proxy"] = server.proxy_url
        for name in ("NO_PROXY", "no_proxy"):
            os.environ.pop(name, None)
        print(f"{HOSTS} hosts x {PAGES} pages ({len(urls)} URLs) through the local proxy, "
              "delay 0 s (the proxy shares these 2 cores)")  # fmt: skip
        base_s, base_ok = run_baseline(urls)
        server.clear_log()
        results = {}
        for workers in (1, 8):
            secs, fetched = run_collie(urls, workers)
            results[workers] = (secs, fetched)
            server.clear_log()
    base_rate = base_ok / base_s
    print(f"  baseline (sequential requests.get, no politeness): {base_rate:8.1f} pages/s "
          f"({base_ok} pages in {base_s:.2f} s)")  # fmt: skip
    for workers, (secs, fetched) in results.items():
        rate = fetched / secs
        verdict = "met" if rate >= TARGET else "NOT met"
        print(f"  collie fetch_all, {workers} worker(s) (+ robots.txt per host):"
              f" {rate:8.1f} pages/s ({fetched} pages in {secs:.2f} s; target >= {TARGET:.0f}:"
              f" {verdict}); ratio collie/baseline {rate / base_rate:.2f}x")  # fmt: skip


if __name__ == "__main__":
    main()
