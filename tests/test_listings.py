"""Sitemaps and feeds read into page URLs (collie/listings.py)."""

from __future__ import annotations

import gzip

from collie.crawl.listings import candidates, parse

SITEMAP = b"""<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>http://a.example/one.html</loc><lastmod>2024-01-01</lastmod></url>
  <url><loc> http://a.example/two.html?x=1&amp;y=2 </loc></url>
  <url><loc>ftp://a.example/not-web</loc></url>
</urlset>"""
INDEX = b"""<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>http://a.example/posts.xml.gz</loc></sitemap></sitemapindex>"""
RSS = b"""<rss version="2.0"><channel><title>A</title><link>http://a.example/</link>
<item><title>Old</title><link>/archive/old-1.html</link></item></channel></rss>"""
ATOM = b"""<feed xmlns="http://www.w3.org/2005/Atom"><title>A</title>
<entry><link rel="alternate" href="http://a.example/post-9.html"/></entry></feed>"""


def test_sitemap_index_gzip_and_feeds() -> None:
    assert parse(SITEMAP, "http://a.example/sitemap.xml").pages == [
        "http://a.example/one.html",
        "http://a.example/two.html?x=1&y=2",
    ]
    index = parse(INDEX, "http://a.example/sitemap.xml")
    assert index.pages == [] and index.sitemaps == ["http://a.example/posts.xml.gz"]
    assert parse(gzip.compress(SITEMAP), "http://a.example/s.xml.gz").pages[0].endswith("one.html")
    assert parse(RSS, "http://a.example/feed.xml").pages == [
        "http://a.example/",
        "http://a.example/archive/old-1.html",
    ]
    assert parse(ATOM, "http://a.example/atom.xml").pages == ["http://a.example/post-9.html"]
    assert parse(b"\x1f\x8bbroken", "http://a.example/x.gz").pages == []
    assert parse(b"<html>not a listing</html>", "http://a.example/").pages == []


def test_candidates_robots_sitemaps_else_the_default_then_feeds() -> None:
    links = ["/feed.xml", "/news/rss", "/about", "http://b.example/feed.xml", "/atom.xml"]
    assert candidates("http://a.example", [], links) == [
        "http://a.example/sitemap.xml",
        "http://a.example/feed.xml",
        "http://a.example/news/rss",
        "http://a.example/atom.xml",
    ]
    named = candidates("http://a.example", ["http://a.example/map.xml"], [])
    assert named == ["http://a.example/map.xml"]
    assert candidates("http://a.example", None, ["/feed.xml"]) == ["http://a.example/feed.xml"]


def test_listing_urls_are_told_from_pages() -> None:
    from collie.crawl.listings import is_listing

    for url in ("http://a.example/feed.xml", "http://a.example/feed/", "http://a.example/rss",
                "http://a.example/sitemap.xml", "http://a.example/sitemap-posts.xml.gz",
                "http://a.example/blog/atom.xml"):  # fmt: skip
        assert is_listing(url), url
    for url in ("http://a.example/feedback.html", "http://a.example/news/rss-story-1.html",
                "http://a.example/", "http://a.example/map.html"):  # fmt: skip
        assert not is_listing(url), url
