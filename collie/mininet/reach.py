"""Which pages of the world a polite crawler can reach from what search returns.

A page is disallowed when its site's robots.txt forbids it to every agent (a robots.txt
answered with 500 forbids the whole site, as RFC 9309 says). It is reachable when a chain
of links and redirects leads to it from an indexed page, every step allowed. Links to
other sites count: a miner may choose not to follow them, but the page is there to find.
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


def mark_reachable(pages: Mapping[str, WorldPage], robots: Mapping[str, str]) -> None:
    """Set `disallowed` and `reachable` on every page."""
    for page in pages.values():
        page.disallowed = is_disallowed(page.url, robots)
        page.reachable = False
    queue = deque(u for u, p in sorted(pages.items()) if p.indexed and not p.disallowed)
    for url in queue:
        pages[url].reachable = True
    while queue:
        for target in outlinks(pages[queue.popleft()]):
            found = pages.get(target)
            if found is not None and not found.reachable and not found.disallowed:
                found.reachable = True
                queue.append(target)
