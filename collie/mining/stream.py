"""The local scheduler: a loop's fetching in this process, on the continuous fetch pool
(collie/fetch/pool.py).

The frontier's most promising pages of every site are handed to the pool a few per
site; results are examined and settled (settle.py) as they come, a small transaction
each time. Each answer is written to the fetch journal (collie/archive/journal.py) by
the thread that fetched it, before it is examined; a run killed with kill -9 reads back
the answers of the pages still queued instead of fetching them again, so only the
requests on the wire are asked again. The sitemaps and feeds the spider asks for
(spider.Listings) go through the same pool (and the journal). The
loop drives it: `take_query_results` between two queries of the search stage, `run`
until the frontier is empty or the run must stop.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Hashable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

from collie.archive.journal import FetchJournal
from collie.crawl.listings import LISTING_TYPES
from collie.fetch.pool import FetchPool, HeldBack
from collie.mining.records import Deadline, LoopReport, RunEvents
from collie.mining.settle import Settler
from collie.mining.spider import Listings, Wanted
from collie.mining.workers import Workers
from collie.models import FetchResult, PageOutcome, QueuedPage

if TYPE_CHECKING:  # types only: the caller hands these in
    from collie.store.frontier import FrontierTable


PER_SITE = 2  # pages of one site waiting in the fetch pool (one in flight, one next)
TAKE_WAIT = 0.2  # seconds the stream waits for a result before looking at the frontier
TOP_UP_EVERY = 0.2  # seconds between two reads of the frontier, at least
DRY = 16  # fewer pages than this in the pool: the frontier is read at once
SHOW_EVERY = 1.0  # seconds between two progress updates
AHEAD = 4  # requests started and not yet taken, at least (FetchPool's `ahead`)
GROUP = 64  # pages examined one after another and recorded in one settling, at most
GROUP_SECONDS = 2.0  # or what came in that long


class Stream:
    """A loop's fetch stage on the continuous scheduler (see the module docstring)."""

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
        threads = workers.fetch_threads
        self.journal = FetchJournal(settler.store.root)
        self.journalled = self.journal.read_back(self._still_wanted)  # an earlier run's
        self.ready: list[tuple[Hashable, FetchResult]] = []  # read back, to record
        self.pool = FetchPool(
            workers.fetcher,
            threads,
            max_results=max(64, 2 * threads),
            keep=self._journal,
            ahead=min(AHEAD, threads),
        )
        self.max_sites = max(1024, 16 * threads)  # sites with pages in the pool
        self.claimed: dict[int, QueuedPage] = {}
        self.per_site: Counter[str] = Counter()
        self.started = 0  # pages handed to the pool in this stage
        self.queries: tuple[int, int] | None = None  # (done, planned) while searching
        self.targets = 0
        self.frontier_changed = True
        self.next_top_up = 0.0  # monotonic time before which the frontier is not read again
        self.listings = listings
        self.listings_out = 0  # listings in the pool
        self.held = HeldBack(workers.fetcher)  # pages whose robots.txt could not be fetched
        self._fetch_listings(self.listings.ask_unread())
        self._shown = 0.0
        events.stage(report.number, "fetch", None)

    def __enter__(self) -> Stream:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *exc: object) -> None:
        # On an exception (a second Ctrl-C) nothing more will be recorded: do not wait
        # for the requests in flight (their pages stay queued for the next run, and the
        # answers already in, journalled, are read back then).
        self.pool.close(wait=exc_type is None)
        self.journal.close()

    def run(self) -> str | None:
        """Fetch until the frontier is empty (None) or the run must stop (why)."""
        while True:
            if self.events.should_stop():
                self.finish()
                return "interrupted"
            if self.deadline.passed():
                self.finish()
                return self.deadline.describe()
            self.service(0.0 if self.ready else TAKE_WAIT)
            if self.claimed or self.listings_out:
                continue
            self.top_up()
            if self.claimed:
                continue
            return None

    def take_query_results(self, done: int, planned: int, new: int) -> None:
        """Between two queries of the search stage: `new` URLs joined the frontier
        (`done` of the `planned` queries are answered); feed the pool, settle what is in."""
        self.queries = (done, planned)
        self.frontier_changed |= bool(new)
        self.service(0.0)

    def finish(self) -> None:
        """Start nothing new; record what the requests in flight bring."""
        self.pool.close()
        self._record(self._take(0.0))

    def held_back(self) -> tuple[int, dict[str, str]]:
        """The pages held back for an unreachable robots.txt, and their origins' causes."""
        return len(self.held), self.held.origins()

    def top_up(self) -> None:
        """Hand the pool the best queued pages of sites with room (PER_SITE each). The
        frontier query costs more as the frontier grows (0.4 s at 200,000 queued pages),
        so it runs at most every TOP_UP_EVERY seconds, or 5 times its last duration,
        unless the pool is running dry."""
        if not self.frontier_changed:
            return
        dry = len(self.claimed) < DRY
        if not dry and time.monotonic() < self.next_top_up:
            return
        self.frontier_changed = False
        began = time.monotonic()
        self._top_up()
        took = time.monotonic() - began
        self.next_top_up = time.monotonic() + max(TOP_UP_EVERY, 5 * took)

    def _top_up(self) -> None:
        max_pages = self.max_pages
        room = max_pages - self.started if max_pages else self.max_sites * PER_SITE
        if room <= 0:
            return
        wanted = min(room, self.max_sites * PER_SITE)
        limit = wanted + len(self.claimed) + len(self.held)
        # Held pages are still queued: a site's window is widened by them, or a site's
        # pages on a host whose robots.txt failed would hide its other pages.
        for page in self.frontier.next_per_site(PER_SITE + len(self.held), limit):
            if page.id in self.claimed or self.per_site[page.site] >= PER_SITE:
                continue
            if self.held.waiting(page.id):
                continue
            if room <= 0:
                break
            self.claimed[page.id] = page
            self.per_site[page.site] += 1
            answer = self.journalled.pop(page_key(page.id), None)
            if answer is not None:  # fetched by a run killed before recording it
                self.ready.append((page.id, answer))
            else:
                self.pool.add(page.id, page.url)
            self.started += 1
            room -= 1

    def service(self, wait: float) -> None:
        """Keep the pool fed; examine and record the results that are in."""
        self.top_up()
        self._record(self._trickle(wait))
        self._show()

    def _trickle(self, wait: float) -> Iterator[tuple[Hashable, FetchResult]]:
        """The answers in, one at a time as they are examined (GROUP pages, or what
        comes in GROUP_SECONDS, recorded together): each taken from the pool lets one
        waiting worker start its next request, so the requests on the wire, which a
        kill -9 costs, stay few (everything fetched is journalled)."""
        began = time.monotonic()
        for n in range(GROUP):
            one = self._take(wait if n == 0 else 0.0, 1)
            if not one:
                return
            yield one[0]
            if time.monotonic() - began > GROUP_SECONDS:
                return

    def _take(self, wait: float, limit: int = 0) -> list[tuple[Hashable, FetchResult]]:
        """Answers in (at most `limit`; 0: all): read back from the journal first, then
        the pool's."""
        if self.ready:
            count = limit or len(self.ready)
            taken, self.ready = self.ready[:count], self.ready[count:]
            if limit:
                return taken
            return taken + self.pool.take(0.0)
        return self.pool.take(wait, limit)

    def _journal(self, key: Hashable, result: FetchResult) -> None:
        """An answer into the journal (in the fetching thread)."""
        self.journal.write(journal_key(key), result)

    def _still_wanted(self, keys: list[str]) -> set[str]:
        """The journalled keys whose answers are still to record: pages still queued,
        listings not read."""
        pages = {int(k.split(" ", 1)[1]): k for k in keys if k.startswith("page ")}
        queued = self.frontier.still_queued(sorted(pages))
        read = self.settler.store.sites.listing_urls()
        listings = {k for k in keys if k.startswith("listing ") and k.split(" ", 2)[2] not in read}
        return {pages[i] for i in queued} | listings

    def _record(self, taken: Iterable[tuple[Hashable, FetchResult]]) -> None:
        """Examine the answers as they come (a listing read at once, a page whose
        robots.txt failed held back), then record the pages in one settling."""
        pages: list[QueuedPage] = []
        examined = []
        for key, result in taken:
            if isinstance(key, tuple):
                self._read_listing(str(key[1]), result)
                self.journal.done([journal_key(key)])
                continue
            page = self.claimed.pop(int(key))  # type: ignore[call-overload]
            self.per_site[page.site] -= 1
            if HeldBack.applies(result):  # not recorded: queued until its retry time
                self.held.hold(page.id, result)
                self.journal.done([page_key(page.id)])  # asked again once its robots.txt is
                self.frontier_changed = True
                continue
            pages.append(page)
            examined.append(self.workers.examine(page, result))
        if not pages:
            return
        wanted: list[Wanted] = []

        def ask(outcomes: Sequence[PageOutcome]) -> None:
            wanted.extend(self.listings.ask_and_remember(pages, outcomes, self.report.number))

        outcomes = self.settler.settle(examined, self.report, also=ask)
        self.targets += sum(o.status == "kept" for o in outcomes)
        self.frontier_changed = True
        self.events.advance(len(outcomes))
        self.journal.done(page_key(page.id) for page in pages)
        self._fetch_listings(wanted, remembered=True)

    def _fetch_listings(self, wanted: list[Wanted], remembered: bool = False) -> None:
        """Fetch the sitemaps and feeds `wanted` (their journalled answers if a killed
        run fetched them), remembered in the workspace first unless `remembered`."""
        if not remembered:
            self.listings.remember(wanted, self.report.number)
        for site, url in wanted:
            self.listings_out += 1
            key = ("listing", site, url)
            answer = self.journalled.pop(journal_key(key), None)
            if answer is not None:
                self.ready.append((key, answer))
            else:
                self.pool.add(key, url, LISTING_TYPES)

    def _read_listing(self, site: str, result: FetchResult) -> None:
        self.listings_out -= 1
        nested, added = self.listings.read(site, result, self.report.number)
        self._fetch_listings(nested)
        self.frontier_changed |= bool(added)

    def _show(self) -> None:
        now = time.monotonic()
        if now - self._shown < SHOW_EVERY:
            return
        self._shown = now
        state = self.pool.state()
        searching = f"queries {self.queries[0]}/{self.queries[1]}, " if self.queries else ""
        held = f", {len(self.held)} held (robots.txt unreachable)" if len(self.held) else ""
        self.events.status(
            f"{searching}{self.targets} target docs, {state.in_flight} hosts in flight, "
            f"{state.queued} waiting, {self.frontier.queued_count()} queued{held}"
        )


def page_key(page_id: int) -> str:
    """A page's answer's key in the fetch journal."""
    return f"page {page_id}"


def journal_key(key: Hashable) -> str:
    """The fetch journal's key of a pool key (a page id, or a listing's tuple)."""
    if isinstance(key, tuple):
        _, site, url = key
        return f"listing {site} {url}"
    return page_key(int(key))  # type: ignore[call-overload]
