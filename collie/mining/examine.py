"""The worker half of the fetch stage: one batch of a few sites' pages -> fetched,
decoded, extracted, language-identified and fingerprinted pages, as plain data.

batches.py cuts each frontier batch into host-partitioned `SiteBatch`es (every page of
a site in the same one) and hands them to an executor (executor.py): in this process, or
on Dask workers. Politeness then holds inside each task with nothing shared between
workers: a site's pages are fetched by one `Fetcher`, one request in flight per host,
`fetch.delay` apart; the batch carries the robots.txt records the driver knows for its
origins and the time before which each host must not be asked again (the pacing of the
previous batch, wherever it ran), and the result hands back the records fetched and the
hosts' new times. Nothing here touches the workspace: bodies come back compressed and
the driver writes them (only their digest when the workspace keeps WARC files, which the
driver writes from the exchanges), and a short page, whose language is the vote of the pages
linking to it, comes back undecided for the driver to decide.
"""

from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path

from collie.archive.bodies import read_kept_answer
from collie.archive.bodycache import compress_body
from collie.decide.classify import PageRules, decide, language_figures, mark_listing
from collie.fetch.fetcher import FetchConfig, Fetcher, origin_of
from collie.fetch.pool import fetch_all
from collie.fetch.robots import MemoryRobotsStore, RobotsRecord
from collie.langid.model import OTHER, UNDETERMINED, LangModel
from collie.models import CachedPage, Examined, FetchResult, PageOutcome, QueuedPage
from collie.page.extract import text_paragraphs
from collie.page.process import process
from collie.page.rights import with_site_file
from collie.reasons import CACHE_MISSING

MISSING = CACHE_MISSING  # a recorded body gone (from the WARC files, or cache/)
RIGHTS_HEADERS = ("tdm-reservation", "tdm-policy", "x-robots-tag")  # read back for reprocess
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SiteBatch:
    """The pages of a few sites, and what fetching them politely needs to know."""

    pages: list[QueuedPage]
    fetch: FetchConfig
    rules: PageRules
    robots: list[RobotsRecord] = field(default_factory=list)
    not_before: dict[str, float] = field(default_factory=dict)  # host -> wall-clock time


@dataclass
class SiteResult:
    examined: list[Examined]  # in the batch's order
    robots: list[RobotsRecord] = field(default_factory=list)  # fetched by this task
    not_before: dict[str, float] = field(default_factory=dict)  # host -> wall-clock time


@dataclass
class WorkerContext:
    """What every task shares: the language model and, in the driver's own process,
    the run's `Fetcher` (its pacing and robots.txt records persist across batches)."""

    model: LangModel
    fetcher: Fetcher | None = None
    keep_bodies: bool = True  # False: the WARC files keep them (only the digest here)


def fetch_and_examine(batch: SiteBatch, context: WorkerContext) -> SiteResult:
    """Fetch a batch's pages politely and examine each (see the module docstring)."""
    if context.fetcher is not None:
        return SiteResult(_fetch_examine(context.fetcher, batch, context))
    store = MemoryRobotsStore(batch.robots)
    with Fetcher(batch.fetch, store) as fetcher:
        offset = fetcher.clock.now() - time.time()  # wall-clock -> this process's clock
        for host, when in batch.not_before.items():
            fetcher.gate.hold_until(host, when + offset)
        examined = _fetch_examine(fetcher, batch, context)
        times = {host: when - offset for host, when in fetcher.gate.ready_times().items()}
    return SiteResult(examined, store.take_new(), times)


def _fetch_examine(fetcher: Fetcher, batch: SiteBatch, context: WorkerContext) -> list[Examined]:
    results = {r.url: r for r in fetch_all(fetcher, [page.url for page in batch.pages])}
    model, rules, keep = context.model, batch.rules, context.keep_bodies
    return [examine(page, results[page.url], model, rules, keep) for page in batch.pages]


def examine(
    queued: QueuedPage,
    result: FetchResult,
    model: LangModel,
    rules: PageRules,
    keep_body: bool = True,
) -> Examined:
    """`examine_page`, but a bug on one page drops that page (with the error as its
    reason) instead of stopping the run."""
    try:
        examined = examine_page(queued, result, model, rules, keep_body)
    except ImportError:  # a broken install, not the page: stop (pages stay queued)
        raise
    except Exception as exc:
        # One line; the traceback with -v (a scan's stderr is no place for it: issue 58).
        log.error(
            "processing %s failed: %s: %s",
            queued.url,
            type(exc).__name__,
            exc,
            exc_info=log.isEnabledFor(logging.DEBUG),
        )
        reason = f"error:{type(exc).__name__}"
        examined = Examined(queued, PageOutcome(queued.id, queued.site, "dropped", reason))
    examined.exchanges = result.exchanges
    return examined


def examine_cached(page: CachedPage, root: Path, model: LangModel, rules: PageRules) -> Examined:
    """`examine` a recorded page again from its raw body as the workspace at `root` kept
    it (its WARC record, or the body cache: bodies.py), without the network."""
    queued = QueuedPage(page.id, page.url, page.site, page.loop, page.source, page.depth)
    kept = read_kept_answer(root, page, rules.max_bytes)
    if kept is None:
        return Examined(queued, PageOutcome(page.id, page.site, "dropped", MISSING))
    if page.archive_kind == "conversion":  # a WET record: the page's text, no HTML
        return examine_text(queued, kept.body, page.fetched_at or 0.0, model, rules)
    headers = {"content-type": _content_type(page)}
    for name in RIGHTS_HEADERS:  # the rights its answer stated (the body cache keeps none)
        if kept.headers and name in kept.headers:
            headers[name] = kept.headers[name]
    result = FetchResult(
        page.url,
        page.final_url or page.url,
        page.http_status,
        headers,
        kept.body,
        fetched_at=page.fetched_at or 0.0,
        tdmrep=page.tdm_file,  # its site's tdmrep.json as it was when the page was fetched
    )
    return examine(queued, result, model, rules, keep_body=False)  # already kept


