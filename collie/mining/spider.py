"""The spider: what a loop crawls next from what it recorded, shared by both schedulers
(stream.py in this process, batches.py on an executor's workers) and the scan.

- links: a batch's target documents' same-site links (and target-language listing
  pages', `crawls_as`), to the crawl depth and the site's page cap, and their links to
  sites not met yet (cross-site, a budget of new sites a loop), scored by what predicts
  their language (`Spider.plan_links`);
- poor sites stopped (`Spider.stop_poor_sites`);
- listings: the sitemaps and feeds of sites that yield a target document (`Listings`:
  it says which URLs to fetch; the scheduler fetches them and hands the answers back).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from collie.crawl.chains import Chains
from collie.crawl.links import (
    LinkEvidence,
    Needles,
    crawl_url,
    follows_link,
    language_needles,
    link_priority,
    site_of,
    site_stop_reason,
)
from collie.crawl.listings import MAX_PER_SITE, candidates, cdx_query, is_listing, parse
from collie.fetch.fetcher import origin_of
from collie.fetch.pool import HeldBack
from collie.fetch.robots import RobotsRecord
from collie.mining.config import CrawlConfig, RunConfig
from collie.models import Exchange, FetchResult, PageOutcome, QueuedPage, QueueEntry
from collie.reasons import LISTING, kind_of
from collie.search.queries import query_domains

if TYPE_CHECKING:  # types only: the caller hands these in
    from collie.store import Store


LISTING_PRIORITY = 1.0  # pages a sitemap or feed lists: between search results and links
MAX_LISTINGS = MAX_PER_SITE

Wanted = tuple[str, str]  # (site, URL) of a sitemap or feed to fetch


class Robots(Protocol):
    """The robots.txt records a run knows (fetch.robots.MemoryRobotsStore is one)."""

    def get(self, origin: str) -> RobotsRecord | None: ...


class Spider:
    """Link planning and new sites (module docstring), for one run, as deep as
    crawl.depth (`collie run --depth` over the setting)."""

    def __init__(self, store: Store, config: RunConfig) -> None:
        self.store, self.depth = store, config.crawl.depth
        self.crawl: CrawlConfig = config.crawl
        self.target = config.target
        self.needles: Needles = language_needles(config.target)
        extra = list(config.queries.extra_domains)
        self.domains = query_domains(config.language, extra, "auto")
        self.loop = 0
        self.new_sites: set[str] = set()  # sites this loop entered through a link
        self.chains = Chains(self.crawl.chain_budget)  # generated chains: crawl/chains.py

    def _enter_loop(self, loop: int) -> None:
        if loop != self.loop:
            self.loop = loop
            self.new_sites = set(self.store.sites.sites_entered_by_link(loop))

    def plan_links(
        self, by_id: dict[int, QueuedPage], done: Sequence[PageOutcome], loop: int
    ) -> list[QueueEntry]:
        """Same-site links of this batch's new target documents (and of its
        near-duplicates, out of their own URL family: crawl.follows_link), to the crawl
        depth and the site's page cap, scored by what predicts their language; and a
        target document's links to sites not met yet (`_cross_site`)."""
        store = self.store
        self._enter_loop(loop)
        entries: list[QueueEntry] = []
        for outcome in done:
            source = by_id[outcome.page_id]
            self.chains.settle(source.url, outcome.status == "kept")
            depth = source.depth + 1
            status = crawls_as(outcome, self.target)
            if status == "kept":
                entries += self._cross_site(outcome, loop)
            if status not in ("kept", "duplicate") or depth > self.depth:
                continue
            if store.sites.site_counts(source.site)[2] is not None:
                continue
            room = self.crawl.max_pages_per_site - store.sites.site_size(source.site)
            for link, anchor in outcome.links:
                url = crawl_url(link)
                if url is None or site_of(url) != source.site or room <= 0:
                    continue
                if not follows_link(status, source.url, url):
                    continue
                if self.crawl.sitemaps and is_listing(url):
                    continue  # a feed or sitemap: read as a listing (Listings), not as a page
                if not self.chains.allows(source.url, url):
                    continue  # a step along a chain that found nothing (crawl/chains.py)
                self.chains.take(source.url, url)
                priority = self._priority(url, anchor)
                entries.append(
                    QueueEntry(
                        url,
                        source.site,
                        loop,
                        "crawl",
                        depth,
                        priority,
                        referrer_id=outcome.page_id,
                    )
                )
                room -= 1
        return entries

    def _priority(self, url: str, anchor: str) -> float:
        """What predicts a link's language: the referrers' languages, needles in host,
        path and anchor, the domain extension."""
        evidence = LinkEvidence(url, anchor, tuple(self.store.frontier.referrers(url)))
        return link_priority(evidence, self.target, self.needles, self.domains)

    def _cross_site(self, outcome: PageOutcome, loop: int) -> list[QueueEntry]:
        """A target document's links to sites the workspace has not met: each new site
        enters through its linked page, at depth 0 (crawled out like a search hit once
        that page is a target document), at most crawl.max_new_sites per loop, scored
        like any link."""
        entries = []
        for link, anchor in outcome.links:
            url = crawl_url(link)
            if url is None or len(self.new_sites) >= self.crawl.max_new_sites:
                continue
            site = site_of(url)
            if site == outcome.site or site in self.new_sites or self.store.sites.site_size(site):
                continue
            self.new_sites.add(site)
            priority = self._priority(url, anchor)
            entries.append(
                QueueEntry(url, site, loop, "crawl", 0, priority, referrer_id=outcome.page_id)
            )
        return entries

    def stop_poor_sites(self, sites: set[str]) -> None:
        """Stop crawling the sites whose pages yield too few target documents."""
        for site in sorted(sites):
            pages, target, stopped = self.store.sites.site_counts(site)
            reason = site_stop_reason(
                target, pages, self.crawl.site_min_yield, self.crawl.site_min_pages
            )
            if stopped is None and reason is not None:
                self.store.sites.stop_site(site, reason)


