"""URL canonical forms, shared by search-result de-duplication and crawling.

`canonical_url` maps the many spellings of one page to one key: lower-case scheme and
host, no default port, no fragment, no empty query, `/` for an empty path, percent-escapes
of unreserved characters decoded, tracking parameters (utm_*, fbclid, gclid...) dropped.
It does not reorder query parameters (sites may depend on the order).
"""

from __future__ import annotations

import contextlib
import re
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

_TRACKING = re.compile(r"^(utm_[a-z]+|fbclid|gclid|dclid|msclkid|mc_cid|mc_eid|_ga|yclid)$", re.I)
_DEFAULT_PORTS = {"http": 80, "https": 443}
_SAFE_PATH = "/:@!$&'()*+,;=~%-._"


def _clean_path(path: str) -> str:
    # Decode escapes of unreserved characters only, then re-quote what must be quoted.
    decoded = re.sub(
        r"%([0-9A-Fa-f]{2})",
        lambda m: (
            chr(int(m.group(1), 16))
            if re.fullmatch(r"[A-Za-z0-9\-._~]", chr(int(m.group(1), 16)))
            else "%" + m.group(1).upper()
        ),
        path,
    )
    return quote(decoded, safe=_SAFE_PATH) or "/"


def canonical_url(url: str) -> str:
    """The canonical form of an http(s) URL; other URLs are returned stripped."""
    url = url.strip()
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        return url
    host = parts.hostname.rstrip(".")
    with contextlib.suppress(UnicodeError):
        host = host.encode("idna").decode("ascii") if not host.isascii() else host
    try:
        port = parts.port if parts.port and parts.port != _DEFAULT_PORTS[scheme] else None
    except ValueError:  # a port that is not a number
        return url
    netloc = f"[{host}]" if ":" in host else host
    if port:
        netloc += f":{port}"
    pairs = [
        (k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not _TRACKING.match(k)
    ]
    query = urlencode(pairs, quote_via=quote, safe="/:@!$'()*,;~") if pairs else ""
    return urlunsplit(
        (
            scheme,
            netloc,
            _clean_path(parts.path),
            query,
            "",
        )
    )
