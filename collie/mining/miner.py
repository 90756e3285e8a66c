"""One run's wiring: the workspace, its stages and their settings, and what the run
keeps between batches (the near-duplicate lookups, the sites entered through links,
the hosts' pacing). The loop (loop.py) makes one; its schedulers (stream.py,
batches.py), the spider (spider.py) and the recorder (settle.py) read it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from collie.decide.classify import PageRules
from collie.decide.dedup import Deduplicator
from collie.fetch.fetcher import Fetcher
from collie.langid.model import LangModel
from collie.mining.examine import WorkerContext
from collie.mining.executor import Executor
from collie.mining.records import LoopReport, RunEvents, RunLimits
from collie.mining.search import SearchBudget
from collie.models import Exchange, WarcLocation
from collie.search import Backend
from collie.store import Store
from collie.store.warc import WarcArchive
from collie.workspace.folder import Workspace


@dataclass
class Miner:
    """One run's wiring: the workspace, its stages and their settings."""

    ws: Workspace
    store: Store
    backend: Backend
    fetcher: Fetcher
    model: LangModel
    limits: RunLimits
    events: RunEvents
    executor: Executor
    rules: PageRules
    shared: object = None  # the executor's handle on the WorkerContext
    not_before: dict[str, float] = field(default_factory=dict)  # host -> wall-clock time
    started: float = field(default_factory=time.monotonic)
    relatives_passes: int = 0  # in this loop (the frontier may empty more than once)
    budget: SearchBudget = field(default_factory=SearchBudget)  # the run's queries
    originals: Deduplicator | None = None  # the near-duplicate lookups (settle.py)
    new_sites: set[str] | None = None  # sites this loop entered through a link (spider.py)
    loops: list[LoopReport] = field(default_factory=list)  # this run's, as in RunReport
    archive: WarcArchive | None = None  # the workspace's WARC files (settle.py writes them)

    @property
    def target(self) -> str:
        return self.ws.language.code

    @property
    def local(self) -> bool:
        """Are pages fetched in this process (not on Dask workers)?"""
        return self.executor.name == "local"

    def archive_exchanges(
        self, exchanges: Sequence[Exchange], final: str | None = None, target: bool = False
    ) -> WarcLocation | None:
        """Write a fetch's exchanges to the WARC files, when the run keeps them (warc.keep:
        all, or target and `target` says this fetch gave a target-language document);
        the record of the last answer from `final` (the page's own), if there is one."""
        keep = self.ws.settings["warc.keep"]
        if self.archive is None or keep == "none" or (keep == "target" and not target):
            return None
        found = None
        for exchange in exchanges:
            where = self.archive.write(exchange)
            if exchange.url == final:
                found = where
        return found

    def out_of_time(self) -> bool:
        limit = self.limits.max_time
        return bool(limit) and time.monotonic() - self.started >= limit

    def describe_time_limit(self) -> str:
        """Why the run stops when `out_of_time`."""
        return f"the run's time limit ({self.limits.max_time:g} s) was reached"

    def share_model(self, model: LangModel) -> None:
        """Use `model` from now on, here and on the executor's workers."""
        self.model = model
        self.shared = self.executor.share(
            WorkerContext(model, self.fetcher if self.local else None)
        )
