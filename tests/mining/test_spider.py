"""mining/spider.py: the links a loop crawls next, new sites within their budget, poor
sites stopped."""

from __future__ import annotations

from pathlib import Path

from collie.mining.config import RunConfig
from collie.mining.spider import Spider, crawls_as
from collie.models import PageOutcome
from collie.store import Store

from .conftest import at_depth, open_copy
from .pages import queue

LINKS = [
    ("http://alpha.co.za/two", "Izindaba"),
    ("http://alpha.co.za/feed.xml", "RSS"),  # read as a listing, not as a page
    ("http://beta.co.za/", "B"),
    ("http://gamma.co.za/", "C"),
]


def test_a_target_document_brings_its_sites_links_and_new_sites_within_budget(
    template_ws: Path, tmp_path: Path
) -> None:
    with open_copy(template_ws, tmp_path, crawl__max_new_sites=1) as ws:
        store = Store(ws.db)
        store.frontier.open_loop()
        [page] = queue(store, ["http://alpha.co.za/one"])
        spider = Spider(store, at_depth(RunConfig.of(ws), 2))
        kept = PageOutcome(page.id, page.site, "kept", links=LINKS)
        entries = spider.plan_links({page.id: page}, [kept], loop=1)
        planned = {(e.url, e.depth, e.source) for e in entries}
        assert ("http://alpha.co.za/two", 1, "crawl") in planned
        assert ("http://beta.co.za/", 0, "crawl") in planned  # a new site, at depth 0
        assert not any(e.url.startswith("http://gamma.") for e in entries)  # over the budget
        assert not any(e.url.endswith("feed.xml") for e in entries)
        assert all(e.referrer_id == page.id for e in entries)
        wrong = PageOutcome(page.id, page.site, "wronglang", links=LINKS)
        assert spider.plan_links({page.id: page}, [wrong], loop=1) == []
        deep = Spider(store, at_depth(RunConfig.of(ws), 0))
        # at the crawl depth the site's links stop; a new site still enters at depth 0
        assert [e.url for e in deep.plan_links({page.id: page}, [kept], loop=1)] == [
            "http://beta.co.za/"
        ]


def test_a_target_language_listing_page_is_crawled_as_a_document() -> None:
    listing = PageOutcome(1, "alpha.co.za", "dropped", "listing:teasers", lang="zul")
    assert crawls_as(listing, "zul") == "kept"
    assert crawls_as(PageOutcome(1, "alpha.co.za", "dropped", "listing", lang="eng"), "zul") == (
        "dropped"
    )


def test_a_site_whose_pages_yield_too_little_stops(template_ws: Path, tmp_path: Path) -> None:
    flags = {"crawl__site_min_pages": 2, "crawl__site_min_yield": 0.5}
    with open_copy(template_ws, tmp_path, **flags) as ws:
        store = Store(ws.db)
        store.frontier.open_loop()
        pages = queue(store, [f"http://poor.example.com/{i}" for i in range(3)])
        with store.batch():
            for page in pages:
                store.pages.write(PageOutcome(page.id, page.site, "wronglang", lang="eng"))
        Spider(store, at_depth(RunConfig.of(ws), 2)).stop_poor_sites({"example.com"})
        assert store.sites.site_counts("example.com")[2] is not None
