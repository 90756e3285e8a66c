"""Sitemaps and feeds: the URLs a site lists itself, which its link graph may not reach
(old posts, pages nothing links to any more).

When a site yields a target document, the loop reads what the site lists: the
`Sitemap:` lines of its robots.txt, else `/sitemap.xml`, and the RSS/Atom feeds its
target pages link to (`candidates`), and, when a web archive's CDX index API is set
(crawl.cdx_api), the HTML pages the archive holds for the site (`cdx_query`). `parse`
takes a fetched listing (XML, gzip or not, or a CDX answer) to its page URLs and, for a
sitemap index, the sitemaps it names. The parse is a
tolerant scan for `<loc>`, RSS `<link>` and Atom `<link href>` (real sitemaps are often
not well-formed XML); sizes are capped.
"""

from __future__ import annotations

import gzip
import html
import io
import json
import re
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlencode, urljoin, urlsplit

MAX_BYTES = 10 * 1024 * 1024  # a listing's body, unpacked (the sitemap protocol's 50 MB is rare)
MAX_URLS = 5_000  # URLs taken from one listing
MAX_PER_SITE = 8  # listings read per site (sitemaps of an index included)
LISTING_TYPES = frozenset(
    {
        "application/xml",
        "text/xml",
        "application/rss+xml",
        "application/atom+xml",
        "application/x-gzip",
        "application/gzip",
        "application/octet-stream",
        "text/plain",
        "application/json",  # a CDX index API's answer (output=json: a JSON object a line)
        "application/x-ndjson",
        "text/x-ndjson",
    }
)

_LOC = re.compile(r"<loc>\s*([^<\s]+)\s*</loc>", re.I)
_RSS_LINK = re.compile(r"<link>\s*([^<\s]+)\s*</link>", re.I)
_ATOM_LINK = re.compile(r"<link\b[^>]*\bhref=[\"']([^\"']+)[\"']", re.I)
_SITEMAP_PATH = re.compile(r"(^|/)sitemap[\w-]*\.xml(\.gz)?$", re.I)
_FEED_PATH = re.compile(r"(^|/)(feed|rss|atom)(/|\.xml|\.rss|\.atom)?$|\.(rss|atom)$", re.I)


@dataclass(frozen=True)
class Listing:
    pages: list[str]  # absolute URLs of pages
    sitemaps: list[str]  # sitemaps a sitemap index names


def candidates(
    origin: str, robots_sitemaps: Iterable[str] | None, links: Iterable[str]
) -> list[str]:
    """What to read for a site: its robots.txt sitemaps, else /sitemap.xml (None: the
    site's sitemaps were asked for already), and the feeds among a page's links (same
    origin), in that order, without repeats."""
    found = [] if robots_sitemaps is None else list(robots_sitemaps) or [f"{origin}/sitemap.xml"]
    for link in links:
        url = urljoin(origin + "/", link)
        path = urlsplit(url).path.rstrip("/")
        if url.startswith(origin + "/") and _FEED_PATH.search(path):
            found.append(url)
    return list(dict.fromkeys(found))


def is_listing(url: str) -> bool:
    """Does the URL look like a feed or a sitemap (read as a listing, not as a page)?"""
    path = urlsplit(url).path.rstrip("/")
    return bool(_FEED_PATH.search(path)) or bool(_SITEMAP_PATH.search(path))


def unpack(body: bytes) -> bytes:
    """A listing's bytes, gunzipped when gzip (at most MAX_BYTES)."""
    if body[:2] != b"\x1f\x8b":
        return body[:MAX_BYTES]
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(body)) as stream:
            return stream.read(MAX_BYTES)
    except (OSError, EOFError, zlib.error):
        return b""


def cdx_query(api: str, site: str, limit: int) -> str:
    """The CDX index API request for the captures of a site and its subdomains (the
    API Common Crawl's index server and pywb answer: one JSON object a line)."""
    query = urlencode(
        {
            "url": site,
            "matchType": "domain",
            "output": "json",
            "fl": "url,mime,status",
            "filter": "status:200",
            "limit": str(limit),
        }
    )
    return f"{api}{'&' if '?' in api else '?'}{query}"


def parse_cdx(text: str) -> list[str]:
    """The HTML pages of a CDX API answer (output=json), each URL once."""
    urls = []
    for line in text.splitlines():
        try:
            capture = json.loads(line)
        except ValueError:
            continue
        if not isinstance(capture, dict) or not isinstance(capture.get("url"), str):
            continue
        mime = str(capture.get("mime", "text/html")).lower()
        if str(capture.get("status", "200")) == "200" and ("html" in mime or mime == "unk"):
            urls.append(capture["url"])
    return urls


def parse(body: bytes, base: str) -> Listing:
    """The page URLs of a sitemap, sitemap index, RSS or Atom feed, or a CDX index API's
    answer (see the module docstring); `base` resolves relative links."""
    text = unpack(body).decode("utf-8", errors="replace")
    if text.lstrip().startswith("{"):
        return Listing(list(dict.fromkeys(parse_cdx(text)))[:MAX_URLS], [])
    is_index = "<sitemapindex" in text[:2000].lower()
    if "<urlset" in text[:2000].lower() or is_index:
        urls = _LOC.findall(text)
    else:
        urls = _RSS_LINK.findall(text) + _ATOM_LINK.findall(text)
    absolute = []
    for raw in urls[:MAX_URLS]:
        url = urljoin(base, html.unescape(raw.strip()))
        if urlsplit(url).scheme in ("http", "https"):
            absolute.append(url)
    absolute = list(dict.fromkeys(absolute))
    return Listing([] if is_index else absolute, absolute if is_index else [])
