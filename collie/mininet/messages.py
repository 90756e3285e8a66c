"""Messages of the mini web: responses, requests, log entries, URL normal forms.

Shared by the proxy server (server.py) and its search index (search.py).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from http import HTTPStatus
from urllib.parse import parse_qs, urlsplit

DEFAULT_CHUNK = 64 * 1024
_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_RESERVED = frozenset(b":/?@!$&'()*+,;=")  # as urllib3 keeps them; [ ] are encoded
_KEEP = _UNRESERVED | _RESERVED
_HEX2 = re.compile(rb"[0-9A-Fa-f]{2}")
_HTML_TYPES = ("text/html", "application/xhtml+xml")


@dataclass
class Response:
    """A canned HTTP response; ``headers`` keep order, duplicates and exact casing.

    ``Content-Length`` is added unless ``headers`` already has one (a wrong one simulates a
    truncated body; the connection is then closed). ``delay`` sleeps before the status line;
    ``body_delay`` sleeps between ``chunk_size`` pieces of the body (a slow body).
    """

    status: int = 200
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""
    delay: float = 0.0
    body_delay: float = 0.0
    chunk_size: int = DEFAULT_CHUNK

    @classmethod
    def html(
        cls,
        body: str | bytes,
        charset: str | None = "utf-8",
        status: int = 200,
        headers: Sequence[tuple[str, str]] = (),
    ) -> Response:
        """An HTML page; str is encoded with ``charset``, bytes are sent as given (so the
        declared charset may be wrong on purpose); ``charset=None`` declares none."""
        ctype = f"text/html; charset={charset}" if charset else "text/html"
        data = body if isinstance(body, bytes) else body.encode(charset or "utf-8")
        return cls(status, [("Content-Type", ctype), *headers], data)

    @classmethod
    def text(
        cls, body: str | bytes, content_type: str = "text/plain", status: int = 200
    ) -> Response:
        """A text response (robots.txt...); ``content_type`` is sent exactly, str as UTF-8."""
        data = body if isinstance(body, bytes) else body.encode("utf-8")
        return cls(status, [("Content-Type", content_type)], data)

    @classmethod
    def binary(cls, body: bytes, content_type: str) -> Response:
        """A binary response such as a PDF or an image."""
        return cls(200, [("Content-Type", content_type)], body)

    @classmethod
    def redirect(cls, location: str, status: int = 301) -> Response:
        """A redirect to ``location`` (absolute or relative, sent as given)."""
        page = f'<html><body><a href="{html.escape(location)}">moved</a></body></html>'
        return cls.html(page, status=status, headers=[("Location", location)])

    @classmethod
    def error(cls, status: int, retry_after: int | str | None = None) -> Response:
        """An error page, e.g. ``error(503, retry_after=120)``."""
        extra = [("Retry-After", str(retry_after))] if retry_after is not None else []
        return cls.html(_status_page(status), status=status, headers=extra)

    def slowed(
        self, delay: float = 0.0, body_delay: float = 0.0, chunk_size: int | None = None
    ) -> Response:
        """A copy of this response with the given timing."""
        size = chunk_size if chunk_size is not None else self.chunk_size
        return replace(self, delay=delay, body_delay=body_delay, chunk_size=size)

    def header(self, name: str) -> str | None:
        """The first value of header ``name`` (case-insensitive), or None."""
        return next((v for k, v in self.headers if k.lower() == name.lower()), None)


@dataclass(frozen=True)
class Request:
    """A request as the world sees it; ``headers`` has lower-cased names (last one wins)."""

    method: str
    url: str
    host: str
    path: str
    headers: dict[str, str]
    client: str
    time: float
    monotonic: float

    @property
    def query(self) -> dict[str, list[str]]:
        """The parsed query string."""
        return parse_qs(urlsplit(self.path).query)


Behaviour = Response | Callable[[Request], Response]


@dataclass(frozen=True)
class LogEntry:
    """One request as logged; ``time`` is arrival (``time.time()``).

    ``bytes_sent`` is the body length of the answer (0 for HEAD); a client that hangs up
    early may have received less. Entries are appended before the answer is written.
    """

    time: float
    monotonic: float
    client: str
    method: str
    url: str
    host: str
    path: str
    status: int
    headers: dict[str, str]
    bytes_sent: int

    @classmethod
    def of(cls, request: Request, status: int, bytes_sent: int) -> LogEntry:
        """The log entry of ``request`` answered with ``status``."""
        r = request
        return cls(
            r.time,
            r.monotonic,
            r.client,
            r.method,
            r.url,
            r.host,
            r.path,
            status,
            r.headers,
            bytes_sent,
        )


def normalise_host(netloc: str) -> str:
    """``User@Host.example:80`` -> ``host.example``: lower-case, no default port, IDNA."""
    host = netloc.rpartition("@")[2].strip().lower().rstrip(".")
    if host.endswith(":80"):
        host = host[:-3]
    if not host.isascii():
        name, sep, port = host.partition(":")
        host = name.encode("idna").decode("ascii") + sep + port
    return host


def normalise_path(path: str) -> str:
    """RFC 3986 normal form of a path with query: what requests sends for the same text.

    Unreserved escapes are decoded, other escapes upper-cased, other bytes (non-ASCII,
    spaces, a lone ``%``) percent-encoded as UTF-8, dot segments removed, fragment dropped.
    """
    raw = path.partition("#")[0].encode("utf-8")
    out, i = list[str](), 0
    while i < len(raw):
        if raw[i] == 0x25 and _HEX2.fullmatch(raw[i + 1 : i + 3]):
            byte, i = int(raw[i + 1 : i + 3], 16), i + 3
            out.append(chr(byte) if byte in _UNRESERVED else f"%{byte:02X}")
        else:
            byte, i = raw[i], i + 1
            out.append(chr(byte) if byte in _KEEP else f"%{byte:02X}")
    route, sep, query = "".join(out).partition("?")
    return _remove_dot_segments(route or "/") + sep + query


def _remove_dot_segments(route: str) -> str:
    segments, kept = route.split("/"), list[str]()
    for segment in segments:
        if segment == ".." and len(kept) > 1:
            kept.pop()
        elif segment != ".." and segment != ".":
            kept.append(segment)
    return "/".join(kept) + ("/" if segments[-1] in (".", "..") else "")


def split_url(url: str) -> tuple[str, str]:
    """``http://Host:80/a?b`` -> (``host``, ``/a?b``); only http URLs exist in the world."""
    parts = urlsplit(url)
    if parts.scheme.lower() != "http" or not parts.netloc:
        raise ValueError(f"not an absolute http:// URL (the mini web is http-only): {url!r}")
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    return normalise_host(parts.netloc), normalise_path(path)


def _status_page(status: int) -> str:
    try:
        reason = HTTPStatus(status).phrase
    except ValueError:
        reason = "Error"
    title = f"{status} {reason}"
    return f"<html><head><title>{title}</title></head><body><h1>{reason}</h1></body></html>"
