"""A run's configuration, read once: the only reader of settings in collie/mining/.

Every part of the loop (the search stage, the spider, the settler, the schedulers, the
scan, the reprocess) is built from one frozen `RunConfig`, as Scrapy builds each
component from its crawler's settings; none of them reads a setting by its dotted name.
A workspace's settings do not change during a run, so a run builds it once, where it
starts (`RunConfig.of`: collie.api.mine for a run, mining/scan.py for a scan,
mining/reprocess.py for a reprocess, a command that plans without running), and hands
it down; a part that needs one group takes that group, and no part builds another.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from collie.decide.classify import PageRules
from collie.fetch.fetcher import FetchConfig
from collie.langid.model import LangModel
from collie.languages import Language
from collie.mining.executor import ExecutorSpec
from collie.mining.records import RunLimits
from collie.search.base import Backend


class Configured(Protocol):
    """What a run's configuration is read from (a workspace is one)."""

    @property
    def settings(self) -> Mapping[str, Any]: ...

    @property
    def language(self) -> Language: ...


@dataclass(frozen=True)
class SearchConfig:
    """search.*: requests, budgets, failures and the stop rules."""

    results: int = 10  # results a query asks for, over its pages
    max_failures: int = 5
    max_empty: int = 0
    max_fruitless: int = 0
    next_page: str = "new-target"  # or "always"
    saturation: float = 0.0
    min_queries: int = 0
    probe_queries: int = 0
    max_queries: int = 0  # the workspace's budget; 0: none
    max_queries_per_run: int = 0
    rate_limit: float = 0.0
    monthly_requests: int = -1  # -1: the backend's plan
    price_per_1000: float = -1.0
    stop_rule: str = "none"  # "extrapolation", "upper-bound" or "none"
    min_new_sites: float = 0.5
    contrast_pages: int = 0  # relative-suspected pages before the results are judged again

    def page_size(self, backend: Backend) -> tuple[int, int]:
        """(results a request asks for, requests a query may take): `results` in pages
        of what the backend serves at most."""
        per_page = min(self.results, backend.max_count)
        return per_page, -(-self.results // per_page)


@dataclass(frozen=True)
class QueryConfig:
    """queries.*, run.seed and the language's domains: what a loop sends."""

    count: int = 10
    words: int = 3
    tld: str = "auto"
    bandit: bool = False
    seed: int = 0  # run.seed
    extra_domains: tuple[str, ...] = ()


@dataclass(frozen=True)
class SeedConfig:
    """seeds.* and safetynet.*: how a loop's seed words are chosen."""

    count: int = 100
    min_length: int = 3
    min_doc_freq: int = 1
    min_count: int = 1
    safetynet_top: int = 1000
    safetynet_ignore: tuple[str, ...] = ()


@dataclass(frozen=True)
class CrawlConfig:
    """crawl.*: links, sites, short pages' votes, sitemaps and feeds."""

    depth: int = 2
    max_pages_per_site: int = 1000
    max_new_sites: int = 0
    site_min_yield: float = 0.0
    site_min_pages: int = 0
    min_votes: int = 1
    short_page_chars: int = 0
    sitemaps: bool = False
    cdx_api: str = ""
    cdx_limit: int = 0
    chain_budget: int = 3


@dataclass(frozen=True)
class KeepConfig:
    """What a run keeps: warc.*, dedup.*, extract.teasers."""

    warc: str = "all"  # all, target, none
    warc_max_bytes: int = 1_000_000_000
    max_distance: int = 3
    paragraphs: bool = True
    teasers: bool = True


@dataclass(frozen=True)
class RunConfig:
    """Everything the loop's parts read of the settings (module docstring)."""

    target: str
    language: Language
    rules: PageRules
    fetch: FetchConfig
    executor: ExecutorSpec
    search: SearchConfig = field(default_factory=SearchConfig)
    queries: QueryConfig = field(default_factory=QueryConfig)
    seeds: SeedConfig = field(default_factory=SeedConfig)
    crawl: CrawlConfig = field(default_factory=CrawlConfig)
    keep: KeepConfig = field(default_factory=KeepConfig)
    workers: int = 8  # fetch.workers
    langid_hide: tuple[str, ...] = ()
    limits: RunLimits = field(default_factory=lambda: RunLimits(1))  # run.*

    @classmethod
    def of(cls, source: Configured, model: LangModel | None = None) -> RunConfig:
        """The configuration of a workspace (or anything with settings and a language);
        the page rules' relative check only when `model` learnt the target."""
        return cls.from_settings(source.settings, source.language, model)

    @classmethod
    def from_settings(
        cls, s: Mapping[str, Any], language: Language, model: LangModel | None = None
    ) -> RunConfig:
        return cls(
            target=language.code,
            language=language,
            rules=PageRules.from_settings(language.code, s, model),
            fetch=FetchConfig.from_settings(s),
            executor=executor_spec(s),
            search=SearchConfig(
                s["search.results"],
                s["search.max_failures"],
                s["search.max_empty"],
                s["search.max_fruitless"],
                s["search.next_page"],
                s["search.saturation"],
                s["search.min_queries"],
                s["search.probe_queries"],
                s["search.max_queries"],
                s["search.max_queries_per_run"],
                s["search.rate_limit"],
                s["search.monthly_requests"],
                s["search.price_per_1000"],
                stop_rule=s["search.stop_rule"],
                min_new_sites=s["search.min_new_sites"],
                contrast_pages=s["search.contrast_pages"],
            ),
            queries=QueryConfig(
                s["queries.count"],
                s["queries.words"],
                s["queries.tld"],
                bool(s["queries.bandit"]),
                s["run.seed"],
                tuple(s["language.extra_domains"]),
            ),
            seeds=SeedConfig(
                s["seeds.count"],
                s["seeds.min_length"],
                s["seeds.min_doc_freq"],
                s["seeds.min_count"],
                s["safetynet.top"],
                tuple(s["safetynet.ignore"]),
            ),
            crawl=CrawlConfig(
                s["crawl.depth"],
                s["crawl.max_pages_per_site"],
                s["crawl.max_new_sites"],
                s["crawl.site_min_yield"],
                s["crawl.site_min_pages"],
                s["crawl.min_votes"],
                s["crawl.short_page_chars"],
                bool(s["crawl.sitemaps"]),
                s["crawl.cdx_api"],
                s["crawl.cdx_limit"],
                s["crawl.chain_budget"],
            ),
            keep=KeepConfig(
                s["warc.keep"],
                s["warc.max_bytes"],
                s["dedup.max_distance"],
                bool(s["dedup.paragraphs"]),
                bool(s["extract.teasers"]),
            ),
            workers=s["fetch.workers"],
            langid_hide=tuple(s["langid.hide"]),
            limits=RunLimits(s["run.loops"], s["run.max_pages"], s["run.max_time"]),
        )

    def judging_with(self, model: LangModel) -> RunConfig:
        """The same configuration, its page rules set for `model` (the relative check of
        a target the model learnt): the run loads its model after it has read the
        settings, and reads them no second time."""
        return replace(self, rules=self.rules.for_model(self.target, model))


def executor_spec(s: Mapping[str, Any]) -> ExecutorSpec:
    """The run.executor and dask.* settings."""
    return ExecutorSpec(
        s["run.executor"],
        s["dask.scheduler"],
        s["dask.cluster"],
        tuple(s["dask.cluster_options"]),
        s["dask.retries"],
    )
