"""Generated chains (crawler traps): a site's pages under one path whose links lead
only to more such pages, as a calendar's days (/calendar/2024/05/06/), an archive by
date or a shop's faceted filters do, without end. A page's chain is the path before its
first segment with a digit (/calendar/, /events/), or its path with any query (/shop?);
a link from a page of one chain to another page of the same chain is a step along it.
An unproven chain gets `budget` steps; a chain whose pages are documents, or lead to
documents (a paginated archive's older articles), goes on while it keeps finding them:
after `budget` pages in a row that were neither, it is not followed further. So a
listing page that leads only to listing pages is not followed on, and the crawl spends
at most a few requests on any chain the server makes up as it goes (issue 58)."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit


def chain_key(url: str) -> str:
    """The chain a URL belongs to ("" for none): host and path before the first segment
    with a digit, or host and path of a URL with a query."""
    parts = urlsplit(url)
    if parts.query:
        return f"{parts.netloc}{parts.path}?"
    kept: list[str] = []
    for segment in parts.path.split("/"):
        if any(c.isdigit() for c in segment):
            return f"{parts.netloc}{'/'.join(kept)}/"
        kept.append(segment)
    return ""


@dataclass
class _Tally:
    pending: int = 0  # steps queued whose page has not come back
    barren: int = 0  # pages back since the chain last found a document
    found: int = 0  # documents among its pages, or reached from them


class Chains:
    """The chains of one run: the steps taken along each, what they found."""

    def __init__(self, budget: int) -> None:
        self.budget = budget  # 0: chains are not limited
        self.tallies: dict[str, _Tally] = {}
        self.steps: dict[str, str] = {}  # URL queued as a step -> its chain
        self.came_from: dict[str, str] = {}  # URL queued -> the chain of the page linking it
        self.refused = 0  # steps not taken

    def allows(self, source: str, link: str) -> bool:
        """May the crawl take `link` from the page at `source`? Always, unless it is a
        step along a chain that has spent its budget without finding a document."""
        key = chain_key(link)
        if self.budget <= 0 or not key or key != chain_key(source):
            return True
        tally = self.tallies.setdefault(key, _Tally())
        spent = tally.barren + (tally.pending if not tally.found else 0)
        if spent < self.budget:
            return True
        self.refused += 1
        return False

    def take(self, source: str, link: str) -> None:
        """`link` was queued from `source` (after `allows`)."""
        if self.budget <= 0:
            return
        origin = chain_key(source)
        if origin:
            self.came_from[link] = origin
        if origin and origin == chain_key(link):
            self.steps[link] = origin
            self.tallies.setdefault(origin, _Tally()).pending += 1

    def settle(self, url: str, document: bool) -> None:
        """The page at `url` came back: a document (a target-language page kept) or not."""
        if self.budget <= 0:
            return
        step = self.steps.pop(url, "")
        origin = self.came_from.pop(url, "")
        if step:
            self.tallies[step].pending -= 1
        for key in {step or chain_key(url), origin} - {""}:
            tally = self.tallies.setdefault(key, _Tally())
            if document:
                tally.found += 1
                tally.barren = 0
            elif key == step:
                tally.barren += 1
