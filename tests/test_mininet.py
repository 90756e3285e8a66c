"""The closed-world web on disk: build, serve, search, score (issue 8)."""

from __future__ import annotations

import dataclasses
import html
import json
import os
import re
import signal
import socket
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
import requests

from collie.mininet.build import build
from collie.mininet.pages import tokens
from collie.mininet.records import BuildOptions, Truth
from collie.mininet.score import MAINLY, SOME, score
from collie.mininet.server import MiniWebServer, Response
from collie.mininet.worldfile import StoredWorld, WorldFile

from .clihelp import run_collie

SMALL = BuildOptions(sites=40, seed=3)


@pytest.fixture(scope="module")
def world_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("world") / "world.db"
    build(SMALL, path)
    return path


@pytest.fixture(scope="module")
def stored(world_file: Path) -> Iterator[StoredWorld]:
    world = StoredWorld(world_file)
    yield world
    world.close()


@pytest.fixture
def served(stored: StoredWorld, monkeypatch: pytest.MonkeyPatch) -> Iterator[MiniWebServer]:
    with MiniWebServer(stored) as server:
        monkeypatch.setenv("HTTP_PROXY", server.proxy_url)
        for name in ("NO_PROXY", "no_proxy", "http_proxy"):
            monkeypatch.delenv(name, raising=False)
        yield server


def stored_body(world: StoredWorld, truth: Truth) -> bytes:
    answer = world.lookup(truth.site, truth.url.split(truth.site, 1)[1])
    assert isinstance(answer, Response)
    return answer.body


def target_truths(world: StoredWorld) -> list[Truth]:
    return [
        t
        for t in world.truths().values()
        if t.kind == "page" and t.shares.get(world.target, 0) >= SOME
    ]


def test_same_seed_same_bytes_other_seed_other_world(world_file: Path, tmp_path: Path) -> None:
    again, other = tmp_path / "again.db", tmp_path / "other.db"
    build(SMALL, again)
    assert again.read_bytes() == world_file.read_bytes()
    build(BuildOptions(sites=40, seed=4), other)
    assert other.read_bytes() != world_file.read_bytes()


def test_world_holds_the_planted_mix(stored: StoredWorld) -> None:
    truths = stored.truths().values()
    kinds = Counter(t.kind for t in truths)
    assert kinds["robots"] >= 20 and kinds["redirect"] >= 1 and kinds["binary"] == 2
    assert any(t.status == 500 for t in truths)
    langs = {t.lang for t in truths if t.kind == "page"}
    assert {"zul", "xho", "nbl", "ssw", "eng"} <= langs
    mixed = [t for t in truths if 0.05 <= t.shares.get("zul", 0) < 1]
    # target with English (mixed sites, news articles) or a regional language (issue 30)
    assert {frozenset(t.shares) for t in mixed} == {
        frozenset({"zul", "eng"}),
        frozenset({"zul", "nso"}),
    }
    assert any(t.disallowed and t.lang == "zul" for t in truths)
    relatives = [t for t in truths if t.kind == "page" and t.lang in ("xho", "nbl", "ssw")]
    assert any(b'<html lang="zu">' in stored_body(stored, t) for t in relatives)
    copies = Counter(t.dup_group for t in target_truths(stored))
    assert max(copies.values()) >= 2  # mirrors, printer versions, edited copies
    assert stored.traps and stored.seed_docs()
    robots = stored.robots()
    assert "" in robots.values() and any("Crawl-delay" in r for r in robots.values())
    sizes = stored._query("SELECT MAX(LENGTH(body)), MAX(delay) FROM pages")[0]
    assert sizes[0] > 5 * 2**20 and sizes[1] > 1  # a page over 5 MiB, a slow page
    seed_text = " ".join(text for _, text in stored.seed_docs())
    for truth in target_truths(stored):  # seed paragraphs never appear in the world's pages
        assert not any(
            line in seed_text for line in truth.main_text.split("\n")[1:] if len(line) > 40
        )


