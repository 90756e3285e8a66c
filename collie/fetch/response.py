"""Reading one answer within the fetch limits: the body up to `fetch.max_bytes`, within
`fetch.read_timeout` seconds, sniffed when its content type says nothing; and the
answer as a `FetchResult`, an HTML page or a drop with its reason (`http-404`,
`not-html:application/pdf`, `timeout`, `incomplete-body`...).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace

import requests
import urllib3

from collie.http import GENERIC_TYPES, HTML_TYPES, looks_like_html
from collie.models import FetchResult

CHUNK = 64 * 1024
SNIFF_BYTES = 1024


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
) -> FetchResult:
    """The answer as a result: an HTML page (sniffed when its type is generic), or
    with `accept`, a listing of one of those types, taken as it is."""
    status = resp.status_code
    headers = {k.lower(): v for k, v in resp.headers.items()}
    base = FetchResult(url, final, status, headers, redirects=tuple(hops), fetched_at=fetched_at)
    if status >= 300:
        return replace(base, outcome="dropped", reason=f"http-{status}")
    ctype = headers.get("content-type", "").split(";")[0].strip().lower()
    if accept is not None and ctype and ctype not in accept:
        return replace(base, outcome="dropped", reason=f"not-listing:{ctype}")
    if accept is None and ctype not in HTML_TYPES and ctype not in GENERIC_TYPES:
        return replace(base, outcome="dropped", reason=f"not-html:{ctype}")
    sniff = accept is None and ctype not in HTML_TYPES
    body, truncated, problem = read_body(resp, sniff, max_bytes, read_timeout)
    if problem:
        reason = f"not-html:{ctype or 'unknown'}" if problem == "not-html" else problem
        return replace(base, outcome="dropped", reason=reason)
    return replace(base, body=body, truncated=truncated)


def read_body(
    resp: requests.Response, sniff: bool, limit: int, read_timeout: float
) -> tuple[bytes, bool, str | None]:
    """(body, truncated, problem): at most `limit` bytes, within `read_timeout` seconds in
    all; with `sniff`, a body whose first bytes do not look like HTML is a "not-html"
    problem."""
    deadline = time.monotonic() + read_timeout
    chunks, size = list[bytes](), 0
    try:
        for chunk in _body_chunks(resp):
            chunks.append(chunk)
            size += len(chunk)
            if sniff and size >= min(SNIFF_BYTES, limit):
                if not looks_like_html(b"".join(chunks)[:SNIFF_BYTES]):
                    return b"", False, "not-html"
                sniff = False
            if size >= limit:
                return b"".join(chunks)[:limit], True, None
            if time.monotonic() > deadline:
                return b"", False, "timeout"
    except (requests.Timeout, urllib3.exceptions.TimeoutError):
        return b"", False, "timeout"
    except (requests.RequestException, urllib3.exceptions.HTTPError, OSError):
        return b"", False, "incomplete-body"
    body = b"".join(chunks)
    if sniff and not looks_like_html(body[:SNIFF_BYTES]):
        return b"", False, "not-html"
    return body, False, None


def _body_chunks(resp: requests.Response) -> Iterator[bytes]:
    """The body as it arrives (decoded): pieces of at most CHUNK bytes, without waiting
    for a piece to fill up, so a trickling body meets its deadline."""
    while chunk := resp.raw.read1(CHUNK, decode_content=True):
        yield chunk
