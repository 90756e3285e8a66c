"""Crawl policy: sites, queued URL forms, link layers and priorities, site yield."""

from __future__ import annotations

import pytest

from collie.crawl.links import (
    LinkEvidence,
    crawl_url,
    language_needles,
    link_layer,
    link_priority,
    same_site,
    site_of,
    site_stop_reason,
)
from collie.models import Referrer


@pytest.mark.parametrize(
    ("host", "site"),
    [
        ("www.nation.co.ke", "nation.co.ke"),
        ("nation.co.ke", "nation.co.ke"),
        ("news.udsm.ac.tz", "udsm.ac.tz"),
        ("www.bbc.co.uk", "bbc.co.uk"),
        ("www.example.com", "example.com"),
        ("luo.example.ke", "example.ke"),
        ("jaluo.blogspot.com", "jaluo.blogspot.com"),
        # the Public Suffix List: every country's own second levels, the private section
        ("www.nic.or.kr", "nic.or.kr"),
        ("blog.gov.bc.ca", "gov.bc.ca"),
        ("me.github.io", "me.github.io"),
        ("shop.example.wixsite.com", "example.wixsite.com"),
        ("luo.jimdofree.com", "luo.jimdofree.com"),  # HOSTING_SUFFIXES: not in the list
        ("co.ke", "co.ke"),  # a bare public suffix is its own site
        ("http://Www.Example.ORG:8080/a", "example.org"),
        ("127.0.0.1", "127.0.0.1"),
    ],
)
def test_site_of(host: str, site: str) -> None:
    assert site_of(host) == site


def test_same_site() -> None:
    assert same_site("http://www.nation.co.ke/a", "https://nation.co.ke/b")
    assert not same_site("http://a.blogspot.com/", "http://b.blogspot.com/")
    assert not same_site("http://nation.co.ke/", "http://standard.co.ke/")


def test_crawl_url_normalises_and_refuses_traps() -> None:
    assert (crawl_url("HTTP://X.co.ke:80/a/./b;jsessionid=1F?id=3&PHPSESSID=ab&utm_source=t#top")
            == "http://x.co.ke/a/b?id=3")  # fmt: skip
    assert crawl_url("mailto:me@x.co.ke") is None
    assert crawl_url("javascript:void(0)") is None
    assert crawl_url("http://x.co.ke/cal/2024/05/cal/2024/06/cal/2024/07") is None
    assert crawl_url("http://x.co.ke/" + "/".join(f"d{i}" for i in range(20))) is None
    assert crawl_url("http://x.co.ke/?q=" + "a" * 600) is None


def test_needles_of_luo() -> None:
    needles = language_needles("luo")
    assert "dholuo" in needles.target and "luo" in needles.target_codes
    assert {"english", "kiswahili", "swahili"} <= needles.other
    assert {"en", "sw", "eng"} <= needles.other_codes
    assert "kenya" not in needles.target  # from the qualifier "Luo (Kenya and Tanzania)"
    assert "central" not in needles.other  # a word of "Central Khmer", not a name


@pytest.mark.parametrize(
    ("url", "anchor", "layer"),
    [
        ("http://x.co.ke/dholuo/wach/12", "Wach", "primary"),
        ("http://luo.x.co.ke/news", "", "primary"),
        ("http://x.co.ke/en/news", "News", "reserve"),
        ("http://en.x.co.ke/news", "", "reserve"),
        ("http://x.co.ke/english/2024/", "Read", "reserve"),
        ("http://x.co.ke/index.php?lang=sw", "", "reserve"),
        ("http://x.co.ke/page", "Kiswahili", "reserve"),
        ("http://x.co.ke/page", "EN", "reserve"),
        ("http://x.co.ke/en.html", "", "reserve"),
        ("http://x.co.ke/how-to-vote", "How to vote", "secondary"),  # 'to' inside words
        ("http://x.co.ke/wach/2024/05", "Wach manyien", "secondary"),
    ],
)
def test_link_layers(url: str, anchor: str, layer: str) -> None:
    assert link_layer(url, anchor, language_needles("luo")) == layer


def test_link_priority_orders_by_evidence() -> None:
    needles, domains = language_needles("luo"), [".ke"]
    luo_page, eng_page = Referrer("luo", 3000, "luo"), Referrer("eng", 3000, "en")
    short_eng = Referrer("eng", 100)

    def score(url: str, *refs: Referrer, anchor: str = "") -> float:
        return link_priority(LinkEvidence(url, anchor, refs), "luo", needles, domains)

    assert score("http://x.co.ke/a", luo_page) > score("http://x.co.ke/a", eng_page)
    assert score("http://x.co.ke/a", luo_page, short_eng) == score("http://x.co.ke/a", luo_page)
    assert (
        score("http://x.co.ke/dholuo/a") > score("http://x.co.ke/a") > score("http://x.co.ke/en/a")
    )
    assert score("http://x.co.ke/a") > score("http://x.com/a") > score("http://x.co.uk/a")


def test_site_stop_reason() -> None:
    assert site_stop_reason(target=0, pages=4, min_yield=0.2, min_pages=5) is None  # too few
    assert site_stop_reason(target=1, pages=5, min_yield=0.2, min_pages=5) is None  # at 20%
    assert site_stop_reason(target=1, pages=6, min_yield=0.2, min_pages=5) == "low-yield:1/6"


def test_a_short_page_takes_the_majority_language_of_its_long_referrers() -> None:
    from collie.crawl.links import short_page_vote

    long_zul, long_eng, short_eng = (
        Referrer("zul", 3000),
        Referrer("eng", 3000),
        Referrer("eng", 100),
    )
    assert short_page_vote([long_zul, long_zul, long_eng], 2) == "zul"
    assert short_page_vote([long_zul, short_eng, short_eng], 2) is None  # short ones do not vote
    assert short_page_vote([long_zul, long_eng], 2) is None  # no majority
    assert short_page_vote([long_zul], 1) == "zul"


def test_a_near_duplicate_is_crawled_out_but_not_into_its_own_url_family() -> None:
    from collie.crawl.links import follows_link, url_family

    assert url_family("http://a.ke/calendar/2024/5") == url_family("http://a.ke/calendar/2024/6")
    assert url_family("http://a.ke/list?page=2") == url_family("http://a.ke/list?page=3")
    assert url_family("http://a.ke/calendar/5") != url_family("http://a.ke/habari/kesho-5.html")
    month = "http://a.ke/calendar/5"
    assert follows_link("kept", month, "http://a.ke/calendar/6")  # a target document: all links
    assert not follows_link("duplicate", month, "http://a.ke/calendar/6")  # the endless way
    assert follows_link("duplicate", month, "http://a.ke/habari/kesho-5.html")  # into the site
    assert not follows_link("dropped", month, "http://a.ke/habari/kesho-5.html")
