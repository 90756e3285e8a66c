"""Pages for the mining parts' unit tests: queued in a Store, fetched as they would be
(an HTML answer and its exchange), with real Zulu and English text (the UDHR)."""

from __future__ import annotations

import functools
import html
from collections.abc import Sequence

from collie.crawl.links import site_of
from collie.models import Exchange, FetchResult, QueuedPage, QueueEntry
from collie.store import Store
from collie.udhr import load_declarations

WHEN = 1_700_000_000.0


@functools.cache
def paragraphs(code: str) -> list[str]:
    """The UDHR's training paragraphs in `code`."""
    return load_declarations()[code].training_paragraphs()


def queue(store: Store, urls: Sequence[str], loop: int = 1) -> list[QueuedPage]:
    """Queue `urls` (search results of `loop`); their queued pages, in order."""
    store.frontier.enqueue(QueueEntry(u, site_of(u), loop, "search", 0, 2.0) for u in urls)
    pages = {p.url: p for p in store.frontier.next_batch(10_000)}
    return [pages[u] for u in urls]


def article(code: str, first: int, count: int = 3, links: Sequence[str] = ()) -> bytes:
    """An HTML article of `count` UDHR paragraphs in `code` from the `first`-th, and links."""
    body = "".join(f"<p>{html.escape(p)}</p>" for p in paragraphs(code)[first : first + count])
    anchors = "".join(f"<li><a href='{u}'>{html.escape(u)}</a></li>" for u in links)
    return (
        "<!DOCTYPE html><html><head><title>Izindaba</title></head><body><main>"
        f"<h1>Izindaba</h1>{body}<ul>{anchors}</ul></main></body></html>"
    ).encode()


def answer(url: str, body: bytes) -> FetchResult:
    """A 200 answer with its one exchange, as the fetcher returns it."""
    content_type = "text/html; charset=utf-8"
    exchange = Exchange(
        url,
        (("User-Agent", "collie"),),
        200,
        "OK",
        "HTTP/1.1",
        (("Content-Type", content_type),),
        body,
        WHEN,
    )
    headers = {"content-type": content_type}
    return FetchResult(url, url, 200, headers, body, fetched_at=WHEN, exchanges=(exchange,))
