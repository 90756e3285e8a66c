"""A site's `/.well-known/tdmrep.json` (W3C TDMRep, final report of 2024): its rules, and
what they say of one URL.

The file is a JSON array of rules, each a `location` (a path pattern in robots.txt's
syntax: `*` any characters, `$` the end of the path; otherwise a prefix), a
`tdm-reservation` (1 reserved, 0 not reserved; 2, as an early draft wrote a reservation
with a policy, is taken for 1) and an optional `tdm-policy`. The first rule whose
location matches the URL's path (with its query) decides, as the report says; a URL no
rule matches, a file that is absent or not such an array, say nothing.

The fetcher (fetcher.py) downloads the file once per origin, right after its robots.txt
and when robots.txt allows it, paced like any request; the text travels with the
origin's robots.txt record (robots.py `RobotsRecord.tdmrep`), so it is stored and read
as robots.txt is, and each page fetched carries its verdict (`FetchResult.tdmrep`);
collie.page.rights weighs it against what the page itself states.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from urllib.parse import unquote, urlsplit

PATH = "/.well-known/tdmrep.json"
LIMIT = 64 * 1024  # bytes of the file read at most
RESERVED, NOT_RESERVED = 1, 0


@lru_cache(maxsize=256)
def parse_rules(text: str) -> tuple[tuple[re.Pattern[str], int], ...]:
    """The rules of a tdmrep.json text: (the location as a regular expression, 0 or 1),
    in the file's order; none when the text is not a JSON array of rules."""
    try:
        data = json.loads(text)
    except ValueError:
        return ()
    if not isinstance(data, list):
        return ()
    rules = []
    for rule in data:
        if not isinstance(rule, dict) or not isinstance(rule.get("location"), str):
            continue
        value = rule.get("tdm-reservation")
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value.strip())
        if value not in (0, 1, 2) or isinstance(value, bool):
            continue  # a protocol error: the rule says nothing
        rules.append((_pattern(rule["location"]), RESERVED if value else NOT_RESERVED))
    return tuple(rules)


def _pattern(location: str) -> re.Pattern[str]:
    """robots.txt's pattern syntax as a regular expression anchored at the path's start."""
    path = location.strip() or "/"
    if not path.startswith(("/", "*")):
        path = "/" + path
    anchored = path.endswith("$")
    body = "".join(".*" if ch == "*" else re.escape(ch) for ch in path.rstrip("$"))
    return re.compile(body + ("$" if anchored else ""), re.S)


def reservation(text: str | None, url: str) -> int | None:
    """What the tdmrep.json `text` says of `url`: 1 reserved, 0 not reserved, None
    nothing (no file, no rule matching)."""
    if not text:
        return None
    parts = urlsplit(url)
    path = unquote(parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    for pattern, value in parse_rules(text):
        if pattern.match(path):
            return value
    return None


def file_text(status: int | None, body: bytes) -> str:
    """The text kept for an answer to GET /.well-known/tdmrep.json: the file's, when it
    is a 2xx with rules; "" otherwise (absent, an error, not a rule array: no rule)."""
    if status is None or not 200 <= status < 300:
        return ""
    text = body[:LIMIT].decode("utf-8", errors="replace").lstrip("\ufeff")
    return text if parse_rules(text) else ""
