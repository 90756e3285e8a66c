"""The continuous polite scheduler: per-host queues and a pool of threads that keeps
every host with work busy up to its delay, with no batch barrier.

The caller adds URLs as it learns of them (a search result, a crawled link) and takes
the results as they come; it decides what to fetch, the pool only when:

    pool = FetchPool(fetcher, workers=64)
    pool.add(page_id, url)
    for page_id, result in pool.take(timeout=0.2): ...
    pool.close()

A worker takes the host whose next request may start soonest (`HostGate.ready_at`:
the delay, robots.txt Crawl-delay and Retry-After counted from its last request) and
fetches through the `Fetcher` (which holds the host in the gate,
so two requests to one host are never closer than its delay, whatever else runs), and
hands the result over. Results wait in a bounded queue: when the caller falls behind,
the workers stop starting requests, so memory holds at most `max_results` bodies plus
one per worker. Nothing here touches the workspace: a caller that must not lose an
answer once it is in (the loop's fetch journal) passes `keep`, which the fetching thread
calls with each result before handing it over.
"""

from __future__ import annotations

import heapq
import queue
import threading
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass

from collie.fetch.fetcher import Fetcher, host_key, origin_of
from collie.models import FetchResult
from collie.reasons import ROBOTS_UNREACHABLE

IDLE_WAIT = 0.5  # seconds a worker waits for new work before looking again


def fetch_all(fetcher: Fetcher, urls: Iterable[str]) -> Iterator[FetchResult]:
    """Fetch every URL through a `FetchPool` of `fetcher.config.workers` threads; yield
    the results as they come. Closing the iterator early lets the requests in flight
    finish and starts no new ones; Ctrl-C while it waits does not wait for them."""
    pool = FetchPool(fetcher, fetcher.config.workers)
    interrupted = False
    try:
        remaining = 0
        for url in urls:
            pool.add(remaining, url)
            remaining += 1
        while remaining:
            for _key, result in pool.take(timeout=IDLE_WAIT):
                remaining -= 1
                yield result
    except KeyboardInterrupt:
        interrupted = True
        raise
    finally:
        pool.close(wait=not interrupted)


@dataclass(frozen=True)
class PoolState:
    """What the pool holds now (for progress lines)."""

    queued: int  # URLs not started
    in_flight: int  # requests (hosts) being fetched
    hosts: int  # hosts with a URL queued or in flight


