"""HTTP knowledge shared by the search backends and the fetcher: the clock they wait
by, which answers are worth trying again and how long to wait before doing so
(`RetryPolicy`, Retry-After honoured), and which content types and first bytes make an
HTML page.

The clock is injectable so tests can check waiting without waiting.
"""

from __future__ import annotations

import email.utils
import random
import time
from dataclasses import dataclass

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


class Clock:
    """Monotonic time and sleeping; tests substitute a fake."""

    def now(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)

    def wall(self) -> float:
        """Wall-clock time (time.time()), for what is stored and compared across runs."""
        return time.time()


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


@dataclass(frozen=True)
class RetryPolicy:
    """How often a failed request is tried again and how long to wait in between:
    `retries` more tries after the first, each after the server's Retry-After when it
    gave one, else after an exponential backoff (`backoff` seconds, doubling) with up to
    50% jitter."""

    retries: int = 3
    backoff: float = 1.0  # first backoff step in seconds

    def gives_up(self, failed: int) -> bool:
        """After `failed` failed tries (1 = the first), is there no try left?"""
        return failed > self.retries

    def backoff_wait(self, failed: int) -> float:
        """Seconds of backoff after `failed` failed tries (1 = the first), jittered."""
        return float(self.backoff * 2 ** (failed - 1) * (1 + random.random() / 2))

    def wait_before_retry(self, failed: int, retry_after: float | None = None) -> float:
        """Seconds to wait before the next try: what the server asked, else the backoff."""
        return retry_after if retry_after is not None else self.backoff_wait(failed)


# --- Content types: what an HTML page is ---

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
# Content types that say nothing: the body decides (sniffed).
GENERIC_TYPES = frozenset(
    {
        "",
        "application/octet-stream",
        "binary/octet-stream",
        "application/unknown",
        "unknown/unknown",
        "text/plain",
        "application/x-unknown-content-type",
    }
)
# WHATWG MIME sniffing: what an HTML document may start with (after whitespace).
_HTML_STARTS = tuple(
    b"<" + tag
    for tag in (
        b"!doctype html",
        b"html",
        b"head",
        b"script",
        b"iframe",
        b"h1",
        b"div",
        b"font",
        b"table",
        b"a",
        b"style",
        b"title",
        b"b",
        b"body",
        b"br",
        b"p",
        b"!--",
        b"meta",
        b"?xml",
    )
)


def looks_like_html(head: bytes) -> bool:
    """Sniff the first bytes of a body whose Content-Type says nothing useful."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        head = head.decode("utf-16", errors="ignore").encode("ascii", errors="ignore")
    text = head.removeprefix(b"\xef\xbb\xbf").lstrip().lower()
    for start in _HTML_STARTS:
        if text.startswith(start):
            rest = text[len(start) : len(start) + 1]
            if start in (b"<!--", b"<?xml") or rest in (b"", b" ", b">", b"\t", b"\n", b"\r"):
                return start != b"<?xml" or b"<html" in text
    return False
