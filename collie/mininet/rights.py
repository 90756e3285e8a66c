"""Rights planted in a world (issue 57): some pages state a Creative Commons licence or
reserve text and data mining, in each of the ways collie.page.rights reads, and some carry
a decoy that states neither (a `tdm-reservation: 0` header, a plain robots meta, a
description that names creativecommons.org). The truth goes into the world file's meta
(`rights`: {url: [licence, tdm]}), so a benchmark measures detection: every planted
signal found, none invented.

Everything is planted in the <head> and the headers, so no page's text, links or
language changes: the worlds' other figures stay as they were.

Some target sites also serve a `/.well-known/tdmrep.json` (W3C TDMRep; `plant_tdmrep`):
one reserving a section of the site and saying 0 for the rest, the next reserving the
whole site. Its truth: every HTML page it reserves is reserved (`tdmrep-file`) unless the
page states its own choice (a `tdm-reservation` header or meta, 0 or 1) or reserves by
another signal already, which then stands. No page links to the file: only a crawler
that asks for it sees it.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Mapping, MutableMapping
from urllib.parse import urlsplit

from collie.mininet.records import SiteTruth
from collie.mininet.sites import WorldPage

EVERY = 5  # about one page in EVERY gets a signal or a decoy
CC = "https://creativecommons.org"

# (what goes into <head>, headers added, the truth: (licence, tdm reservation))
SIGNALS: tuple[tuple[str, tuple[tuple[str, str], ...], tuple[str | None, str | None]], ...] = (
    (f'<link rel="license" href="{CC}/licenses/by-sa/4.0/">', (), ("CC-BY-SA-4.0", None)),
    (
        f'<meta name="dcterms.license" content="{CC}/licenses/by/4.0/">',
        (),
        ("CC-BY-4.0", None),
    ),
    ('<meta name="dc.rights" content="CC BY-NC 4.0">', (), ("CC-BY-NC-4.0", None)),
    (
        f"<link rel='license' href='{CC}/publicdomain/zero/1.0/'>",
        (),
        ("CC0-1.0", None),
    ),
    (
        '<link rel="license" href="http://creativecommons.org/licenses/by-nc-nd/3.0/de/">',
        (),
        ("CC-BY-NC-ND-3.0-DE", None),
    ),
    ("", (("tdm-reservation", "1"),), (None, "tdmrep-header")),
    ('<meta name="tdm-reservation" content="1">', (), (None, "tdmrep-meta")),
    ('<meta name="robots" content="noai, noimageai">', (), (None, "robots-noai")),
    ("", (("X-Robots-Tag", "noai"),), (None, "x-robots-noai")),
    (
        f'<link rel="license" href="{CC}/licenses/by-sa/4.0/">',
        (("tdm-reservation", "1"), ("tdm-policy", "https://example.org/policy.json")),
        ("CC-BY-SA-4.0", "tdmrep-header"),
    ),
    # decoys: they state neither a licence nor a reservation
    ("", (("tdm-reservation", "0"),), (None, None)),
    ('<meta name="robots" content="index, follow">', (), (None, None)),
    (
        '<meta name="description" content="See creativecommons.org/licenses/by/4.0 for '
        'what CC BY means">',
        (),
        (None, None),
    ),
    ('<meta name="tdm-reservation" content="0">', (), (None, None)),
    (f'<link rel="alternate" href="{CC}/licenses/by/2.0/">', (), (None, None)),
)


def _pick(url: str) -> int | None:
    """The signal a page gets (an index into SIGNALS), or None; stable for a URL."""
    number = int.from_bytes(hashlib.sha1(url.encode()).digest()[:4], "big")
    if number % EVERY:
        return None
    return (number // EVERY) % len(SIGNALS)


def plant_rights(pages: Mapping[str, WorldPage]) -> dict[str, tuple[str | None, str | None]]:
    """Plant the signals in the world's HTML pages (changed in place); return the truth of
    every page that got one: {url: (licence, tdm)} (a decoy's: (None, None))."""
    truth: dict[str, tuple[str | None, str | None]] = {}
    for url, page in sorted(pages.items()):
        if page.kind != "page" or page.status != 200 or b"</head>" not in page.body:
            continue
        pick = _pick(url)
        if pick is None:
            continue
        head, headers, expected = SIGNALS[pick]
        if head:
            page.body = page.body.replace(b"</head>", head.encode("ascii") + b"\n</head>", 1)
        page.headers = [*page.headers, *headers]
        truth[url] = expected
    return truth


TDMREP_EVERY = 6  # about one target site in TDMREP_EVERY serves a tdmrep.json
TDMREP_PATH = "/.well-known/tdmrep.json"
POLICY = "https://example.org/tdm-policy.json"


def _stated(url: str) -> bool:
    """Does the page's planted signal state its own TDM choice (header or meta, 0 or 1)?"""
    pick = _pick(url)
    if pick is None:
        return False
    head, headers, _ = SIGNALS[pick]
    return 'name="tdm-reservation"' in head or any(k == "tdm-reservation" for k, _ in headers)


def plant_tdmrep(
    pages: MutableMapping[str, WorldPage],
    sites: Mapping[str, SiteTruth],
    robots: Mapping[str, str],
    truth: dict[str, tuple[str | None, str | None]],
) -> dict[str, str]:
    """Serve a tdmrep.json on some target sites (module docstring; at least one, never
    on a site whose robots.txt fails or asks for a crawl delay) and add what it reserves
    to `truth` (changed in place); returns {host: the file's text}."""
    eligible = [
        host
        for host, site in sorted(sites.items())
        if site.kind == "target"
        and robots.get(host, "-") != ""
        and "delay" not in robots.get(host, "")
    ]
    chosen = [
        h for h in eligible if int(hashlib.sha1(h.encode()).hexdigest(), 16) % TDMREP_EVERY == 0
    ]
    chosen = chosen or eligible[:1]
    files = {}
    for number, host in enumerate(chosen):
        html = sorted(
            url
            for url, page in pages.items()
            if urlsplit(url).netloc == host and page.kind == "page" and page.status == 200
        )
        sections = Counter(
            urlsplit(u).path.split("/")[1] for u in html if urlsplit(u).path.count("/") > 1
        )
        section = sections.most_common(1)[0][0] if sections and number % 2 == 0 else ""
        if section:
            rules = [
                {"location": f"/{section}/", "tdm-reservation": 1, "tdm-policy": POLICY},
                {"location": "/", "tdm-reservation": 0},
            ]
        else:
            rules = [{"location": "/", "tdm-reservation": 1, "tdm-policy": POLICY}]
        text = json.dumps(rules, indent=1)
        url = f"http://{host}{TDMREP_PATH}"
        pages[url] = WorldPage(
            url,
            host,
            headers=[("Content-Type", "application/json")],
            body=text.encode(),
            kind="tdmrep",
        )
        files[host] = text
        for page_url in html:
            licence, tdm = truth.get(page_url, (None, None))
            if tdm is not None or _stated(page_url):
                continue  # its own signal stands
            if urlsplit(page_url).path.startswith(f"/{section}/" if section else "/"):
                truth[page_url] = (licence, "tdmrep-file")
    return files