def test_manifest_agrees_with_what_the_server_serves(
    stored: StoredWorld, served: MiniWebServer
) -> None:
    truths = stored.truths()
    for url, truth in list(truths.items())[::7]:
        if "/forum/" in url:
            continue  # the 6 MB page is checked below
        answer = requests.get(url, timeout=10, allow_redirects=False)
        assert answer.status_code == truth.status, url
        if truth.kind == "page":
            assert answer.content == stored_body(stored, truth)
            text = " ".join(
                html.unescape(
                    re.sub(r"<[^>]+>", " ", answer.content.decode(truth.encoding))
                ).split()
            )
            for paragraph in truth.main_text.split("\n"):
                assert paragraph in text, url
        if truth.kind == "redirect":
            assert answer.headers["Location"]
    trap = stored.traps[0]
    page = requests.get(f"http://{trap.site}{trap.prefix}41", timeout=10)
    assert page.status_code == 200 and f"{trap.prefix}42".encode() in page.content
    assert stored.trap_truth(f"http://{trap.site}{trap.prefix}41") is not None
    assert requests.get(f"http://{trap.site}{trap.prefix}x", timeout=10).status_code == 404


def test_search_finds_a_page_by_three_of_its_words(
    stored: StoredWorld, served: MiniWebServer
) -> None:
    indexed = [t for t in target_truths(stored) if t.indexed and t.dup_group == t.url]
    frequency: Counter[str] = Counter()
    for truth in stored.truths().values():
        frequency.update(set(truth.main_text.lower().split()))
    for truth in indexed[:5]:
        words = sorted(set(truth.main_text.lower().split()), key=lambda w: (frequency[w], w))
        query = " ".join(w.strip(".,;:") for w in words[:3])
        answer = requests.get(
            f"{served.search_url}/search", params={"q": query, "format": "json"}, timeout=10
        ).json()
        assert truth.url in [r["url"] for r in answer["results"][:10]], query
        assert answer["results"][0]["content"]


def test_search_pages_and_site_filter(stored: StoredWorld) -> None:
    query = "umuntu wonke ilungelo"
    first, second = stored.search(query, 1), stored.search(query, 2)
    assert first.total > 10 and len(first.hits) == 10
    assert not {h.url for h in first.hits} & {h.url for h in second.hits}
    assert [h.score for h in first.hits] == sorted((h.score for h in first.hits), reverse=True)
    only = stored.search(f"{query} (site:.za OR site:.sz)")
    assert only.total and all(h.url.split("/")[2].endswith((".za", ".sz")) for h in only.hits)


def oracle(stored: StoredWorld) -> list[dict[str, str]]:
    """One document per target duplicate group, its main text exactly (listing pages, hubs
    of teasers, are not documents: left out)."""
    groups: dict[str, Truth] = {}
    for truth in target_truths(stored):
        if not truth.listing:
            groups.setdefault(truth.dup_group, truth)
    return [{"url": t.url, "final_url": t.url, "text": t.main_text} for t in groups.values()]


def test_oracle_export_scores_one(stored: StoredWorld) -> None:
    s = score(stored, oracle(stored))
    assert (s.precision_some, s.recall_all, s.recall_reachable) == (1.0, 1.0, 1.0)
    assert s.near_duplicates_leaked == 0 and s.boilerplate_leaked == 0.0
    assert s.pages_fetched is None  # no log given


def test_bad_export_scores_what_it_holds(stored: StoredWorld) -> None:
    good = oracle(stored)[:10]
    truths = stored.truths().values()
    xhosa = next(t for t in truths if t.kind == "page" and t.lang == "xho")
    mixed = next(t for t in truths if 0.05 <= t.shares.get("zul", 0) < MAINLY)
    docs = [
        *good,
        good[0],
        {"url": xhosa.url, "text": xhosa.main_text},
        {"url": mixed.url, "text": mixed.main_text},
        {"url": "http://nowhere.example/", "text": "x"},
        {"url": good[1]["url"], "text": good[1]["text"] + "\nPrivacy Policy Terms of Use"},
    ]
    s = score(stored, docs)
    assert (s.exported, s.mainly, s.some, s.no_target, s.unknown) == (15, 12, 1, 1, 1)
    assert s.precision_some == round(13 / 15, 4)
    assert s.near_duplicates_leaked == 2  # good[0] and good[1] exported twice
    assert s.found == 11 and s.recall_all == round(11 / s.target_pages, 4)
    assert s.boilerplate_leaked > 0


