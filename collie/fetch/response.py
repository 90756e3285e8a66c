"""Reading one answer within the fetch limits: the body up to `fetch.max_bytes`, within
`fetch.read_timeout` seconds, sniffed when its content type says nothing; and the
answer as a `FetchResult`, an HTML page or a drop with its reason (`http-404`,
`not-html:application/pdf`, `timeout`, `incomplete-body`...).
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, replace

import requests
import urllib3

from collie.http import GENERIC_TYPES, HTML_TYPES, looks_like_html
from collie.models import Exchange, FetchResult

CHUNK = 64 * 1024
SNIFF_BYTES = 1024
UNREAD_LIMIT = 64 * 1024  # an answer not taken (error page, redirect) is kept up to this
UNREAD_SECONDS = 2.0
GZIP_WBITS = 16 + zlib.MAX_WBITS
ACCEPT_ENCODING = "gzip, deflate"  # what collie can undo itself (Decoder)


def read_response(
    resp: requests.Response,
    url: str,
    final: str,
    hops: list[str],
    fetched_at: float,
    *,
    accept: frozenset[str] | None,
    max_bytes: int,
    read_timeout: float,
) -> tuple[FetchResult, Exchange]:
    """The answer as a result (an HTML page, sniffed when its type is generic, or with
    `accept`, a listing of one of those types, taken as it is), and the exchange as it
    went over the wire."""
    status = resp.status_code
    headers = {k.lower(): v for k, v in resp.headers.items()}
    base = FetchResult(url, final, status, headers, redirects=tuple(hops), fetched_at=fetched_at)
    ctype = headers.get("content-type", "").split(";")[0].strip().lower()
    if status >= 300:
        reason = f"http-{status}"
    elif accept is not None and ctype and ctype not in accept:
        reason = f"not-listing:{ctype}"
    elif accept is None and ctype not in HTML_TYPES and ctype not in GENERIC_TYPES:
        reason = f"not-html:{ctype}"
    else:
        sniff = accept is None and ctype not in HTML_TYPES
        body = read_body(resp, sniff, max_bytes, read_timeout)
        exchange = exchange_of(resp, final, fetched_at, body)
        if body.problem:
            problem = body.problem
            reason = f"not-html:{ctype or 'unknown'}" if problem == "not-html" else problem
            return replace(base, outcome="dropped", reason=reason), exchange
        return replace(base, body=body.text, truncated=body.truncated), exchange
    return replace(base, outcome="dropped", reason=reason), unread_exchange(resp, final, fetched_at)


def unread_exchange(resp: requests.Response, url: str, fetched_at: float) -> Exchange:
    """The exchange of an answer collie does not take: an error page or a redirect's note
    is kept up to UNREAD_LIMIT bytes (read within UNREAD_SECONDS); another type's body
    (a PDF, an image) is not downloaded, its record has the headers only. requests reads
    a redirect's body itself, decoded: it is kept when it was not encoded."""
    if getattr(resp, "_content_consumed", False):
        encoded = resp.headers.get("Content-Encoding", "identity").strip().lower() != "identity"
        if encoded or len(resp.content or b"") > UNREAD_LIMIT:
            return exchange_of(resp, url, fetched_at, Body(b"", b"", cut="unspecified"))
        return exchange_of(resp, url, fetched_at, Body(resp.content, resp.content))
    if resp.status_code >= 300:
        body = read_body(resp, False, UNREAD_LIMIT, UNREAD_SECONDS)
        return exchange_of(resp, url, fetched_at, body)
    return exchange_of(resp, url, fetched_at, Body(b"", b"", cut="unspecified"))


@dataclass(frozen=True)
class Body:
    """A body read within the limits: its decoded text (`text`), the bytes as received
    (`raw`, before the Content-Encoding is undone), whether the text was cut at the size
    limit, where the reading stopped early (`cut`, a WARC-Truncated value, "" when it
    read to the end) and why the body is unusable (`problem`), if it is."""

    text: bytes
    raw: bytes
    truncated: bool = False
    cut: str = ""
    problem: str | None = None


