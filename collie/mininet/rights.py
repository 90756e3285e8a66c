"""Rights planted in a world (issue 57): some pages state a Creative Commons licence or
reserve text and data mining, in each of the ways collie.page.rights reads, and some carry
a decoy that states neither (a `tdm-reservation: 0` header, a plain robots meta, a
description that names creativecommons.org). The truth goes into the world file's meta
(`rights`: {url: [licence, tdm]}), so a benchmark measures detection: every planted
signal found, none invented.

Everything is planted in the <head> and the headers, so no page's text, links or
language changes: the worlds' other figures stay as they were.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

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