class FetchPool:
    """See the module docstring. Thread-safe; `add`, `take` and `close` are the
    caller's, the rest runs in the pool's threads."""

    def __init__(
        self,
        fetcher: Fetcher,
        workers: int,
        max_results: int | None = None,
        keep: Callable[[Hashable, FetchResult], None] | None = None,
        ahead: int = 0,
    ) -> None:
        """`ahead` (0: off): requests started and not yet taken, at first; the bound
        doubles when the caller finds nothing to take while URLs wait for it (the bound
        holds them back), and goes down by one while results wait for the caller, never
        under `ahead` nor over what the threads and `max_results` hold (the pool fetches
        just ahead of a caller that is slower than the web, so few requests are on the
        wire, and as fast as it can otherwise)."""
        self.fetcher = fetcher
        self.keep = keep
        size = max_results or max(16, 2 * workers)
        self._low, self._high = ahead, workers + size
        self._ahead = ahead  # the bound now (0: none)
        self._out = 0  # requests started whose results are not taken yet
        self.gate = fetcher.gate
        self._queues: dict[str, deque[tuple[Hashable, str, frozenset[str] | None]]] = {}
        self._heap: list[tuple[float, int, str]] = []  # (ready_at, order, host) of idle hosts
        self._scheduled: set[str] = set()  # hosts in the heap
        self._busy: set[str] = set()  # hosts a worker is fetching from
        self._order = 0
        self._cond = threading.Condition()
        self._closed = False
        self._late: list[tuple[Hashable, FetchResult]] = []  # results taken by close()
        self._results: queue.Queue[tuple[Hashable, FetchResult]] = queue.Queue(size)
        self._threads = [
            threading.Thread(target=self._work, name=f"collie-fetch-{i}", daemon=True)
            for i in range(workers)
        ]
        for thread in self._threads:
            thread.start()

    # -- the caller's side ------------------------------------------------------------
    def add(self, key: Hashable, url: str, accept: frozenset[str] | None = None) -> None:
        """Queue `url` behind its host's other URLs; `key` comes back with its result.
        `accept`: content types wanted instead of HTML (`Fetcher.fetch`)."""
        host = host_key(url)
        with self._cond:
            self._queues.setdefault(host, deque()).append((key, url, accept))
            self._schedule(host)
            self._cond.notify()

    def take(self, timeout: float = 0.0, limit: int = 0) -> list[tuple[Hashable, FetchResult]]:
        """The results ready now (waiting up to `timeout` seconds for the first one), at
        most `limit` of them (0: all). A worker waiting for room starts its next request
        once a result is taken: a caller that takes one at a time as it gets through
        them keeps the requests on the wire few and evenly spread."""
        taken, self._late = self._late, []
        if limit and len(taken) >= limit:
            taken, self._late = taken[:limit], taken[limit:]
            return taken
        if self._ahead and self._results.empty():
            self._pace(starved=True)
        try:
            got = self._results.get(timeout=timeout) if timeout else self._results.get_nowait()
        except queue.Empty:
            return taken
        fresh = [got]
        while not limit or len(taken) + len(fresh) < limit:
            try:
                fresh.append(self._results.get_nowait())
            except queue.Empty:
                break
        self._pace(taken=len(fresh))
        return taken + fresh

    def _pace(self, starved: bool = False, taken: int = 0) -> None:
        """Results taken (their requests no longer count against `ahead`), and the bound
        moved: up when the caller starved, down while results still wait."""
        with self._cond:
            self._out -= taken
            grown = False
            if self._ahead:
                if starved and self._queues and self._out >= self._ahead:  # it binds
                    grown, self._ahead = True, min(self._high, 2 * self._ahead)
                elif taken and not self._results.empty():
                    self._ahead = max(self._low, self._ahead - 1)
            # A worker a request the bound lets start: waking all 64 for one slot made
            # them contend for the interpreter lock with the caller's parsing.
            if grown or not self._ahead:
                self._cond.notify_all()
            elif taken:
                self._cond.notify(taken)

    def state(self) -> PoolState:
        with self._cond:
            queued = sum(len(q) for q in self._queues.values())
            hosts = len(self._queues.keys() | self._busy)
            return PoolState(queued, len(self._busy), hosts)

    def close(self, wait: bool = True) -> list[Hashable]:
        """Start no new request and let those in flight finish (`take` still returns
        their results). Returns the keys never started. `wait=False` (a second Ctrl-C)
        returns at once: the requests in flight end on their own in the pool's daemon
        threads and their results are dropped (their pages are still queued in the
        workspace)."""
        with self._cond:
            self._closed = True
            never = [key for q in self._queues.values() for key, _, _ in q]
            self._queues.clear()
            self._heap.clear()
            self._scheduled.clear()
            self._cond.notify_all()
        if not wait:
            return never
        late = []
        while any(t.is_alive() for t in self._threads):
            late += self.take()  # a worker blocked on a full queue must get through
            for thread in self._threads:
                thread.join(0.05)
        self._late = late + self.take()
        return never

    def __enter__(self) -> FetchPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the workers' side --------------------------------------------------------------
    def _schedule(self, host: str) -> None:
        """Put an idle host with queued URLs in the heap (lock held)."""
        if host in self._scheduled or host in self._busy or not self._queues.get(host):
            return
        self._order += 1
        heapq.heappush(self._heap, (self.gate.ready_at(host), self._order, host))
        self._scheduled.add(host)

    def _next(self) -> tuple[str, Hashable, str, frozenset[str] | None] | None:
        """The host whose turn comes first and its next URL (the gate waits for the
        turn itself, on the fetcher's clock); None when the pool is closed."""
        with self._cond:
            while not self._closed:
                if not self._heap or (self._ahead and self._out >= self._ahead):
                    self._cond.wait(IDLE_WAIT)
                    continue
                ready_at, _, host = self._heap[0]
                actual = self.gate.ready_at(host)  # a Crawl-delay or Retry-After moved it
                if actual > ready_at:
                    self._order += 1
                    heapq.heapreplace(self._heap, (actual, self._order, host))
                    continue
                heapq.heappop(self._heap)
                self._scheduled.discard(host)
                key, url, accept = self._queues[host].popleft()
                if not self._queues[host]:
                    del self._queues[host]
                self._busy.add(host)
                self._out += 1
                return host, key, url, accept
        return None

    def _work(self) -> None:
        while (job := self._next()) is not None:
            host, key, url, accept = job
            try:
                result = self.fetcher.fetch(url, accept)
            finally:
                with self._cond:
                    self._busy.discard(host)
                    self._schedule(host)
                    self._cond.notify()  # its host is free again: one worker may take it
            if self.keep is not None:
                self.keep(key, result)
            self._results.put((key, result))


class HeldBack:
    """The keys whose URL came back `robots-unreachable` (its origin's robots.txt could
    not be fetched): the caller records nothing for them and keeps them queued; `waiting`
    says whether one must still wait, until the fetcher's retry time for the origin has
    come (`Fetcher.robots_failures`; never again in this run once given up)."""

    def __init__(self, fetcher: Fetcher) -> None:
        self.fetcher = fetcher
        self._held: dict[Hashable, str] = {}  # key -> origin

    @staticmethod
    def applies(result: FetchResult) -> bool:
        return result.reason == ROBOTS_UNREACHABLE

    def hold(self, key: Hashable, result: FetchResult) -> None:
        self._held[key] = origin_of(result.final_url or result.url)

    def waiting(self, key: Hashable) -> bool:
        """Is `key` held and its retry time still to come? (Released otherwise.)"""
        origin = self._held.get(key)
        if origin is None:
            return False
        retry_at = self.fetcher.robots_failures.retry_at(origin)
        if retry_at is not None and self.fetcher.clock.now() < retry_at:
            return True
        del self._held[key]
        return False

    def __len__(self) -> int:
        return len(self._held)

    def origins(self) -> dict[str, str]:
        """The origins of the keys held, with why their robots.txt failed."""
        causes = self.fetcher.robots_unreachable()
        return {o: causes.get(o, "no answer") for o in sorted(set(self._held.values()))}