def read_body(resp: requests.Response, sniff: bool, limit: int, read_timeout: float) -> Body:
    """At most `limit` decoded bytes, within `read_timeout` seconds in all; with `sniff`,
    a body whose first bytes do not look like HTML is a "not-html" problem. The
    Content-Encoding (gzip, deflate) is undone here, piece by piece, never past `limit`
    (a small compressed body cannot expand without bound)."""
    deadline = time.monotonic() + read_timeout
    raw, text, size = list[bytes](), list[bytes](), 0
    try:
        decoder = Decoder(resp.headers.get("Content-Encoding", ""))
    except ValueError as exc:
        return Body(b"", b"", cut="unspecified", problem=f"content-encoding:{exc}")
    try:
        for chunk in _raw_chunks(resp):
            raw.append(chunk)
            piece = decoder.feed(chunk, limit - size + 1)
            text.append(piece)
            size += len(piece)
            if sniff and size >= min(SNIFF_BYTES, limit):
                if not looks_like_html(b"".join(text)[:SNIFF_BYTES]):
                    return Body(b"", b"".join(raw), cut="unspecified", problem="not-html")
                sniff = False
            if size >= limit:
                return Body(b"".join(text)[:limit], b"".join(raw), True, "length")
            if time.monotonic() > deadline:
                return Body(b"", b"".join(raw), cut="time", problem="timeout")
    except (requests.Timeout, urllib3.exceptions.TimeoutError):
        return Body(b"", b"".join(raw), cut="time", problem="timeout")
    except (requests.RequestException, urllib3.exceptions.HTTPError, OSError, zlib.error):
        return Body(b"", b"".join(raw), cut="disconnect", problem="incomplete-body")
    body = b"".join(text)
    if sniff and not looks_like_html(body[:SNIFF_BYTES]):
        return Body(b"", b"".join(raw), problem="not-html")
    return Body(body, b"".join(raw))


class Decoder:
    """Undoes a Content-Encoding (gzip, x-gzip, deflate, identity; several in the order
    listed) as the raw body arrives. Another coding raises ValueError: collie asks for
    gzip and deflate only (ACCEPT_ENCODING)."""

    def __init__(self, header: str) -> None:
        codings = [c.strip().lower() for c in header.split(",") if c.strip()]
        codings = [c for c in codings if c != "identity"]
        for coding in codings:
            if coding not in ("gzip", "x-gzip", "deflate"):
                raise ValueError(coding)
        self.steps = [_Step(coding) for coding in reversed(codings)]

    def feed(self, data: bytes, room: int) -> bytes:
        """The decoded bytes of `data`, at most `room` of them."""
        for step in self.steps:
            data = step.feed(data, room)
        return data


class _Step:
    """One coding undone: gzip (members one after another) or deflate (zlib, or the raw
    deflate some servers send instead)."""

    def __init__(self, coding: str) -> None:
        self.gzip = coding != "deflate"
        self.first = True
        self.state = zlib.decompressobj(GZIP_WBITS if self.gzip else zlib.MAX_WBITS)

    def feed(self, data: bytes, room: int) -> bytes:
        if self.first and not self.gzip and data:
            self.first = False
            try:
                return self.state.decompress(data, room)
            except zlib.error:  # raw deflate without the zlib header
                self.state = zlib.decompressobj(-zlib.MAX_WBITS)
        out = self.state.decompress(data, room)
        while self.gzip and self.state.eof and self.state.unused_data and len(out) < room:
            rest = self.state.unused_data
            self.state = zlib.decompressobj(GZIP_WBITS)
            out += self.state.decompress(rest, room - len(out))
        return out


def exchange_of(resp: requests.Response, url: str, fetched_at: float, body: Body) -> Exchange:
    """The exchange behind `resp`, its body as received (`body.raw`)."""
    version = {10: "HTTP/1.0", 11: "HTTP/1.1", 20: "HTTP/2"}.get(
        getattr(resp.raw, "version", 11), "HTTP/1.1"
    )
    raw_headers = getattr(resp.raw, "headers", None)
    pairs = list(raw_headers.items()) if raw_headers is not None else list(resp.headers.items())
    request = resp.request
    return Exchange(
        url=url,
        request_headers=tuple((str(k), str(v)) for k, v in request.headers.items()),
        status=resp.status_code,
        reason=resp.reason or "",
        http_version=version,
        headers=tuple((str(k), str(v)) for k, v in pairs),
        body=body.raw,
        fetched_at=fetched_at,
        truncated=body.cut,
        method=request.method or "GET",
    )


def _raw_chunks(resp: requests.Response) -> Iterator[bytes]:
    """The body as it arrives, not decoded: pieces of at most CHUNK bytes, without
    waiting for a piece to fill up, so a trickling body meets its deadline."""
    while chunk := resp.raw.read1(CHUNK, decode_content=False):
        yield chunk
