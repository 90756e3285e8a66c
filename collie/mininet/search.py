"""The mini web's search engine: a SearXNG-compatible answer over the world's pages.

Ranking: distinct query terms present, then term frequency normalised by length, then URL.
Only fixed 200 responses with an HTML type are indexed. A later issue replaces this with
an SQLite FTS5 index ranked by BM25, built when the world is built.
"""

from __future__ import annotations

import html
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any
from urllib.parse import urlencode, urlparse

from collie.mininet.messages import _HTML_TYPES, Response

RESULTS_PER_PAGE = 10
SNIPPET_CHARS = 200


@dataclass(frozen=True)
class SearchHit:
    """One search result."""

    url: str
    title: str
    content: str
    score: float


@dataclass(frozen=True)
class SearchPage:
    """One page of search results and the total number of matching documents."""

    total: int
    hits: list[SearchHit]


def tokenise(text: str) -> list[str]:
    """Lower-case Unicode words, digits-only tokens dropped."""
    return [t for t in re.findall(r"\w+", text.lower()) if not t.isdigit()]


class _TextExtractor(HTMLParser):
    """Visible text and <title> of an HTML page."""

    _SKIP = frozenset({"script", "style", "noscript", "template"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title = ""
        self._stack: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._SKIP or tag == "title":
            self._stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self._stack:
            del self._stack[self._stack.index(tag) :]

    def handle_data(self, data: str) -> None:
        if not self._stack:
            self.parts.append(data)
        elif self._stack[-1] == "title":
            self.title += data


def extract_text(page: str) -> tuple[str, str]:
    """(title, visible text) of an HTML page, whitespace collapsed."""
    parser = _TextExtractor()
    parser.feed(page)
    parser.close()
    return " ".join(parser.title.split()), " ".join(" ".join(parser.parts).split())


def _decode_body(resp: Response) -> str:
    """UTF-8 when valid, else the declared charset, else cp1252 (what a search engine sniffs)."""
    ctype = resp.header("Content-Type") or ""
    declared = re.search(r"charset=([\w.:-]+)", ctype, re.I)
    for charset in ("utf-8", declared.group(1) if declared else "cp1252"):
        try:
            return resp.body.decode(charset)
        except (UnicodeDecodeError, LookupError):
            continue
    return resp.body.decode("latin-1")


class _Index:
    """In-memory keyword index over the world's 200 HTML pages.

    Ranking: distinct query terms present (desc), then the sum of term frequencies divided
    by document length (desc), then URL. A later issue replaces this with SQLite FTS5/BM25.
    """

    def __init__(self, version: int, pages: Iterable[tuple[str, Response]]):
        self.version = version
        self.docs: dict[str, tuple[str, str, int]] = {}  # url -> (title, text, length)
        self.postings: dict[str, dict[str, int]] = {}  # term -> {url: frequency}
        for url, resp in pages:
            ctype = (resp.header("Content-Type") or "").lower()
            if resp.status == 200 and ctype.startswith(_HTML_TYPES):
                self._add(url, resp)

    def _add(self, url: str, resp: Response) -> None:
        title, text = extract_text(_decode_body(resp))
        tokens = tokenise(f"{title} {text}")
        self.docs[url] = (title or url, text, max(len(tokens), 1))
        for term, count in Counter(tokens).items():
            self.postings.setdefault(term, {})[url] = count

    def search(self, query: str) -> list[SearchHit]:
        """Every document with at least one query term, best first."""
        terms = list(dict.fromkeys(tokenise(query)))
        distinct: Counter[str] = Counter()
        weight: dict[str, float] = defaultdict(float)
        for term in terms:
            for url, count in self.postings.get(term, {}).items():
                distinct[url] += 1
                weight[url] += count / self.docs[url][2]
        ranked = sorted(distinct, key=lambda u: (-distinct[u], -weight[u], u))
        return [self._hit(url, terms, distinct[url] + weight[url]) for url in ranked]

    def _hit(self, url: str, terms: list[str], score: float) -> SearchHit:
        title, text, _ = self.docs[url]
        return SearchHit(url, title, snippet(text, terms), round(score, 6))


def snippet(text: str, terms: Sequence[str], width: int = SNIPPET_CHARS) -> str:
    """About ``width`` characters of ``text`` around the first occurrence of a term."""
    found = [m.start() for t in terms if (m := re.search(rf"\b{re.escape(t)}\b", text, re.I))]
    start = max(min(found, default=0) - width // 4, 0)
    return ("…" if start else "") + text[start : start + width].strip()


def searx_json(
    query: str, page: SearchPage, pageno: int, unresponsive: list[list[str]] | None = None
) -> dict[str, Any]:
    """A SearXNG ``format=json`` answer for one page of results, in the shape current
    SearXNG sends (no ``number_of_results``; engines that failed, with their reasons, in
    ``unresponsive_engines``)."""
    first = (pageno - 1) * RESULTS_PER_PAGE + 1
    results = [
        {
            "url": hit.url,
            "title": hit.title,
            "content": hit.content,
            "engine": "mininet",
            "engines": ["mininet"],
            "template": "default.html",
            "category": "general",
            "parsed_url": list(urlparse(hit.url)),
            "positions": [first + i],
            "score": hit.score,
            "publishedDate": None,
        }
        for i, hit in enumerate(page.hits)
    ]
    return {
        "query": query,
        "results": results,
        "answers": [],
        "corrections": [],
        "infoboxes": [],
        "suggestions": [],
        "unresponsive_engines": unresponsive or [],
    }


def searx_html(query: str, page: SearchPage, pageno: int) -> str:
    """A minimal HTML results page (SearXNG without ``format=json``)."""
    items = "".join(
        f'<li><a href="{html.escape(h.url)}">{html.escape(h.title)}</a>'
        f"<p>{html.escape(h.content)}</p></li>"
        for h in page.hits
    )
    more = urlencode({"q": query, "pageno": pageno + 1})
    nxt = f'<a href="/search?{more}">next</a>' if pageno * RESULTS_PER_PAGE < page.total else ""
    return (
        f"<html><head><title>{html.escape(query)} - mininet search</title></head><body>"
        f"<p>{page.total} results</p><ol>{items}</ol>{nxt}</body></html>"
    )


# -- the paid APIs' shapes, over the same index (server.py routes them by path and key) --


def brave_json(page: SearchPage) -> dict[str, Any]:
    """A Brave Web Search API answer (GET /res/v1/web/search)."""
    items = [{"url": h.url, "title": h.title, "description": h.content} for h in page.hits]
    return {"type": "search", "web": {"type": "search", "results": items}}


def google_json(page: SearchPage) -> dict[str, Any]:
    """A Google Custom Search JSON API answer (GET /customsearch/v1)."""
    items = [{"link": h.url, "title": h.title, "snippet": h.content} for h in page.hits]
    return {"kind": "customsearch#search", "items": items} if items else {"kind": "x"}


def mojeek_json(query: str, page: SearchPage, start: int) -> dict[str, Any]:
    """A Mojeek Search API answer (GET /search?api_key=...&fmt=json)."""
    results = [{"url": h.url, "title": h.title, "desc": h.content} for h in page.hits]
    head = {"query": query, "start": start, "return": len(results), "results": page.total}
    return {"response": {"status": "OK", "head": head, "results": results}}


# What the APIs send when they block a client: a CAPTCHA page (Google's "unusual traffic"
# page, as a scraped engine or a challenging proxy sends it) or HTTP 429.
CAPTCHA_PAGE = (
    "<html><head><title>Sorry...</title></head><body><p>Our systems have detected unusual "
    "traffic from your computer network. Please solve the CAPTCHA below.</p>"
    '<div class="g-recaptcha"></div></body></html>'
)
