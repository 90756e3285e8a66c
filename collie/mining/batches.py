"""The batch scheduler: a loop's fetching on an executor's workers (Dask), batch by
batch.

The frontier's best pages are taken in batches, cut into tasks of whole sites
(examine.py: a site's pages are fetched by one worker, politely) and mapped by the
executor; each batch is settled here (settle.py), in the batch's order, in one
transaction. The sitemaps and feeds the spider asks for (spider.Listings) are fetched
between two batches in this process, with the run's fetcher, paced after the workers'
requests (the hosts' times they hand back) and handing its own times to the next tasks.
The loop drives it like the local stream: `run` until the frontier is empty or the run
must stop.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING

from collie.crawl.listings import LISTING_TYPES
from collie.fetch.pool import FetchPool
from collie.mining.records import Deadline, LoopReport, RunEvents
from collie.mining.settle import Settler
from collie.mining.spider import Listings, Wanted
from collie.mining.workers import Workers
from collie.models import PageOutcome, QueuedPage
from collie.reasons import ROBOTS_UNREACHABLE

if TYPE_CHECKING:  # types only: the caller hands these in
    from collie.store.frontier import FrontierTable


LISTING_WAIT = 0.2  # seconds to wait for a sitemap or feed before looking again


class BatchFetch:
    """A loop's fetch stage in batches on the run's executor (see the module docstring)."""

    def __init__(
        self,
        frontier: FrontierTable,
        workers: Workers,
        settler: Settler,
        listings: Listings,
        events: RunEvents,
        deadline: Deadline,
        report: LoopReport,
        max_pages: int = 0,
    ) -> None:
        """`max_pages`: pages fetched in the loop at most (0: no limit)."""
        self.frontier, self.workers, self.settler = frontier, workers, settler
        self.events, self.deadline, self.report = events, deadline, report
        self.max_pages = max_pages
        self.batch_size = max(16, workers.fetch_threads * 4)
        self.fetched = 0
        self.held: dict[int, str] = {}  # page id -> site: robots.txt not fetched, left queued
        self.frontier_changed = True  # (the frontier is read before every batch)
        self.listings = listings
        events.stage(report.number, "fetch", frontier.queued_count())
        self._read_listings(self.listings.ask_unread())

    def run(self) -> str | None:
        """Fetch the frontier, best first, in batches, until it is empty (None) or the
        run must stop (why: time, interruption)."""
        while True:
            if self.events.should_stop():
                return "interrupted"
            if self.deadline.passed():
                return self.deadline.describe()
            room = self.max_pages - self.fetched if self.max_pages else self.batch_size
            size = min(self.batch_size, room)
            queued = self.frontier.next_batch(size + len(self.held))
            batch = [p for p in queued if p.id not in self.held][:size]
            if not batch:
                return None
            examined = self.workers.fetch_and_examine(batch)
            self.held.update(
                (e.outcome.page_id, e.outcome.site)
                for e in examined
                if e.outcome.reason == ROBOTS_UNREACHABLE
            )
            examined = [e for e in examined if e.outcome.reason != ROBOTS_UNREACHABLE]
            wanted: list[Wanted] = []
            ask = partial(self._ask, [e.queued for e in examined], wanted)
            self.settler.settle(examined, self.report, also=ask)
            self.fetched += len(batch)
            self.events.advance(len(batch))
            self._read_listings(wanted)

    def _ask(
        self, pages: list[QueuedPage], wanted: list[Wanted], outcomes: Sequence[PageOutcome]
    ) -> None:
        """The sitemaps and feeds a batch asks for, into `wanted`, remembered in the
        batch's transaction (Settler.settle's `also`)."""
        wanted.extend(self.listings.ask_and_remember(pages, outcomes, self.report.number))

    def finish(self) -> None:
        """Nothing is in flight between two batches."""

    def held_back(self) -> tuple[int, dict[str, str]]:
        """The pages held back for an unreachable robots.txt, and their sites (the
        causes are in the workers' logs)."""
        return len(self.held), {site: "see the run's log" for site in self.held.values()}

    def _read_listings(self, wanted: list[Wanted]) -> None:
        """Fetch and read sitemaps and feeds here (see the module docstring), the
        sitemaps an index names included."""
        if not wanted:
            return
        workers = self.workers
        offset = workers.hold_hosts({site for site, _ in wanted})
        out = 0
        with FetchPool(workers.fetcher, workers.fetch_threads) as pool:
            while wanted or out:
                for site, url in wanted:
                    pool.add(site, url, LISTING_TYPES)
                out += len(wanted)
                wanted = []
                for key, result in pool.take(LISTING_WAIT):
                    out -= 1
                    nested, _ = self.listings.read(str(key), result, self.report.number)
                    wanted += nested
        workers.release_hosts(offset)
        self.settler.save_robots()
