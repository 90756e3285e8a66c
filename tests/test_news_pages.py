"""Issue 30 end to end: a news site's listing pages are crawled but not documents, its
teasers are not paragraphs of the corpus, and its short English contact page is not the
target's because the site's pages link to it; with the three settings off, collie
before issue 30."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from collie.mininet.server import MiniWebServer, World
from collie.udhr import load_declarations

from .clihelp import run_collie
from .zuluworld import NewsSite, add_news_site, init_zulu

OFF = ["extract.listings=false", "extract.teasers=false", "langid.site_own_text=false"]


def _mine(tmp_path: Path, capsys, web: MiniWebServer, news: NewsSite, sets: list[str]):
    tmp_path.mkdir(parents=True, exist_ok=True)
    docs = tmp_path / "zulu.txt"
    docs.write_text("\n\n".join(load_declarations()["zul"].training_paragraphs()), "utf-8")
    root = tmp_path / "ws"
    init_zulu(capsys, root, docs, web)
    flags = [arg for s in sets for arg in ("--set", s)]
    run = run_collie(capsys, "-w", str(root), *flags, "run", "--loops", "2")
    assert run.code == 0, run.err
    conn = sqlite3.connect(root / "collie.db")
    rows = conn.execute("SELECT url, status, reason, lang FROM pages").fetchall()
    conn.close()
    pages = {url: (status, reason, lang) for url, status, reason, lang in rows}
    export = run_collie(capsys, "-w", str(root), *flags, "export", "-", "--format", "jsonl")
    assert export.code == 0, export.err
    records = {r["url"]: r for r in map(json.loads, export.out.splitlines())}
    return root, pages, records


def test_listings_teasers_and_a_contact_page(
    tmp_path: Path, capsys, web: MiniWebServer, world: World
) -> None:
    news = add_news_site(world)
    root, pages, records = _mine(tmp_path, capsys, web, news, [])
    for listing in (news.home, news.section):
        assert pages[listing][:2] == ("dropped", "listing"), pages[listing]
        assert pages[listing][2] == "zul"  # identified, and crawled out of
        assert listing not in records
    assert set(news.articles) <= set(records)  # reached only through the listings
    for url in news.articles:
        assert pages[url][0] == "kept"
    lines = {line for r in records.values() for line in r["text"].splitlines()}
    assert not set(news.teasers.values()) & lines  # no cut copy is left in the corpus
    related = records[news.related]["text"]
    assert news.teasers[news.articles[1]] not in related  # the related box's teaser
    assert len(related.splitlines()) == 5  # the article's own title and paragraphs stay
    assert pages[news.contact][:2] == ("dropped", "too-short:not zul by its own text")
    assert news.contact not in records
    status = run_collie(capsys, "-w", str(root), "status", "--json")
    assert status.code == 0 and "listing" in status.out


def test_with_the_settings_off_listings_and_teasers_are_documents(
    tmp_path: Path, capsys, web: MiniWebServer, world: World
) -> None:
    news = add_news_site(world)
    _, pages, records = _mine(tmp_path, capsys, web, news, OFF)
    assert news.home in records and pages[news.home][0] == "kept"
    assert set(news.articles) <= set(records)
    related = records[news.related]["text"]
    assert news.teasers[news.articles[1]] in related  # the teaser paragraph stays
    assert pages[news.contact][0] == "kept"  # the site's vote made it Zulu


def test_reprocess_applies_the_rules_to_a_workspace_mined_without_them(
    tmp_path: Path, capsys, web: MiniWebServer, world: World
) -> None:
    news = add_news_site(world)
    _, fresh, fresh_export = _mine(tmp_path / "fresh", capsys, web, news, [])
    old_root, old, _ = _mine(tmp_path / "old", capsys, web, news, OFF)
    assert old != fresh  # the rules changed what the run recorded
    web.clear_log()
    done = run_collie(capsys, "-w", str(old_root), "reprocess")
    assert done.code == 0, done.err
    assert web.log == []  # from cache/, no request
    conn = sqlite3.connect(old_root / "collie.db")
    rows = conn.execute("SELECT url, status, reason, lang FROM pages").fetchall()
    conn.close()
    assert {url: (status, reason, lang) for url, status, reason, lang in rows} == fresh
    export = run_collie(capsys, "-w", str(old_root), "export", "-", "--format", "jsonl")
    texts = {r["url"]: r["text"] for r in map(json.loads, export.out.splitlines())}
    assert texts == {url: r["text"] for url, r in fresh_export.items()}
