"""Settling a batch: the one path by which fetched and examined pages enter the
workspace, whichever scheduler fetched them (stream.py here, batches.py on an
executor's workers).

Each page is finished (a short page decided by its referrers' vote) and judged with its
site, its HTTP exchanges written to the WARC files (or, when the workspace keeps none,
its body to cache/), on disk before the batch's transaction; the batch is recorded in
one transaction, each target
document marked as a near-duplicate or not against every earlier original,
with the crawl links of its new target documents (spider.py); then the batch's sites
are judged again, the robots.txt records fetched meanwhile are saved and the pages
counted in the loop's report. A batch is recorded whole or not at all: kill -9 loses
only the pages in hand, which are still queued.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from collie.crawl.links import short_page_vote
from collie.decide.classify import decide_short
from collie.decide.dedup import (
    Deduplicator,
    ParagraphSketch,
    fingerprints,
    mark_duplicate,
    stored_sketch,
)
from collie.fetch.robots import MemoryRobotsStore
from collie.mining.miner import Miner
from collie.mining.records import LoopReport, count_outcomes
from collie.mining.spider import (
    judge_batch_with_sites,
    plan_links,
    stop_poor_sites,
    suspect_relative_sites,
)
from collie.models import Examined, PageOutcome, QueuedPage
from collie.reasons import RELATIVE_SUSPECTED, TOO_SHORT
from collie.store import Store


def settle_batch(
    miner: Miner, examined: Sequence[Examined], report: LoopReport
) -> list[PageOutcome]:
    """A batch of examined pages into the workspace (see the module docstring), in the
    batch's order. Returns their outcomes."""
    outcomes = [_finish(miner, e) for e in examined]
    judge_batch_with_sites(miner, outcomes)
    for one in examined:
        _keep(miner, one)
    if miner.archive is not None:
        miner.archive.flush()  # on disk before any row points at a record
    record_batch(miner, outcomes, {e.queued.id: e.queued for e in examined}, report.number)
    suspect_relative_sites(miner, {o.site for o in outcomes if o.near_letters})
    stop_poor_sites(miner, {o.site for o in outcomes})
    save_robots(miner)
    count_outcomes(report, outcomes)
    return outcomes


def _finish(miner: Miner, examined: Examined) -> PageOutcome:
    """Decide a short page by its referrers' vote."""
    if examined.short_text is not None:
        referrers = miner.store.referrers(examined.queued.url)
        voted = short_page_vote(referrers, miner.ws.settings["crawl.min_votes"])
        decide_short(examined, voted, miner.rules)
    return examined.outcome


def _keep(miner: Miner, examined: Examined) -> None:
    """The page's exchanges into the WARC files (warc.keep target: a target document's,
    or a page a later pass may make one: too short to judge yet, a relative suspect),
    the page pointing at its answer's record; without WARC files, its body into cache/."""
    outcome = examined.outcome
    if miner.archive is None:
        if examined.body is not None:
            miner.store.save_body(examined.body)
        return
    if examined.exchanges:
        reason = outcome.reason or ""
        again = reason == TOO_SHORT or reason.startswith(RELATIVE_SUSPECTED)
        target = outcome.status == "kept" or again  # "kept": a target document, duplicates too
        outcome.warc = miner.archive_exchanges(examined.exchanges, outcome.final_url, target)


def save_robots(miner: Miner) -> None:
    """Keep the robots.txt records fetched since the last save in the workspace."""
    robots = miner.fetcher.robots
    if isinstance(robots, MemoryRobotsStore):
        miner.store.save_robots(robots.take_new())


def record_batch(
    miner: Miner, outcomes: Sequence[PageOutcome], by_id: dict[int, QueuedPage], loop: int
) -> int:
    """A batch's outcomes in one transaction: each target document marked as a
    near-duplicate or not against every earlier original (this batch's included), then
    the crawl links of the batch's new target documents queued. Returns how many URLs
    were new."""
    store = miner.store
    originals = _originals(miner)
    try:
        with store.batch():
            _write_outcomes(store, outcomes, originals)
            return store.enqueue_in_batch(plan_links(miner, by_id, outcomes, loop=loop))
    except BaseException:
        miner.originals = None  # it may hold rolled-back documents
        raise


def record_outcomes(store: Store, outcomes: Sequence[PageOutcome]) -> None:
    """Record outcomes in one transaction, near-duplicates marked against the store's
    originals (for tests and benchmarks; the run records through `record_batch`)."""
    originals = Deduplicator(store.max_distance, store.exact_original)
    originals.add_all(_stored_originals(store))
    with store.batch():
        _write_outcomes(store, outcomes, originals)


def _write_outcomes(store: Store, outcomes: Sequence[PageOutcome], originals: Deduplicator) -> None:
    """Write outcomes inside a batch, each target document first compared with the
    originals (collie.decide.dedup.mark_duplicate), an original joining them."""
    for outcome in outcomes:
        doc = outcome.document
        if doc is not None:
            doc.exact_key, doc.simhash, doc.sketch = fingerprints(doc)
        mark_duplicate(outcome, originals.find)
        doc_id = store.write(outcome)
        if doc is not None and doc_id and doc.kind == "target" and doc.duplicate_of is None:
            assert doc.exact_key is not None and doc.simhash is not None
            originals.add(doc_id, doc.exact_key, doc.simhash, doc.sketch)


def _stored_originals(store: Store) -> Iterator[tuple[int, int, ParagraphSketch]]:
    """The corpus's originals as the near-duplicate lookups take them: (id, simhash,
    paragraph sketch), the sketch computed from the paragraphs for documents recorded
    before sketches were stored."""
    for doc_id, fingerprint, stored, paragraphs in store.original_fingerprints():
        yield doc_id, fingerprint, stored_sketch(stored, paragraphs)


def _originals(miner: Miner) -> Deduplicator:
    """The run's near-duplicate lookups over the corpus's originals (built from the
    store when first needed, and again after documents left the corpus)."""
    if miner.originals is None:
        originals = Deduplicator(
            miner.store.max_distance,
            miner.store.exact_original,
            miner.ws.settings["dedup.paragraphs"],
        )
        originals.add_all(_stored_originals(miner.store))
        miner.originals = originals
    return miner.originals
