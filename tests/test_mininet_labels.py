"""The closed world's religious sites and multilingual shops, their site truth, and the
site list's scorer (issue 44, part 4)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from collie.crawl.links import site_of
from collie.mininet.build import build
from collie.mininet.records import BuildOptions, SiteTruth
from collie.mininet.sitescore import (
    format_site_scores,
    reached_target_hosts,
    read_site_list,
    score_sites,
)
from collie.mininet.worldfile import WorldFile

LABELLED = BuildOptions(sites=40, seed=3, site_labels=True)
REFERENCE = re.compile(r"\b\w+ \d{1,3}:\d{1,3}\b")  # "uJohane 3:16"
VERSE = re.compile(r"^(?:1|2)[\s\xa0]\S", re.M)
VERSE_LINE = re.compile(r"^\d{1,3} \S", re.M)


@pytest.fixture(scope="module")
def world_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("labels") / "world.db"
    build(LABELLED, path)
    return path


@pytest.fixture(scope="module")
def world(world_file: Path) -> Iterator[WorldFile]:
    stored = WorldFile(world_file)
    yield stored
    stored.close()


def test_same_options_same_bytes(world_file: Path, tmp_path: Path) -> None:
    again = tmp_path / "again.db"
    build(LABELLED, again)
    assert again.read_bytes() == world_file.read_bytes()


def test_the_site_truth_names_religious_sites_and_shops(world: WorldFile) -> None:
    sites = world.sites()
    kinds = Counter(s.kind for s in sites.values())
    assert kinds["target"] >= 7 and kinds["relative"] >= 1 and kinds["other"] >= 1
    religious = {h: s for h, s in sites.items() if s.kind == "religious"}
    assert {"www.jw.org", "wol.jw.org", "www.bible.com", "ebible.org"} <= set(religious)
    assert all(s.labels == ("religious",) for s in religious.values())
    assert {s.lang for s in religious.values()} >= {"zul", "xho", "eng"}  # relatives' too
    assert all(s.target_pages > 0 for s in religious.values() if s.lang == "zul")
    shops = {h: s for h, s in sites.items() if s.kind == "multilingual"}
    assert all(s.labels == ("multilingual",) for s in shops.values())
    domains = Counter(site_of(h) for h in shops)
    assert len(domains) == 3 and max(domains.values()) >= 15  # one on subdomains
    assert "zu." + max(domains, key=lambda d: domains[d]) in shops
    labelled = ("religious", "multilingual")
    assert not any(s.labels for s in sites.values() if s.kind not in labelled)


def test_religious_pages_read_as_scripture(world: WorldFile) -> None:
    sites = world.sites()
    truths = [t for t in world.truths().values() if t.kind == "page"]
    chapters = [t for t in truths if "/bible/" in t.url]
    assert any(t.site == "wol.jw.org" for t in chapters)
    assert all(VERSE.search(t.main_text) for t in chapters)
    religious = {h for h, s in sites.items() if s.kind == "religious"}
    referenced = {t.site for t in truths if t.site in religious and REFERENCE.search(t.main_text)}
    assert referenced == religious - {"wol.jw.org"}  # its chapters' home has none
    assert any("uJohane" in t.main_text or "uMathewu" in t.main_text for t in truths)
    praising = {t.site for t in truths if re.search(r"\bAmen|\bAmina", t.main_text)}
    assert praising >= religious - {"wol.jw.org"}  # church words, in the site's language
    longest = max(len(VERSE_LINE.findall(t.main_text)) for t in chapters)
    assert longest >= 8  # a chapter has verses enough to count as one


def test_shops_serve_one_page_in_many_languages(world: WorldFile) -> None:
    sites = world.sites()
    truths = world.truths()
    shop_pages = [
        t for t in truths.values() if t.kind == "page" and sites[t.site].kind == "multilingual"
    ]
    product = [t for t in shop_pages if t.url.endswith("/product/" + t.url.rsplit("/", 1)[-1])]
    langs = Counter(t.lang for t in product)
    assert len(langs) >= 15 and langs["zul"] >= 3
    body = world._query("SELECT body FROM pages WHERE url = ?", (product[0].url,))[0][0]
    assert body.count(b'hreflang="') >= 16 and b"language-switcher" in body
    assert b"Add to cart" in body and b'itemprop="price"' in body
    assert any(t.url.startswith("http://www.") and "/zu/" in t.url for t in product)
    assert any(t.url.startswith("http://zu.") for t in product)
    # the target's version is machine-like: not a sentence of it is in the world's text
    zulu = [t for t in product if t.lang == "zul"]
    text = " ".join(
        t.main_text
        for t in truths.values()
        if sites.get(t.site, SiteTruth("", "", "")).kind == "target"
    )
    assert not any(line in text for t in zulu for line in t.main_text.split("\n")[1:])


def test_target_sites_never_look_religious_or_multilingual(world: WorldFile) -> None:
    sites = world.sites()
    plain = {h for h, s in sites.items() if s.kind in ("target", "hidden", "mixed", "mirror")}
    for truth in world.truths().values():
        if truth.site in plain and truth.kind == "page":
            assert not REFERENCE.search(truth.main_text), truth.url
            body = world._query("SELECT body FROM pages WHERE url = ?", (truth.url,))[0][0]
            assert b"hreflang" not in body and b"language-switcher" not in body, truth.url


def test_the_default_world_has_no_labelled_sites(tmp_path: Path) -> None:
    path = tmp_path / "plain.db"
    build(BuildOptions(sites=20, seed=3), path)
    sites = WorldFile(path).sites()
    assert sites and not {s.kind for s in sites.values()} & {"religious", "multilingual"}


SITES_TSV = """\
site\turl\tdocuments\twords\tlabels\tfound\taudit\treasons
jw.org\thttp://www.jw.org/\t9\t900\treligious\tsearch,crawl\t\tscripture references (12)
ebible.org\thttp://ebible.org/\t4\t400\t\tsearch\t\t
shop.com\thttp://zu.shop.com/\t3\t300\tmultilingual,relative\tcrawl\t\t18 locales
news.co.za\thttp://news.co.za/\t8\t800\trelative,religious\tsearch\t\tmostly xho
izwi.co.za\thttp://www.izwi.co.za/\t5\t500\t\tsearch\t\t
nowhere.org\thttp://nowhere.org/\t1\t10\t\tsearch\t\t
"""


def test_the_scorer_reads_a_site_list(tmp_path: Path) -> None:
    path = tmp_path / "sites.tsv"
    path.write_text(SITES_TSV, encoding="utf-8")
    rows = read_site_list(path)
    assert [r.site for r in rows][:2] == ["jw.org", "ebible.org"]
    assert rows[3].labels == {"relative", "religious"} and rows[0].found == {"search", "crawl"}
    truth = {
        "www.jw.org": SiteTruth("www.jw.org", "religious", "zul", ("religious",), 4),
        "wol.jw.org": SiteTruth("wol.jw.org", "religious", "zul", ("religious",), 5),
        "ebible.org": SiteTruth("ebible.org", "religious", "zul", ("religious",), 8),
        "www.shop.com": SiteTruth("www.shop.com", "multilingual", "eng", ("multilingual",), 0),
        "zu.shop.com": SiteTruth("zu.shop.com", "multilingual", "zul", ("multilingual",), 4),
        "news.co.za": SiteTruth("news.co.za", "target", "zul", (), 12),
        "www.izwi.co.za": SiteTruth("www.izwi.co.za", "relative", "xho", (), 0),
        "www.missed.co.za": SiteTruth("www.missed.co.za", "target", "zul", (), 3),
        "www.far.co.za": SiteTruth("www.far.co.za", "target", "zul", (), 3),
    }
    reached = ["www.jw.org", "ebible.org", "news.co.za", "www.missed.co.za", "www.izwi.co.za"]
    scores = score_sites(rows, truth, site_of, reached)
    religious, multilingual = scores.labels["religious"], scores.labels["multilingual"]
    assert (religious.labelled, religious.correct, religious.truly) == (2, 1, 2)
    assert religious.precision == 0.5 and religious.recall == 0.5
    assert multilingual.precision == 1.0 and multilingual.recall == 1.0
    assert scores.unlabelled["religious"] == ["ebible.org"]
    assert scores.mislabelled["religious"] == ["news.co.za"]
    assert scores.target_relative == ["news.co.za"]  # not the shop: its locales are relatives
    assert scores.listed == 6 and scores.correct == 4 and scores.precision == 4 / 6
    assert scores.wrong == ["izwi.co.za"] and scores.unknown == ["nowhere.org"]
    assert (scores.reached, scores.reached_listed, scores.missed) == (4, 3, ["missed.co.za"])
    text = format_site_scores(scores)
    assert "religious" in text and "0.5000" in text and "missed.co.za" in text


def test_reached_hosts_come_from_target_pages_requested(world: WorldFile) -> None:
    truths = world.truths()
    zulu = next(t for t in truths.values() if t.kind == "page" and t.lang == "zul")
    other = next(t for t in truths.values() if t.kind == "page" and t.lang == "eng")
    log = [{"url": zulu.url}, {"url": other.url}, {"url": "http://nowhere.example/"}]
    assert reached_target_hosts(truths, log, "zul") == {zulu.site}
