"""Which pages of the world a polite crawler can reach from what search returns, and how.

A page is disallowed when its site's robots.txt forbids it to every agent (a robots.txt
answered with 500 forbids the whole site, as RFC 9309 says). It is reachable when a chain
of steps leads to it from an indexed page, every step allowed; how (`REACH`, the first
that does): `indexed` (search returns it), `same-site` (links and redirects within its
site from an indexed page of that site), `other-site` (the chain follows a link to
another site: a blogroll, a citation), `sitemap` (only through a sitemap or feed of a
site the chain reached: old posts nothing links to).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from urllib.parse import urldefrag, urljoin, urlsplit

from collie.mininet.sites import WorldPage


def disallowed_prefixes(robots: str) -> list[str]:
    """The Disallow prefixes for `*` in a robots.txt ("" = the whole site, for a 500)."""
    if robots == "":
        return ["/"]
    prefixes, applies = [], False
    for line in robots.splitlines():
        name, _, value = line.partition(":")
        name, value = name.strip().lower(), value.strip()
        if name == "user-agent":
            applies = value == "*"
        elif name == "disallow" and applies and value:
            prefixes.append(value)
    return prefixes


def is_disallowed(url: str, robots: Mapping[str, str]) -> bool:
    """Whether the robots.txt of `url`'s host forbids it (robots.txt itself never is)."""
    parts = urlsplit(url)
    rules = robots.get(parts.hostname or "")
    if parts.path == "/robots.txt" or rules is None:
        return False
    target = parts.path + (f"?{parts.query}" if parts.query else "")
    return any(target.startswith(p) for p in disallowed_prefixes(rules))


def outlinks(page: WorldPage) -> list[str]:
    """Absolute, fragment-free targets of a page's links and of a redirect."""
    hrefs = list(page.links)
    if page.kind == "redirect":
        hrefs += [v for k, v in page.headers if k.lower() == "location"]
    found = []
    for href in hrefs:
        url = urldefrag(urljoin(page.url, href)).url
        if url.startswith("http://"):
            found.append(url)
    return found


REACH = ("indexed", "same-site", "other-site", "sitemap")  # as stored: 1 + index; 0 = none


def mark_reachable(pages: Mapping[str, WorldPage], robots: Mapping[str, str]) -> None:
    """Set `disallowed`, `reachable` and `reach` on every page."""
    for page in pages.values():
        page.disallowed = is_disallowed(page.url, robots)
        page.reachable, page.reach = False, ""
    indexed = [u for u, p in sorted(pages.items()) if p.indexed and not p.disallowed]
    for url in indexed:
        pages[url].reach = "indexed"
    for how, cross, listed in (
        ("same-site", False, False),
        ("other-site", True, False),
        ("sitemap", True, True),
    ):
        for url in _closure(pages, indexed, cross, listed):
            pages[url].reach = pages[url].reach or how
    for page in pages.values():
        page.reachable = bool(page.reach)


def _closure(
    pages: Mapping[str, WorldPage], start: list[str], cross: bool, listed: bool
) -> set[str]:
    """The URLs reached from `start` by links (to other sites when `cross`) and, when
    `listed`, by the sitemaps and feeds of every site reached."""
    sitemaps: dict[str, list[str]] = {}
    for url, page in pages.items():
        if page.kind in ("sitemap", "feed") and not page.disallowed:
            sitemaps.setdefault(page.site, []).append(url)
    seen, queue, sites = set(start), deque(start), set()
    while queue:
        page = pages[queue.popleft()]
        steps = [t for t in outlinks(page) if cross or urlsplit(t).hostname == page.site]
        if listed:
            steps += page.listed
            if page.site not in sites:
                sites.add(page.site)
                steps += sitemaps.get(page.site, [])
        for target in steps:
            found = pages.get(target)
            if found is not None and target not in seen and not found.disallowed:
                seen.add(target)
                queue.append(target)
    return seen
