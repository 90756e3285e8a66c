"""A site's /.well-known/tdmrep.json (W3C TDMRep; issue 57): its rules read
(collie.fetch.tdmrep), the file fetched once per origin right after robots.txt, paced and
only where robots.txt allows it (collie.fetch.fetcher), and its verdict weighed against
what a page states itself (collie.page.rights.with_site_file)."""

from __future__ import annotations

import itertools
import json
from urllib.parse import urlsplit

import pytest

from collie.fetch.fetcher import FetchConfig, Fetcher
from collie.fetch.robots import MemoryRobotsStore
from collie.fetch.tdmrep import file_text, reservation
from collie.mininet.messages import Response
from collie.mininet.records import SiteTruth
from collie.mininet.rights import plant_rights, plant_tdmrep
from collie.mininet.server import MiniWebServer, World
from collie.mininet.sites import WorldPage
from collie.page.rights import detect_rights, with_site_file

PAGE = "<html><head><title>t</title></head><body><p>Habari</p></body></html>"
RULES = json.dumps(
    [
        {"location": "/habari/*", "tdm-reservation": 1, "tdm-policy": "https://x.ke/p.json"},
        {"location": "/habari/wazi/", "tdm-reservation": 0},  # after a match: never used
        {"location": "/*.pdf$", "tdm-reservation": 2},
        {"location": "/bure", "tdm-reservation": 0},
        {"location": "/", "tdm-reservation": "1"},
    ]
)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://s.ke/habari/leo.html", 1),
        ("http://s.ke/habari/wazi/a.html", 1),  # the first rule matching decides
        ("http://s.ke/docs/a.pdf", 1),
        ("http://s.ke/docs/a.pdf?x=1", 1),  # the query is part of the path matched
        ("http://s.ke/bure/a.html", 0),
        ("http://s.ke/bure", 0),
        ("http://s.ke/", 1),
        ("http://s.ke/%62ure/a.html", 0),  # percent-encoded letters are decoded
    ],
)
def test_rules_first_match_decides(url: str, expected: int) -> None:
    assert reservation(RULES, url) == expected


def test_what_says_nothing() -> None:
    only = json.dumps([{"location": "/habari/", "tdm-reservation": 1}])
    assert reservation(only, "http://s.ke/michezo/") is None  # no rule matches
    bad = ('[{"location": "/", "tdm-reservation": 5}]', '[{"tdm-reservation": 1}]',
           '[{"location": "/", "tdm-reservation": true}]')  # fmt: skip
    for text in ("", None, "{}", "not json", *bad):
        assert reservation(text, "http://s.ke/a") is None
    assert file_text(404, b"[]") == "" and file_text(200, b"<html>") == ""
    assert file_text(200, RULES.encode()) == RULES


def test_a_page_own_statement_outranks_the_file() -> None:
    plain = detect_rights(PAGE)
    assert with_site_file(plain, 1).tdm == "tdmrep-file"
    assert with_site_file(plain, 0).tdm is None and with_site_file(plain, None).tdm is None
    said_no = detect_rights(PAGE, {"TDM-Reservation": "0"})
    assert said_no.tdm is None and with_site_file(said_no, 1).tdm is None
    meta_no = detect_rights(PAGE.replace("<title>", '<meta name="tdm-reservation" content="0">'))
    assert with_site_file(meta_no, 1).tdm is None
    own = detect_rights(PAGE.replace("<title>", '<meta name="robots" content="noai">'))
    assert with_site_file(own, 1).tdm == "robots-noai"  # its own source kept


def paths(web: MiniWebServer, host: str) -> list[str]:
    return [entry.path for entry in web.requests_for(host)]


