"""The spider: what a loop crawls next from what it recorded, shared by both schedulers
(stream.py in this process, batches.py on an executor's workers).

- links: a batch's target documents' same-site links (and target-language listing
  pages', `crawls_as`), to the crawl depth and the site's page cap, and their links to
  sites not met yet (cross-site), scored by what predicts their language (`plan_links`);
- listings: the sitemaps and feeds of sites that yield a target document (`Listings`:
  it says which URLs to fetch; the scheduler fetches them and hands the answers back);
- site judgements: a batch judged with its sites before it is recorded, close
  relatives suspected and poor sites stopped after;
- short pages voted on again once more linking pages are known (`decide_short_pages`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from collie.crawl.links import (
    LinkEvidence,
    Needles,
    crawl_url,
    follows_link,
    language_needles,
    link_priority,
    short_page_vote,
    site_of,
    site_stop_reason,
)
from collie.crawl.listings import MAX_PER_SITE, candidates, cdx_query, is_listing, parse
from collie.decide.classify import decide_short
from collie.fetch.fetcher import origin_of
from collie.fetch.pool import HeldBack
from collie.mining.examine import examine_cached
from collie.mining.miner import Miner
from collie.mining.relatives import judge_with_sites, suspect_sites
from collie.models import Examined, FetchResult, PageOutcome, QueuedPage, QueueEntry
from collie.reasons import LISTING, kind_of
from collie.search.queries import query_domains
from collie.store.rewrite import short_pages

LISTING_PRIORITY = 1.0  # pages a sitemap or feed lists: between search results and links
MAX_LISTINGS = MAX_PER_SITE

Wanted = tuple[str, str]  # (site, URL) of a sitemap or feed to fetch


def plan_links(
    miner: Miner, by_id: dict[int, QueuedPage], done: Sequence[PageOutcome], *, loop: int
) -> list[QueueEntry]:
    """Same-site links of this batch's new target documents (and of its near-duplicates,
    out of their own URL family: crawl.follows_link), to the crawl depth and the
    site's page cap, scored by what predicts their language; and a target document's
    links to sites not met yet (`_cross_site`)."""
    store, settings = miner.store, miner.ws.settings
    needles = language_needles(miner.target)
    domains = query_domains(miner.ws.language, settings["language.extra_domains"], "auto")
    listings_read = settings["crawl.sitemaps"]
    entries: list[QueueEntry] = []
    for outcome in done:
        source = by_id[outcome.page_id]
        depth = source.depth + 1
        status = crawls_as(outcome, miner.target)
        if status == "kept":
            entries += _cross_site(miner, outcome, needles, domains, loop)
        if status not in ("kept", "duplicate") or depth > miner.limits.crawl_depth:
            continue
        if store.site_counts(source.site)[2] is not None:
            continue
        room = settings["crawl.max_pages_per_site"] - store.site_size(source.site)
        for link, anchor in outcome.links:
            url = crawl_url(link)
            if url is None or site_of(url) != source.site or room <= 0:
                continue
            if not follows_link(status, source.url, url):
                continue
            if listings_read and is_listing(url):
                continue  # a feed or sitemap: read as a listing (Listings), not as a page
            evidence = LinkEvidence(url, anchor, tuple(store.referrers(url)))
            priority = link_priority(evidence, miner.target, needles, domains)
            entries.append(
                QueueEntry(
                    url, source.site, loop, "crawl", depth, priority, referrer_id=outcome.page_id
                )
            )
            room -= 1
    return entries


def crawls_as(outcome: PageOutcome, target: str) -> str:
    """The status crawling out treats a page by: a listing page in the target language
    (extract.listings: not a document, its links the way into the site) as a target
    document."""
    listing = outcome.reason is not None and kind_of(outcome.reason) == LISTING
    if outcome.status == "dropped" and listing and outcome.lang == target:
        return "kept"
    return outcome.status


def _cross_site(
    miner: Miner, outcome: PageOutcome, needles: Needles, domains: list[str], loop: int
) -> list[QueueEntry]:
    """A target document's links to sites the workspace has not met: each new site enters
    through its linked page, at depth 0 (crawled out like a search hit once that page is
    a target document), at most crawl.max_new_sites per loop, scored like any link (the
    referrers' languages, needles in host, path and anchor, the domain extension)."""
    budget = miner.ws.settings["crawl.max_new_sites"]
    if miner.new_sites is None:
        miner.new_sites = set(miner.store.sites_entered_by_link(loop))
    entries = []
    for link, anchor in outcome.links:
        url = crawl_url(link)
        if url is None or len(miner.new_sites) >= budget:
            continue
        site = site_of(url)
        if site == outcome.site or site in miner.new_sites or miner.store.site_size(site):
            continue
        miner.new_sites.add(site)
        evidence = LinkEvidence(url, anchor, tuple(miner.store.referrers(url)))
        priority = link_priority(evidence, miner.target, needles, domains)
        entries.append(
            QueueEntry(url, site, loop, "crawl", 0, priority, referrer_id=outcome.page_id)
        )
    return entries


# -- site judgements --------------------------------------------------------------------


def judge_batch_with_sites(miner: Miner, outcomes: Sequence[PageOutcome]) -> None:
    """relatives.judge_with_sites on a batch, before it is recorded."""
    judge_with_sites(miner.store, miner.model, miner.rules, outcomes)


def suspect_relative_sites(miner: Miner, sites: set[str]) -> None:
    """relatives.suspect_sites on a batch's sites, after it is recorded."""
    if suspect_sites(miner.store, miner.rules, sites):
        miner.originals = None  # their documents left the corpus


def stop_poor_sites(miner: Miner, sites: set[str]) -> None:
    """Stop crawling the sites whose pages yield too few target documents."""
    settings = miner.ws.settings
    for site in sorted(sites):
        pages, target, stopped = miner.store.site_counts(site)
        reason = site_stop_reason(
            target, pages, settings["crawl.site_min_yield"], settings["crawl.site_min_pages"]
        )
        if stopped is None and reason is not None:
            miner.store.stop_site(site, reason)


def decide_short_pages(miner: Miner, loop: int) -> list[Examined]:
    """Hayati's vote again for the loop's short pages that too few linking pages had
    voted on when they were fetched (a site's about page comes in the batch that brings
    the articles linking to it): read back as kept (bodies.py), no request. Returns
    those the vote decides now (to be recorded, and crawled out, like any page)."""
    min_votes = miner.ws.settings["crawl.min_votes"]
    decided = []
    for page in short_pages(miner.store, loop):
        voted = short_page_vote(miner.store.referrers(page.url), min_votes)
        if voted is None:
            continue
        examined = examine_cached(page, miner.ws.root, miner.model, miner.rules)
        if examined.short_text is not None:
            decide_short(examined, voted, miner.rules)
            decided.append(examined)
    return decided


# -- sitemaps and feeds -----------------------------------------------------------------


class Listings:
    """What sites list (collie.crawl.listings), read when crawl.sitemaps is on: on a
    site's first target document, its robots.txt sitemaps (else /sitemap.xml); on every
    target document, the feeds it links to that were not read yet; at most MAX_LISTINGS
    a site. The `ask_*` methods return the (site, URL) to fetch (with LISTING_TYPES);
    the scheduler fetches them and hands each answer to `read`."""

    def __init__(self, miner: Miner) -> None:
        self.miner = miner
        self.enabled = bool(miner.ws.settings["crawl.sitemaps"])
        self.listed = miner.store.listed_sites()  # sites whose sitemaps and feeds were read
        self.asked = miner.store.listing_urls()  # the sitemaps and feeds read
        self.per_site: Counter[str] = Counter()  # listings asked for in this loop

    def ask_unread(self) -> list[Wanted]:
        """The sitemaps of sites asked for in an earlier run, never read."""
        wanted: list[Wanted] = []
        if self.enabled:
            for site, url in self.miner.store.sites_to_list():
                wanted += self._ask_sitemaps(site, url)
        return wanted

    def ask_for(self, page: QueuedPage, outcome: PageOutcome) -> list[Wanted]:
        """What to read for a page just recorded (nothing unless a target document)."""
        if not self.enabled or crawls_as(outcome, self.miner.target) != "kept":
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
        record = self.miner.fetcher.robots.get(origin)
        wanted = []
        for sitemap in candidates(origin, record.sitemaps() if record else [], ()):
            if sitemap not in self.asked and self.per_site[site] < MAX_LISTINGS:
                wanted.append(self._ask(site, sitemap))
        api = self.miner.ws.settings["crawl.cdx_api"]
        if api:  # what a web archive holds of the site, as a sitemap
            query = cdx_query(api, site, self.miner.ws.settings["crawl.cdx_limit"])
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
        miner = self.miner
        miner.archive_exchanges(result.exchanges)
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
            room = miner.ws.settings["crawl.max_pages_per_site"] - miner.store.site_size(site)
            for url in listing.pages:
                queued = crawl_url(url)
                if queued is not None and site_of(queued) == site and len(entries) < room:
                    entries.append(QueueEntry(queued, site, loop, "crawl", 1, LISTING_PRIORITY))
        with miner.store.batch():
            if miner.store.site_counts(site)[2] is not None:
                entries = []  # the site was stopped meanwhile
            added = miner.store.enqueue_in_batch(entries)
            found = len(listing.pages) if listing else 0
            miner.store.record_listing(
                result.url, site, loop, result.status, result.reason, found, added
            )
        return nested, added
