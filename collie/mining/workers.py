"""Where a run's pages are fetched and examined: the executor (this process, or Dask
workers: executor.py), the model and page rules they are examined with (the relatives
pass hands in a new model: `share`), and, for work on other processes, what they hand
back (robots.txt records, the hosts' pacing) and are handed next.
"""

from __future__ import annotations

import time

from collie.decide.classify import PageRules
from collie.fetch.fetcher import Fetcher
from collie.langid.model import LangModel
from collie.mining.config import RunConfig
from collie.mining.examine import (
    SiteBatch,
    SiteResult,
    WorkerContext,
    examine,
    fetch_and_examine,
    host_in_sites,
    origins_and_hosts,
    split_by_site,
)
from collie.mining.executor import Executor
from collie.models import Examined, FetchResult, QueuedPage


class Workers:
    """The run's examining side (module docstring)."""

    def __init__(
        self, executor: Executor, fetcher: Fetcher, model: LangModel, config: RunConfig
    ) -> None:
        self.executor, self.fetcher = executor, fetcher
        self.rules: PageRules = config.rules
        # With WARC files the exchanges keep the body: the workers send only its digest.
        self.keep_bodies = config.keep.warc == "none"
        self.fetch_threads = config.workers  # fetch.workers: this process's fetch threads
        self.not_before: dict[str, float] = {}  # host -> wall-clock time
        self.model = model
        self.shared: object = None  # the executor's handle on the WorkerContext
        self.share(model)

    @property
    def local(self) -> bool:
        """Are pages fetched in this process (not on Dask workers)?"""
        return self.executor.name == "local"

    def share(self, model: LangModel) -> None:
        """Examine with `model` from now on, here and on the executor's workers."""
        self.model = model
        fetcher = self.fetcher if self.local else None
        self.shared = self.executor.share(WorkerContext(model, fetcher, self.keep_bodies))

    def examine(self, page: QueuedPage, result: FetchResult) -> Examined:
        """A page fetched in this process, examined here."""
        return examine(page, result, self.model, self.rules, self.keep_bodies)

    def fetch_and_examine(self, batch: list[QueuedPage]) -> list[Examined]:
        """Fetch and examine a batch, a task per group of whole sites; the pages examined
        in the batch's order."""
        groups = split_by_site(batch, self.executor.slots)
        tasks = [self._site_batch(group) for group in groups]
        examined: dict[int, Examined] = {}
        for result in self.executor.map_batches(fetch_and_examine, tasks, self.shared):
            examined.update((e.queued.id, e) for e in result.examined)
            self._take_handover(result)
        return [examined[page.id] for page in batch]

    def hold_hosts(self, sites: set[str]) -> float:
        """Before this process fetches from `sites`: its fetcher waits for the times the
        workers handed back for their hosts. Returns the offset from wall-clock time to
        the fetcher's clock (for `release_hosts`)."""
        offset = self.fetcher.clock.now() - time.time()
        for host, when in self.not_before.items():
            if host_in_sites(host, sites):
                self.fetcher.gate.hold_until(host, when + offset)
        return offset

    def release_hosts(self, offset: float) -> None:
        """After this process fetched: its hosts' times, for the next tasks."""
        for host, when in self.fetcher.gate.ready_times().items():
            wall = when - offset
            self.not_before[host] = max(wall, self.not_before.get(host, 0.0))

    def _site_batch(self, pages: list[QueuedPage]) -> SiteBatch:
        """A task: pages of whole sites, with the robots.txt records known for their
        origins and their hosts' pacing (for a worker's fresh fetcher; none needed in
        this process, where the run's fetcher paces every host)."""
        if self.local:
            return SiteBatch(pages, self.fetcher.config, self.rules)
        origins, sites = origins_and_hosts(pages)
        robots = self.fetcher.robots
        records = [r for o in sorted(origins) if (r := robots.get(o)) is not None]
        now = time.time()
        hold = {h: t for h, t in self.not_before.items() if t > now and host_in_sites(h, sites)}
        return SiteBatch(pages, self.fetcher.config, self.rules, records, hold)

    def _take_handover(self, result: SiteResult) -> None:
        """A worker's robots.txt records (saved with the batch) and its hosts' pacing."""
        for record in result.robots:
            self.fetcher.robots.put(record)
        for host, when in result.not_before.items():
            self.not_before[host] = max(when, self.not_before.get(host, 0.0))