def test_tdmrep_is_read_once_per_origin_after_robots(web: MiniWebServer, world: World) -> None:
    world.add("http://tdm.example.ke/robots.txt", Response.text("User-agent: *\nAllow: /\n"))
    world.add("http://tdm.example.ke/.well-known/tdmrep.json",
              Response.text(RULES, "application/json"))  # fmt: skip
    for path in ("/habari/1.html", "/bure/2.html", "/habari/3.html"):
        world.add(f"http://tdm.example.ke{path}", Response.html(PAGE))
    store = MemoryRobotsStore()
    with Fetcher(FetchConfig(delay=0.3, backoff=0.01), store) as fetcher:
        results = [fetcher.fetch(f"http://tdm.example.ke{p}") for p in
                   ("/habari/1.html", "/bure/2.html", "/habari/3.html")]  # fmt: skip
    assert [r.tdmrep for r in results] == [1, 0, 1]
    assert paths(web, "tdm.example.ke") == [
        "/robots.txt", "/.well-known/tdmrep.json", "/habari/1.html", "/bure/2.html",
        "/habari/3.html",
    ]  # fmt: skip
    times = [e.monotonic for e in web.requests_for("tdm.example.ke")]
    assert min(b - a for a, b in itertools.pairwise(times)) >= 0.3  # paced like any request
    assert results[0].exchanges[1].url.endswith("/.well-known/tdmrep.json")  # for the WARC
    (record,) = store.take_new()
    assert record.tdmrep == RULES  # kept with robots.txt's record, for the workspace


def test_tdmrep_absent_disallowed_or_known_is_not_asked_again(
    web: MiniWebServer, world: World
) -> None:
    world.add("http://none.example.ke/a.html", Response.html(PAGE))  # no file: 404
    world.add("http://none.example.ke/b.html", Response.html(PAGE))
    world.add("http://shut.example.ke/robots.txt",
              Response.text("User-agent: *\nDisallow: /.well-known/\n"))  # fmt: skip
    world.add("http://shut.example.ke/a.html", Response.html(PAGE))
    store = MemoryRobotsStore()
    with Fetcher(FetchConfig(delay=0.0, backoff=0.01), store) as fetcher:
        assert [fetcher.fetch(f"http://none.example.ke/{p}.html").tdmrep for p in "ab"] == [
            None
        ] * 2
        assert fetcher.fetch("http://shut.example.ke/a.html").tdmrep is None
    assert paths(web, "none.example.ke") == [
        "/robots.txt", "/.well-known/tdmrep.json", "/a.html", "/b.html"]  # fmt: skip
    assert paths(web, "shut.example.ke") == ["/robots.txt", "/a.html"]
    assert {r.origin: r.tdmrep for r in store.take_new()} == {
        "http://none.example.ke": "",
        "http://shut.example.ke": "",
    }
    known = MemoryRobotsStore([r for r in (store.get("http://none.example.ke"),) if r is not None])
    with Fetcher(FetchConfig(delay=0.0, backoff=0.01), known) as fetcher:
        fetcher.fetch("http://none.example.ke/a.html")
    assert paths(web, "none.example.ke")[4:] == ["/a.html"]  # a later run asks neither again


def test_the_worlds_files_and_their_truth_agree_with_collie() -> None:
    """mininet.rights.plant_tdmrep's files, read by collie.fetch.tdmrep and weighed with
    each page's own signals, give exactly the truth the world records."""
    pages: dict[str, WorldPage] = {}
    sites = {}
    for number in range(24):
        host = f"site{number}.example.ke"
        sites[host] = SiteTruth(host, "target" if number % 3 else "other", "zul")
        for path in ("/", "/habari/1.html", "/habari/2.html", "/michezo/3.html", "/b.html"):
            url = f"http://{host}{path}"
            html = [("Content-Type", "text/html; charset=utf-8")]
            pages[url] = WorldPage(url, host, body=PAGE.encode(), headers=html)
    truth = plant_rights(pages)
    files = plant_tdmrep(pages, sites, {"site1.example.ke": ""}, truth)
    assert files and "site1.example.ke" not in files  # its robots.txt fails
    assert all(sites[host].kind == "target" for host in files)
    whole = section = 0
    for url, page in pages.items():
        host = urlsplit(url).netloc
        if page.kind != "page":
            assert page.kind == "tdmrep" and url == f"http://{host}/.well-known/tdmrep.json"
            continue
        headers = {k.lower(): v for k, v in page.headers}
        got = with_site_file(detect_rights(page.body.decode(), headers),
                             reservation(files.get(host), url))  # fmt: skip
        assert got.tdm == truth.get(url, (None, None))[1], url
        if host in files and got.tdm == "tdmrep-file":
            whole += urlsplit(url).path == "/"
            section += urlsplit(url).path.startswith("/habari/")
    assert whole and section  # both kinds of file, each reserving pages
