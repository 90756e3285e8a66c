"""Crawl traps: the spider stops at generated chains (issue 58, point 5)."""

from __future__ import annotations

from pathlib import Path

from collie.crawl.chains import Chains, chain_key
from collie.mininet.calendar import PREFIX, add_calendar_site
from collie.udhr import load_declarations

from .clihelp import run_collie
from .zuluworld import SETTINGS

HOST = "izindaba-calendar.example.za"


def test_a_chain_is_the_path_before_its_first_number_or_a_path_with_a_query() -> None:
    day = "http://a.za/calendar/2024/05/06/"
    assert chain_key(day) == chain_key("http://a.za/calendar/2024/06/") == "a.za/calendar/"
    assert chain_key("http://a.za/events/12") == "a.za/events/"
    assert chain_key("http://a.za/shop?colour=red&size=2") == "a.za/shop?"
    assert chain_key("http://a.za/izindaba/") == chain_key("http://a.za/about") == ""


def test_an_unproven_chain_gets_its_budget_and_a_fruitful_one_goes_on() -> None:
    chains = Chains(3)
    day = "http://a.za/calendar/2024/05/{:02d}/"
    assert chains.allows("http://a.za/", day.format(1))  # the way in is no step
    taken = []
    for n in range(2, 12):  # as the spider plans a page's links: asked, then taken
        if chains.allows(day.format(1), day.format(n)):
            chains.take(day.format(1), day.format(n))
            taken.append(day.format(n))
    assert taken == [day.format(2), day.format(3), day.format(4)]
    for url in taken:
        chains.settle(url, document=False)  # listing pages that lead to listing pages
    assert not chains.allows(day.format(4), day.format(12)) and chains.refused == 8, chains.refused
    # a paginated archive whose pages lead to new articles goes on while they come
    page = "http://a.za/news?page={}"
    for n in range(2, 40):
        assert chains.allows(page.format(n - 1), page.format(n)), n
        chains.take(page.format(n - 1), page.format(n))
        chains.take(page.format(n), f"http://a.za/news/story-{n}.html")
        chains.settle(page.format(n), document=False)
        chains.settle(f"http://a.za/news/story-{n}.html", document=True)
    assert Chains(0).allows(day.format(4), day.format(12))  # 0: not limited


def test_the_spider_stops_in_an_endless_calendar_of_listing_pages(  # type: ignore[no-untyped-def]
    tmp_path: Path, capsys, web, world
) -> None:
    zul = load_declarations()["zul"].training_paragraphs()
    articles = add_calendar_site(world, HOST, zul[:24])
    docs = tmp_path / "zulu.txt"
    docs.write_text("\n\n".join(zul[24:]), encoding="utf-8")
    trapped = {}
    for budget in ("0", "3"):  # before (chains not limited) and after, in one run
        root = tmp_path / f"ws-{budget}"
        sets = [
            arg
            for s in [*SETTINGS, "crawl.depth=5", f"crawl.chain_budget={budget}"]
            for arg in ("--set", s)
        ]
        made = run_collie(capsys, "init", "-w", str(root), "--lang", "zul", "--docs", str(docs),
                          "--search", "searxng", "--search-url", web.search_url, *sets)  # fmt: skip
        assert made.code == 0, made.err
        web.clear_log()
        done = run_collie(capsys, "-w", str(root), "run", "--loops", "1")
        assert done.code == 0, done.err
        fetched = [e.path for e in web.requests_for(HOST)]
        trapped[budget] = sum(1 for path in fetched if path.startswith(PREFIX))
        assert {f"http://{HOST}{p}" for p in fetched} >= set(articles)  # the articles all in
    assert trapped["0"] > 20, trapped  # the trap is real: a month's days and more
    assert trapped["3"] <= 5, trapped  # issue 58's target: at most 5 trap requests a run