def crawls_as(outcome: PageOutcome, target: str) -> str:
    """The status crawling out treats a page by: a listing page in the target language
    (extract.listings: not a document, its links the way into the site) as a target
    document."""
    listing = outcome.reason is not None and kind_of(outcome.reason) == LISTING
    if outcome.status == "dropped" and listing and outcome.lang == target:
        return "kept"
    return outcome.status


# -- sitemaps and feeds -----------------------------------------------------------------


class Listings:
    """What sites list (collie.crawl.listings), read when crawl.sitemaps is on: on a
    site's first target document, its robots.txt sitemaps (else /sitemap.xml); on every
    target document, the feeds it links to that were not read yet; at most MAX_LISTINGS
    a site. The `ask_*` methods return the (site, URL) to fetch (with LISTING_TYPES);
    the scheduler fetches them and hands each answer to `read`."""

    def __init__(
        self,
        store: Store,
        config: RunConfig,
        robots: Robots,
        keep: Callable[[Sequence[Exchange]], object],
    ) -> None:
        """`robots`: the run's robots.txt records (their Sitemap lines); `keep`: what
        keeps a listing's HTTP exchanges (the WARC files, as warc.keep says)."""
        self.store, self.robots, self.keep = store, robots, keep
        self.crawl: CrawlConfig = config.crawl
        self.target = config.target
        self.enabled = self.crawl.sitemaps
        self.listed = store.sites.listed_sites()  # sites whose sitemaps and feeds were read
        self.asked = store.sites.listing_urls()  # the sitemaps and feeds read
        self.per_site: Counter[str] = Counter()  # listings asked for in this loop

    def ask_unread(self) -> list[Wanted]:
        """The sitemaps of sites asked for in an earlier run, never read."""
        wanted: list[Wanted] = []
        if self.enabled:
            for site, url in self.store.sites.asked_listings():  # a run killed before
                wanted.append(self._ask(site, url))
            for site, url in self.store.sites.sites_to_list():
                wanted += self._ask_sitemaps(site, url)
        return wanted

    def remember(self, wanted: list[Wanted], loop: int) -> None:
        """Keep what is asked for in the workspace until it is read (`ask_unread` asks
        for it again after a kill -9)."""
        if wanted:
            with self.store.batch():
                self.store.sites.note_asked(wanted, loop)

    def ask_and_remember(
        self, pages: Sequence[QueuedPage], outcomes: Sequence[PageOutcome], loop: int
    ) -> list[Wanted]:
        """What a batch of pages just recorded asks for (`ask_for`), remembered: called
        inside the batch's transaction, so that a kill -9 keeps both or neither."""
        wanted = [w for p, o in zip(pages, outcomes, strict=True) for w in self.ask_for(p, o)]
        self.remember(wanted, loop)
        return wanted

    def ask_for(self, page: QueuedPage, outcome: PageOutcome) -> list[Wanted]:
        """What to read for a page just recorded (nothing unless a target document)."""
        if not self.enabled or crawls_as(outcome, self.target) != "kept":
            return []
        wanted = []
        if page.site not in self.listed:
            wanted += self._ask_sitemaps(page.site, outcome.final_url or page.url)
        origin = origin_of(outcome.final_url or page.url)
        for url in candidates(origin, None, (u for u, _ in outcome.links)):
            if url not in self.asked and self.per_site[page.site] < MAX_LISTINGS:
                wanted.append(self._ask(page.site, url))
        return wanted

    def _ask_sitemaps(self, site: str, url: str) -> list[Wanted]:
        """A site's robots.txt sitemaps (else /sitemap.xml), once."""
        self.listed.add(site)
        origin = origin_of(url)
        record = self.robots.get(origin)
        wanted = []
        for sitemap in candidates(origin, record.sitemaps() if record else [], ()):
            if sitemap not in self.asked and self.per_site[site] < MAX_LISTINGS:
                wanted.append(self._ask(site, sitemap))
        api = self.crawl.cdx_api
        if api:  # what a web archive holds of the site, as a sitemap
            query = cdx_query(api, site, self.crawl.cdx_limit)
            if query not in self.asked:
                wanted.append(self._ask(site, query))
        return wanted

    def _ask(self, site: str, url: str) -> Wanted:
        self.asked.add(url)
        self.per_site[site] += 1
        return site, url

    def read(self, site: str, result: FetchResult, loop: int) -> tuple[list[Wanted], int]:
        """Queue the site's pages a sitemap or feed lists (at LISTING_PRIORITY, depth 1,
        up to the site's page cap) and record the listing. Returns the sitemaps an index
        names, to fetch next (MAX_LISTINGS a site), and how many pages were queued."""
        store = self.store
        self.keep(result.exchanges)
        if HeldBack.applies(result):  # not read: asked again on the site's next document
            self.asked.discard(result.url)
            self.listed.discard(site)
            self.per_site[site] -= 1
            return [], 0
        listing = parse(result.body or b"", result.final_url) if result.body else None
        entries: list[QueueEntry] = []
        nested: list[Wanted] = []
        if listing is not None:
            for url in listing.sitemaps:
                if self.per_site[site] < MAX_LISTINGS and site_of(url) == site:
                    nested.append(self._ask(site, url))
            room = self.crawl.max_pages_per_site - store.sites.site_size(site)
            for url in listing.pages:
                queued = crawl_url(url)
                if queued is not None and site_of(queued) == site and len(entries) < room:
                    entries.append(QueueEntry(queued, site, loop, "crawl", 1, LISTING_PRIORITY))
        with store.batch():
            if store.sites.site_counts(site)[2] is not None:
                entries = []  # the site was stopped meanwhile
            added = store.pages.enqueue_in_batch(entries)
            found = len(listing.pages) if listing else 0
            store.sites.record_listing(
                result.url, site, loop, result.status, result.reason, found, added
            )
            store.sites.note_asked(nested, loop)
        return nested, added
