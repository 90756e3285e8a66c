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

import time

from collie.crawl.listings import LISTING_TYPES
from collie.fetch.pool import FetchPool
from collie.mining.examine import (
    SiteBatch,
    SiteResult,
    fetch_and_examine,
    host_in_sites,
    origins_and_hosts,
    split_by_site,
)
from collie.mining.miner import Miner
from collie.mining.records import LoopReport
from collie.mining.settle import save_robots, settle_batch
from collie.mining.spider import Listings, Wanted
from collie.models import Examined, QueuedPage
from collie.reasons import ROBOTS_UNREACHABLE

LISTING_WAIT = 0.2  # seconds to wait for a sitemap or feed before looking again


class BatchFetch:
    """A loop's fetch stage in batches on the run's executor (see the module docstring)."""

    def __init__(self, miner: Miner, report: LoopReport) -> None:
        self.miner, self.report = miner, report
        self.batch_size = max(16, miner.ws.settings["fetch.workers"] * 4)
        self.fetched = 0
        self.held: dict[int, str] = {}  # page id -> site: robots.txt not fetched, left queued
        self.frontier_changed = True  # (the frontier is read before every batch)
        self.listings = Listings(miner)
        miner.events.stage(report.number, "fetch", miner.store.queued_count())
        self._read_listings(self.listings.ask_unread())

    def run(self) -> str | None:
        """Fetch the frontier, best first, in batches, until it is empty (None) or the
        run must stop (why: time, interruption)."""
        miner, limits = self.miner, self.miner.limits
        while True:
            if miner.events.should_stop():
                return "interrupted"
            if miner.out_of_time():
                return miner.describe_time_limit()
            room = limits.max_pages - self.fetched if limits.max_pages else self.batch_size
            size = min(self.batch_size, room)
            queued = miner.store.next_batch(size + len(self.held))
            batch = [p for p in queued if p.id not in self.held][:size]
            if not batch:
                return None
            examined = _examine_batch(miner, batch)
            self.held.update(
                (e.outcome.page_id, e.outcome.site)
                for e in examined
                if e.outcome.reason == ROBOTS_UNREACHABLE
            )
            examined = [e for e in examined if e.outcome.reason != ROBOTS_UNREACHABLE]
            outcomes = settle_batch(miner, examined, self.report)
            self.fetched += len(batch)
            miner.events.advance(len(batch))
            wanted = []
            for e, outcome in zip(examined, outcomes, strict=True):
                wanted += self.listings.ask_for(e.queued, outcome)
            self._read_listings(wanted)

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
        miner, fetcher = self.miner, self.miner.fetcher
        offset = fetcher.clock.now() - time.time()  # wall-clock -> the fetcher's clock
        sites = {site for site, _ in wanted}
        for host, when in miner.not_before.items():
            if host_in_sites(host, sites):
                fetcher.gate.hold_until(host, when + offset)
        out = 0
        with FetchPool(fetcher, miner.ws.settings["fetch.workers"]) as pool:
            while wanted or out:
                for site, url in wanted:
                    pool.add(site, url, LISTING_TYPES)
                out += len(wanted)
                wanted = []
                for key, result in pool.take(LISTING_WAIT):
                    out -= 1
                    nested, _ = self.listings.read(str(key), result, self.report.number)
                    wanted += nested
        for host, when in fetcher.gate.ready_times().items():
            wall = when - offset
            miner.not_before[host] = max(wall, miner.not_before.get(host, 0.0))
        save_robots(miner)


def _examine_batch(miner: Miner, batch: list[QueuedPage]) -> list[Examined]:
    """Fetch and examine a batch, a task per group of whole sites; the pages examined
    in the batch's order."""
    tasks = [_site_batch(miner, group) for group in split_by_site(batch, miner.executor.slots)]
    examined: dict[int, Examined] = {}
    for result in miner.executor.map_batches(fetch_and_examine, tasks, miner.shared):
        examined.update((e.queued.id, e) for e in result.examined)
        _take_handover(miner, result)
    return [examined[page.id] for page in batch]


def _site_batch(miner: Miner, pages: list[QueuedPage]) -> SiteBatch:
    """A task: pages of whole sites, with the robots.txt records known for their origins
    and their hosts' pacing (for a worker's fresh fetcher; none needed in this process,
    where the run's fetcher paces every host)."""
    if miner.local:
        return SiteBatch(pages, miner.fetcher.config, miner.rules)
    origins, sites = origins_and_hosts(pages)
    robots = [r for o in sorted(origins) if (r := miner.fetcher.robots.get(o)) is not None]
    now = time.time()
    hold = {h: t for h, t in miner.not_before.items() if t > now and host_in_sites(h, sites)}
    return SiteBatch(pages, miner.fetcher.config, miner.rules, robots, hold)


def _take_handover(miner: Miner, result: SiteResult) -> None:
    """A worker's robots.txt records (saved with the batch) and its hosts' pacing."""
    for record in result.robots:
        miner.fetcher.robots.put(record)
    for host, when in result.not_before.items():
        miner.not_before[host] = max(when, miner.not_before.get(host, 0.0))