def _content_type(page: CachedPage) -> str:
    """As served; for pages recorded before content types were (migration 5), the
    charset that decided their decoding when it came from the header."""
    if page.content_type:
        return page.content_type
    if page.encoding_method == "http" and page.encoding:
        return f"text/html; charset={page.encoding}"
    return "text/html"


def examine_page(
    queued: QueuedPage,
    result: FetchResult,
    model: LangModel,
    rules: PageRules,
    keep_body: bool = True,
) -> Examined:
    """Decode, extract, identify the language paragraph by paragraph, decide (a listing
    page is not a document: classify.mark_listing), fingerprint. The raw body comes back
    compressed for cache/ with `keep_body`; else only its digest (the WARC files keep it)."""
    page = process(
        result.url,
        result,
        min_confidence=rules.min_confidence,
        boilerplate=rules.boilerplate,
        engine=rules.engine,
        code=rules.code,
    )
    outcome = PageOutcome(
        queued.id,
        queued.site,
        "dropped",
        page.reason,
        result.final_url,
        result.status,
        result.fetched_at or None,
        page.encoding,
        page.encoding_method,
        page.title or None,
        page.lang or None,
    )
    examined = Examined(queued, outcome)
    if page.outcome != "kept":
        return examined
    if keep_body:
        examined.body = compress_body(result.body)
        outcome.body_sha1 = examined.body.sha1
    else:
        outcome.body_sha1 = hashlib.sha1(result.body).hexdigest()
    outcome.content_type = result.headers.get("content-type")
    outcome.links, outcome.cards = page.links, page.cards
    rights = with_site_file(page.rights, result.tdmrep)  # its site's tdmrep.json too
    outcome.licence, outcome.tdm, outcome.tdm_file = rights.licence, rights.tdm, result.tdmrep
    return decide_text(examined, page.text, page.paragraphs, model, rules)


def decide_text(
    examined: Examined, text: str, paragraphs: list[str], model: LangModel, rules: PageRules
) -> Examined:
    """The language of a page's text, paragraph by paragraph, and its fate (a short page
    waits for the vote; a listing page is not a document): the half of `examine_page`
    after extraction, also for text that comes without its HTML (an archive's WET
    record: collie.mining.scanfile)."""
    outcome, queued = examined.outcome, examined.queued
    outcome.text_chars = len(text)
    found = model.identify_nearest(paragraphs)
    labels = [(p, code, prob) for p, (code, prob, _) in zip(paragraphs, found, strict=True)]
    outcome.lid_chars, outcome.lid_margin = language_figures(labels)  # the model's own
    if len(text) < rules.short_page_chars:
        examined.short_text, examined.short_paragraphs = text, paragraphs
        examined.short_labels = labels  # the vote decides, with langid.site_own_text
        return examined
    near = [code == UNDETERMINED and nearest in (rules.target, OTHER) for code, _, nearest in found]
    decide(outcome, text, labels, rules, near)
    mark_listing(outcome, outcome.final_url or queued.url, paragraphs, rules)
    return examined


def examine_text(
    queued: QueuedPage, body: bytes, fetched_at: float, model: LangModel, rules: PageRules
) -> Examined:
    """A page's text that comes without its HTML (an archive's WET record:
    collie.mining.scanfile, and read back by `examine_cached`), decided as a page's (no
    links, no title); its digest recorded, so the text can be read back."""
    outcome = PageOutcome(queued.id, queued.site, "dropped", None, queued.url, 200, fetched_at)
    examined = Examined(queued, outcome)
    text = body.decode("utf-8", "replace")
    paragraphs = text_paragraphs(text, rules.boilerplate)
    if not paragraphs:
        outcome.reason = "empty-text"
        return examined
    outcome.encoding, outcome.encoding_method = "utf-8", "archive"
    outcome.body_sha1 = hashlib.sha1(body).hexdigest()
    return decide_text(examined, "\n\n".join(paragraphs), paragraphs, model, rules)


def split_by_site(pages: list[QueuedPage], parts: int) -> list[list[QueuedPage]]:
    """At most `parts` groups of whole sites, balanced by pages (largest sites first,
    each to the lightest group), each in the batch's order; deterministic."""
    sites: dict[str, list[QueuedPage]] = {}
    for page in pages:
        sites.setdefault(page.site, []).append(page)
    groups: list[list[QueuedPage]] = [[] for _ in range(max(1, min(parts, len(sites))))]
    for site in sorted(sites, key=lambda s: (-len(sites[s]), s)):
        min(groups, key=len).extend(sites[site])
    order = {page.id: i for i, page in enumerate(pages)}
    return [sorted(group, key=lambda p: order[p.id]) for group in groups if group]


def origins_and_hosts(pages: list[QueuedPage]) -> tuple[set[str], set[str]]:
    """The origins (for robots.txt) and sites of a group of pages."""
    return {origin_of(p.url) for p in pages}, {p.site for p in pages}


def host_in_sites(host: str, sites: set[str]) -> bool:
    """Does a host key ("www.example.org:8080") belong to one of these sites?"""
    name = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
    return any(name == site or name.endswith("." + site) for site in sites)