def test_log_gives_fetches_robots_and_politeness(stored: StoredWorld) -> None:
    truths = stored.truths()
    banned = next(t for t in truths.values() if t.disallowed)
    page = next(
        t
        for t in truths.values()
        if t.kind == "page" and t.site == banned.site and not t.disallowed
    )
    log = [
        {
            "host": banned.site,
            "path": "/robots.txt",
            "url": f"http://{banned.site}/robots.txt",
            "monotonic": 10.0,
        },
        {"host": page.site, "path": "/", "url": page.url, "monotonic": 11.0},
        {"host": banned.site, "path": "/private/", "url": banned.url, "monotonic": 11.2},
        {
            "host": "127.0.0.1:9",
            "path": "/search",
            "url": "http://127.0.0.1:9/search",
            "monotonic": 11.3,
        },
    ]
    s = score(stored, oracle(stored), log, delay=1.0)
    assert (s.pages_fetched, s.robots_violations, s.politeness_violations) == (2, 1, 1)


def test_cli_build_refuses_existing_file_and_bad_docs(
    world_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    exists = run_collie(capsys, "mininet", "build", str(world_file))
    assert exists.code == 1 and "exists" in exists.err
    bad = run_collie(capsys, "mininet", "build", str(tmp_path / "w.db"), "--docs", "luo")
    assert bad.code == 2 and "LANG=DIR" in bad.err
    empty = run_collie(
        capsys,
        "mininet",
        "build",
        str(tmp_path / "w.db"),
        "--target",
        "luo",
        "--docs",
        f"luo={tmp_path}",
    )
    assert empty.code == 2 and "no .txt files" in empty.err
    assert not (tmp_path / "w.db").exists()


def test_cli_docs_never_overwrites_a_seed_file_without_force(
    stored: StoredWorld, world_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`collie mininet docs WORLD FOLDER` over the user's own seed-001.txt refuses, names
    the file and writes nothing; --force replaces (issue 46)."""
    folder = tmp_path / "seed"
    folder.mkdir()
    mine = folder / "seed-001.txt"
    mine.write_text("my own notes\n", encoding="utf-8")
    names = [name for name, _text in stored.seed_docs()]
    assert "seed-001.txt" in names and len(names) > 1
    refused = run_collie(capsys, "mininet", "docs", str(world_file), str(folder))
    assert refused.code == 1
    assert str(mine) in refused.err and "--force" in refused.err
    assert mine.read_text(encoding="utf-8") == "my own notes\n"
    assert sorted(p.name for p in folder.iterdir()) == ["seed-001.txt"]
    forced = run_collie(capsys, "mininet", "docs", str(world_file), str(folder), "--force")
    assert forced.code == 0, forced.err
    assert mine.read_text(encoding="utf-8") == dict(stored.seed_docs())["seed-001.txt"]
    assert sorted(p.name for p in folder.iterdir()) == sorted(names)


def test_cli_builds_a_world_around_the_users_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = tmp_path / "luo"
    docs.mkdir()
    paragraphs = [
        f"Jo-Luo {i} ne odak e dala machiegni gi nam Lolwe, kendo ne gipuro puothe "
        f"ma gichwoyo bel gi rabuon e higa {1900 + i}."
        for i in range(40)
    ]
    (docs / "luo.txt").write_text("\n\n".join(paragraphs), encoding="utf-8")
    out = tmp_path / "luo.db"
    result = run_collie(
        capsys,
        "mininet",
        "build",
        str(out),
        "--target",
        "Dholuo",
        "--docs",
        f"luo={docs}",
        "--langs",
        "eng,swh",
        "--sites",
        "12",
    )
    assert result.code == 0, result.err
    world = StoredWorld(out)
    assert world.target == "luo" and json.loads(world.meta["sources"])["luo"] == "docs:luo"
    assert target_truths(world)
    seeds = run_collie(capsys, "mininet", "docs", str(out), str(tmp_path / "seed"))
    assert seeds.code == 0 and list((tmp_path / "seed").glob("*.txt"))


def test_cli_score_json_from_a_corpus_file(
    world_file: Path, stored: StoredWorld, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(d) + "\n" for d in oracle(stored)), encoding="utf-8")
    result = run_collie(
        capsys, "mininet", "score", str(world_file), "--corpus", str(corpus), "--json"
    )
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["precision_some"] == 1.0 and data["recall_reachable"] == 1.0


@pytest.mark.slow
def test_demo_mines_a_small_world_end_to_end(tmp_path: Path) -> None:
    """`collie demo`, as `make demo` runs it, on a 40-site world with no delay."""
    out = tmp_path / "demo"
    args = [sys.executable, "-m", "collie", "demo", "--out", str(out), "--sites", "40",
            "--delay", "0", "--json"]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    done = subprocess.run(args, capture_output=True, text=True, env=env, check=False, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    scores = json.loads(done.stdout)
    assert scores["precision_some"] >= 0.99 and scores["recall_reachable"] >= 0.8
    assert scores["robots_violations"] == 0 and scores["exported"] > 50
    assert (out / "corpus.txt").stat().st_size > 10_000 and (out / "requests.jsonl").exists()
    again = subprocess.run(args, capture_output=True, text=True, env=env, check=False, timeout=60)
    assert again.returncode == 1 and "not empty" in again.stderr


def test_cli_serve_prints_addresses_logs_requests_and_stops_on_ctrl_c(
    world_file: Path, stored: StoredWorld, tmp_path: Path
) -> None:
    log = tmp_path / "requests.jsonl"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    args = [sys.executable, "-m", "collie", "mininet", "serve", str(world_file), "--log", str(log)]
    server = subprocess.Popen(args, stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert server.stdout is not None
        proxy = server.stdout.readline().split()[1]
        search = server.stdout.readline().split()[1].split("/search")[0]
        home = next(t for t in stored.truths().values() if t.kind == "page" and t.indexed)
        page = requests.get(home.url, proxies={"http": proxy}, timeout=10)
        assert page.status_code == 200
        found = requests.get(f"{search}/search", params={"q": "umuntu", "format": "json"},
                             timeout=10, proxies={"http": ""})  # fmt: skip
        assert found.json()["results"]
    finally:
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=10) == 0
    logged = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert logged[0]["url"] == home.url
    assert logged[1]["path"].startswith("/search")


def test_cli_serve_on_a_busy_port_names_it_and_says_what_to_do(
    world_file: Path, tmp_path: Path, capsys
) -> None:
    log = tmp_path / "requests.jsonl"
    with socket.socket() as other:  # another program already listening there
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        args = ["mininet", "serve", str(world_file), "--port", str(port), "--log", str(log)]
        result = run_collie(capsys, *args)
    assert result.code == 2
    assert result.err.splitlines() == [
        f"collie: error: Cannot listen on 127.0.0.1:{port}: another program is using that port.",
        "Choose another port with --port, or --port 0 for any free one; "
        "or stop the program that holds it.",
    ]
    assert "unexpected" not in result.err and not log.exists()


def test_cli_serve_with_an_unwritable_log_says_so(world_file: Path, tmp_path: Path, capsys) -> None:
    log = tmp_path / "no-such-folder" / "requests.jsonl"
    result = run_collie(capsys, "mininet", "serve", str(world_file), "--log", str(log))
    assert result.code == 1
    assert f"Cannot write the request log {log}" in result.err


def test_a_swahili_world_leaves_out_neighbours_without_a_udhr_text(tmp_path: Path) -> None:
    world = build(BuildOptions(target="swh", sites=20, seed=2), tmp_path / "swh.db")
    assert {"swh", "swb", "zdj"} <= set(world.texts) and "luo" not in world.texts
    assert any(p.lang == "swb" for p in world.pages.values())


def test_cli_manifest_lists_the_ground_truth(
    world_file: Path, stored: StoredWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    result = run_collie(capsys, "mininet", "manifest", str(world_file), "--target-only")
    assert result.code == 0, result.err
    rows = [json.loads(line) for line in result.out.splitlines()]
    assert {r["url"] for r in rows} == {
        t.url for t in stored.truths().values() if t.shares.get("zul", 0) > 0
    }
    assert all(r["main_text"] and "reachable" in r for r in rows)


def test_mojibake_counts_only_what_the_page_lacks() -> None:
    from collie.mininet.score import has_mojibake

    assert has_mojibake("Ng\u00e2\u20ac\u2122ato", "Ng’ato")  # UTF-8 read as windows-1252
    assert has_mojibake("caf\u00c3\u00a9", "café") and has_mojibake("a\ufffdb", "ab")
    assert has_mojibake("a\x92b", "a’b")  # a C1 control: ISO-8859-1 instead of windows-1252
    assert not has_mojibake("Ng’ato café", "Ng’ato café")
    assert not has_mojibake("a\ufffdb", "a\ufffdb")  # the page has it itself


def test_world_reaches_pages_through_other_sites_and_listings(stored: StoredWorld) -> None:
    """Hidden target sites only blogrolls lead to, old posts only a sitemap or a feed
    lists; the truth says how each page is reachable."""
    truths = stored.truths()
    how = Counter(t.reach for t in target_truths(stored))
    assert how["indexed"] and how["same-site"] and how["other-site"] >= 5 and how["sitemap"] >= 2
    assert all(t.reachable == bool(t.reach) for t in truths.values())
    other_site = [t for t in target_truths(stored) if t.reach == "other-site"]
    assert not any(t.indexed for t in other_site)
    robots = stored.robots()
    sitemap_hosts = {h for h, text in robots.items() if "Sitemap: " in text}
    assert sitemap_hosts and all(
        truths[f"http://{h}/sitemap.xml"].kind == "sitemap" for h in sitemap_hosts
    )
    feeds = [t for t in truths.values() if t.kind == "feed"]
    assert feeds and all(t.url.endswith("/feed.xml") for t in feeds)
    for truth in (t for t in target_truths(stored) if t.reach == "sitemap"):
        assert "/archive/old-" in truth.url or truth.dup_group != truth.url  # or a copy


def test_world_has_listing_pages_english_legal_pages_and_mixed_articles(
    stored: StoredWorld,
) -> None:
    """Issue 30: news sites' home, section, tag and archive pages of teasers (marked as
    listing pages), English contact and privacy pages on target sites, articles with an
    English or a regional-language paragraph; the truth knows each line's language."""
    truths = stored.truths()
    listings = [t for t in truths.values() if t.listing]
    paths = Counter(urlsplit(t.url).path.split("/")[1] or "home" for t in listings)
    assert paths["home"] >= 3 and paths["tag"] >= 3 and paths["archive"] >= 1
    assert len(paths) > 5  # section pages
    for listing in listings:
        lines = listing.lines()
        assert all(lang == "zul" for lang, _ in lines[1:])  # headlines and teasers
        body = stored_body(stored, listing).decode(listing.encoding)
        assert body.count('class="teaser"') == (len(lines) - 1) // 2 >= 1
        for href in re.findall(r'<h2><a href="([^"]+)"', body):
            article = truths[urljoin(listing.url, href)]
            assert not article.listing and article.shares.get("zul", 0) >= MAINLY
        teaser = lines[2][1]
        article = truths[urljoin(listing.url, re.findall(r'<h2><a href="([^"]+)"', body)[0])]
        opening = " ".join(article.main_text.split("\n")[1:])
        assert teaser.endswith(" …") and opening.startswith(teaser[:-2])
    assert sum("read-also" in stored_body(stored, t).decode(t.encoding, "replace")
               for t in target_truths(stored) if not t.listing) >= 3  # fmt: skip
    target_sites = {t.site for t in target_truths(stored) if t.shares["zul"] == 1.0}
    legal = [t for t in truths.values() if t.url.endswith(("/contact", "/privacy"))]
    assert len(legal) >= 2 * 7 and {t.site for t in legal} & target_sites
    for page in legal:
        assert page.shares == {"eng": 1.0} and set(page.line_langs) == {"eng"}
        assert 20 <= len(page.main_text.split()) <= 70
    assert any(t.url.endswith("/about") and t.lang == "eng" and t.site in target_sites
               for t in truths.values())  # fmt: skip
    mixed = [t for t in target_truths(stored) if not t.listing and len(t.shares) > 1]
    assert {c for t in mixed for c in t.shares} == {"zul", "eng", "nso"}
    for truth in mixed:
        counts = Counter[str]()
        for lang, text in truth.lines()[1:]:
            counts[lang] += sum(c.isalpha() for c in text)
        assert {c: round(n / sum(counts.values()), 4) for c, n in counts.items()} == truth.shares


def test_score_counts_listing_pages_teasers_and_foreign_lines() -> None:
    """A tiny handmade world and export: a listing page exported is a document with no
    target text and all its words are not main text; a teaser line in an article is not
    main text; an English page has no target text; a mixed article exported without its
    English paragraph is mainly target as read; recall leaves listing pages out."""
    article = Truth("http://a.co.za/x/one-1.html", "a.co.za", 200, "page", "utf-8", "zul",
                    {"zul": 1.0}, "Indaba enkulu\nAbantu bonke bazalwa bekhululekile "
                    "futhi belingana ngesithunzi nangamalungelo.", "", True, False, True,
                    "indexed", line_langs=("zul", "zul"))  # fmt: skip
    mixed = Truth("http://a.co.za/x/two-2.html", "a.co.za", 200, "page", "utf-8", "zul",
                  {"eng": 0.55, "zul": 0.45}, "Ezemidlalo\nUmuntu unelungelo lokuphila "
                  "nelokukhululeka.\nEveryone has the right to life, liberty and security of "
                  "person in this country.", "", True, False, True, "indexed",
                  line_langs=("zul", "zul", "eng"))  # fmt: skip
    listing = Truth("http://a.co.za/", "a.co.za", 200, "page", "utf-8", "zul", {"zul": 1.0},
                    "Ikhaya\nIndaba enkulu\nAbantu bonke bazalwa bekhululekile …", "", True,
                    False, True, "indexed", listing=True, line_langs=("zul",) * 3)  # fmt: skip
    contact = Truth("http://a.co.za/contact", "a.co.za", 200, "page", "utf-8", "eng",
                    {"eng": 1.0}, "Contact us\nWrite to the newsroom at news@a.co.za.", "",
                    False, False, True, "same-site", line_langs=("eng", "eng"))  # fmt: skip
    truths = {t.url: t for t in (article, mixed, listing, contact)}

    class Tiny(WorldFile):
        def __init__(self) -> None:
            self.target, self.relatives, self.traps, self.hosts = "zul", [], [], {"a.co.za"}

        def truths(self) -> dict[str, Truth]:
            return {u: dataclasses.replace(t, dup_group=u) for u, t in truths.items()}

    docs = [
        {"url": article.url, "text": article.main_text + "\nIkhaya ekhaya lethu …"},
        {"url": mixed.url, "text": "\n".join(mixed.main_text.split("\n")[:2])},
        {"url": listing.url, "text": listing.main_text},
        {"url": contact.url, "text": contact.main_text},
    ]
    s = score(Tiny(), docs)
    assert (s.exported, s.mainly, s.some, s.no_target) == (4, 1, 1, 2)  # by the page
    assert (s.listing_pages_exported, s.no_target_text, s.no_target_text_share) == (1, 2, 0.5)
    assert (s.precision_some_text, s.precision_mainly_text) == (0.5, 0.5)
    listing_words = sum(tokens(listing.main_text).values())
    assert s.non_main_words == listing_words + 3  # the listing page, the article's teaser line
    assert s.words_exported == sum(sum(tokens(d["text"]).values()) for d in docs)
    assert (s.target_pages, s.found, s.recall_all) == (2, 2, 1.0)  # the listing is no target
    full = score(Tiny(), [{"url": mixed.url, "text": mixed.main_text}])
    assert (full.precision_some_text, full.precision_mainly_text) == (1.0, 0.0)


def test_cli_score_reads_a_dir_export_as_the_text_a_reader_sees(
    world_file: Path, stored: StoredWorld, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--corpus FOLDER`: a `collie export --format dir` folder (manifest.jsonl and a file
    per document), scored by the files' text (what `collie demo` scores)."""
    folder = tmp_path / "corpus"
    folder.mkdir()
    docs, truths, mixed = oracle(stored), stored.truths(), 0
    for doc in docs:  # pages mainly in English, exported as --segments target does
        truth = truths[doc["url"]]
        if truth.shares["zul"] < MAINLY:
            doc["text"] = "\n".join(text for lang, text in truth.lines() if lang == "zul")
            mixed += 1
    with (folder / "manifest.jsonl").open("w", encoding="utf-8") as manifest:
        for k, doc in enumerate(docs):
            (folder / f"{k:08d}.txt").write_text(doc["text"] + "\n", encoding="utf-8")
            manifest.write(json.dumps({"file": f"{k:08d}.txt", "url": doc["url"]}) + "\n")
    result = run_collie(
        capsys, "mininet", "score", str(world_file), "--corpus", str(folder), "--json"
    )
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["precision_some_text"] == data["precision_mainly_text"] == 1.0
    assert mixed and data["precision_mainly"] == round(1 - mixed / len(docs), 4)  # by page
    assert data["non_main_words"] == 0 and data["recall_reachable"] == 1.0
