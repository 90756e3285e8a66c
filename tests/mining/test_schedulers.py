"""mining/stream.py and mining/batches.py: the two schedulers fetch a loop's frontier
over HTTP (the mini web) until it is empty, settling each page through the Settler and
crawling out through the Spider; both stop at the run's time limit."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from collie.fetch.fetcher import Fetcher
from collie.langid.model import LangModel
from collie.mininet.server import MiniWebServer, Response, World
from collie.mining.batches import BatchFetch
from collie.mining.config import RunConfig
from collie.mining.executor import LocalExecutor
from collie.mining.records import Deadline, LoopReport, RunEvents
from collie.mining.settle import Settler
from collie.mining.spider import Listings, Spider
from collie.mining.stream import Stream
from collie.mining.workers import Workers
from collie.store import Store

from .conftest import at_depth, open_copy
from .pages import article, queue

SITE = "http://isolezwe.co.za"


def small_site(world: World) -> None:
    """A home page found by search, linking to two Zulu articles (found by crawling),
    one of which links to an English page."""
    links = [f"{SITE}/one", f"{SITE}/two"]
    world.add(f"{SITE}/", Response.html(article("zul", 0, 3, links).decode()))
    world.add(f"{SITE}/one", Response.html(article("zul", 3, 3, [f"{SITE}/en"]).decode()))
    world.add(f"{SITE}/two", Response.html(article("zul", 6, 3).decode()))
    world.add(f"{SITE}/en", Response.html(article("eng", 0, 3).decode()))


def loop_parts(
    store: Store, config: RunConfig, fetcher: Fetcher, model: LangModel, deadline: float = 0
) -> tuple:  # type: ignore[type-arg]
    """A scheduler's parts over `store` (crawl depth 3), its report last."""
    workers = Workers(LocalExecutor(), fetcher, model, config)
    spider = Spider(store, at_depth(config, 3))
    settler = Settler(store, config, spider, model, robots=fetcher.robots)
    listings = Listings(store, config, fetcher.robots, settler.keep_exchanges)
    return (store.frontier, workers, settler, listings, RunEvents(), Deadline(deadline),
            LoopReport(1))  # fmt: skip


@pytest.mark.parametrize("scheduler", [Stream, BatchFetch])
def test_a_scheduler_fetches_the_frontier_until_it_is_empty(
    scheduler, template_ws: Path, tmp_path: Path, model: LangModel, world: World, web: MiniWebServer
) -> None:
    small_site(world)
    flags = {"crawl__sitemaps": False, "fetch__delay": 0, "crawl__site_min_pages": 100}
    with open_copy(template_ws, tmp_path, **flags) as ws:
        config = RunConfig.of(ws, model)
        store = Store(ws.db)
        store.frontier.open_loop()
        queue(store, [f"{SITE}/"])
        with Fetcher(config.fetch) as fetcher:
            parts = loop_parts(store, config, fetcher, model)
            report = parts[-1]
            fetching = scheduler(*parts)
            assert fetching.run() is None
            fetching.finish()
        assert report.pages == {"kept": 3, "wronglang": 1}
        assert store.frontier.queued_count() == 0
        assert fetching.held_back() == (0, {})


@pytest.mark.parametrize("scheduler", [Stream, BatchFetch])
def test_a_scheduler_stops_at_the_time_limit(
    scheduler, ws, model: LangModel, world: World, web: MiniWebServer
) -> None:
    small_site(world)
    config = RunConfig.of(ws, model)
    store = Store(ws.db)
    store.frontier.open_loop()
    queue(store, [f"{SITE}/"])
    with Fetcher(config.fetch) as fetcher:
        fetching = scheduler(*loop_parts(store, config, fetcher, model, deadline=1e-9))
        assert fetching.run() == "the run's time limit (1e-09 s) was reached"
        fetching.finish()
    assert store.frontier.queued_count() == 1  # the page stays queued for the next run


def test_the_stream_reads_back_the_answers_a_killed_run_fetched(
    template_ws: Path, tmp_path: Path, model: LangModel, world: World, web: MiniWebServer
) -> None:
    """What a run fetched and never recorded (kill -9) is examined from the fetch journal
    by the next run, with no request; the journal is empty once everything is recorded."""
    from collie.archive.journal import journal_keys

    small_site(world)
    flags = {"crawl__sitemaps": False, "fetch__delay": 0, "crawl__site_min_pages": 100}
    with open_copy(template_ws, tmp_path, **flags) as ws:
        config = RunConfig.of(ws, model)
        store = Store(ws.db)
        store.frontier.open_loop()
        [home] = queue(store, [f"{SITE}/"])
        with Fetcher(config.fetch) as fetcher:
            parts = loop_parts(store, config, fetcher, model)
            report = parts[-1]
            killed = Stream(*parts)
            killed.top_up()  # the home page handed to the pool; its answer journalled...
            for _ in range(200):
                if journal_keys(ws.root):
                    break
                time.sleep(0.01)
            killed.pool.close(wait=False)  # ...and never recorded: the process died
            assert journal_keys(ws.root) == [f"page {home.id}"]
            assert store.frontier.queued_count() == 1
            asked = len(web.requests_for("isolezwe.co.za"))
            with Stream(*parts) as resumed:
                assert resumed.run() is None
                resumed.finish()
        assert report.pages == {"kept": 3, "wronglang": 1}
        paths = [e.path for e in web.requests_for("isolezwe.co.za")[asked:]]
        assert "/" not in paths and sorted(paths) == ["/en", "/one", "/two"]
        assert journal_keys(ws.root) == []
