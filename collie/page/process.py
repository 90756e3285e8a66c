"""One fetched response -> one `Page`: decode, extract, decide. Pure and fast.

`process` never touches the network or the database and never raises for bad input: a
malformed, binary or undecodable page is a dropped `Page` with its reason. Reasons:
the fetcher's own (robots, http-404, ...), `not-html:<type>`, `binary`,
`encoding-uncertain`, `empty-text`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from collie.http import GENERIC_TYPES, HTML_TYPES, looks_like_html
from collie.models import FetchResult
from collie.page import boilerplate, extract, preclean
from collie.page.encoding import decode_html
from collie.page.extract import extract_html
from collie.page.rights import Rights, detect_rights

_BINARY_MAGIC = (b"%PDF", b"\x89PNG", b"GIF8", b"\xff\xd8\xff", b"PK\x03\x04", b"\x1f\x8b")


@dataclass(frozen=True)
class Page:
    """A processed page: kept with its text, or dropped with a reason."""

    url: str
    final_url: str
    outcome: str  # "kept" or "dropped"
    reason: str | None = None
    text: str = ""
    paragraphs: list[str] = field(default_factory=list)
    title: str = ""
    lang: str = ""  # the <html lang> attribute as written
    links: list[tuple[str, str]] = field(default_factory=list)  # (absolute URL, anchor)
    encoding: str | None = None
    encoding_method: str | None = None  # bom, utf-8, http, meta, chardet, failed
    encoding_confidence: float = 0.0
    encoding_declared: str | None = None  # e.g. "http:iso-8859-1, meta:utf-8"
    dropped: list[tuple[str, str]] = field(default_factory=list)  # boilerplate (line, rule)
    markdown: str = ""
    rights: Rights = field(default_factory=Rights)  # its licence and TDM reservation
    cards: bool = False  # a page of cards by its links, block by block (maintext.link_share)


def clear_caches() -> None:
    """Forget the cached line decisions and link resolutions (they are pure functions;
    benchmarks clear them so that no page is ever processed warm twice)."""
    boilerplate.parse_line.cache_clear()
    boilerplate.match_rule.cache_clear()
    extract.resolve_link.cache_clear()
    preclean._nav_attribute.cache_clear()


def media_type(headers: dict[str, str]) -> str:
    """The Content-Type's media type, lower-case, without parameters ("" when absent)."""
    value = headers.get("content-type") or headers.get("Content-Type") or ""
    return value.split(";", 1)[0].strip().lower()


def check_html(headers: dict[str, str], body: bytes) -> str | None:
    """None when the response is HTML; otherwise the drop reason. The same rule as the
    fetcher's (which already dropped what it fetched that is not HTML): for a file or a
    cached body."""
    kind = media_type(headers)
    if kind in HTML_TYPES:
        return None
    if kind in GENERIC_TYPES:
        if body.startswith(_BINARY_MAGIC):
            return "binary"
        if looks_like_html(body[:1024]):
            return None
    return f"not-html:{kind or 'unknown'}"


def process(
    url: str,
    response: FetchResult,
    *,
    min_confidence: float = 0.7,
    boilerplate: str = "rules",
    engine: str = "trafilatura",
    code: str = "apart",
) -> Page:
    """Decode and extract one response; settings are encoding.min_confidence,
    extract.boilerplate, extract.main and extract.code."""
    final_url = response.final_url or url
    if response.outcome == "dropped":
        return Page(url, final_url, "dropped", response.reason or "dropped")
    reason = check_html(response.headers, response.body)
    if reason is not None:
        return Page(url, final_url, "dropped", reason)
    content_type = response.headers.get("content-type") or response.headers.get("Content-Type")
    decoded = decode_html(response.body, content_type, min_confidence, normalise=False)
    page = Page(
        url,
        final_url,
        "dropped",
        decoded.reason or "encoding-uncertain",
        encoding=decoded.encoding,
        encoding_method=decoded.method,
        encoding_confidence=decoded.confidence,
        encoding_declared=decoded.declared,
    )
    if decoded.text is None:
        return page
    extracted = extract_html(decoded.text, final_url, boilerplate, engine, code)
    return replace(
        page,
        outcome="kept" if extracted.text else "dropped",
        reason=None if extracted.text else "empty-text",
        text=extracted.text,
        paragraphs=extracted.paragraphs,
        title=extracted.title,
        lang=extracted.lang,
        links=extracted.links,
        dropped=extracted.dropped,
        markdown=extracted.markdown,
        cards=extracted.cards,
        rights=detect_rights(decoded.text, response.headers),
    )
