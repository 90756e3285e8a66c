"""Settling: the one path by which examined pages enter the workspace, whichever
scheduler fetched them (stream.py here, batches.py on an executor's workers, the scan's
archive files), owned by one `Settler` a run.

Each page is finished (a short page decided by its referrers' vote) and judged with its
site, its HTTP exchanges written to the WARC files as warc.keep says (or, when the
workspace keeps none, its body to cache/), on disk before the batch's transaction; the
batch is recorded in one transaction, each target document marked as a near-duplicate
or not against every earlier original, with the crawl links of its new target documents
(the spider's); then the batch's sites are judged again, the robots.txt records fetched
meanwhile are saved and the pages counted in the loop's report. A batch is recorded
whole or not at all: kill -9 loses only the pages in hand, which are still queued.

The settler owns the near-duplicate lookups (built from the store when first needed,
and again after documents left the corpus: `forget_originals`), the warc.keep policy
(`keep_exchanges`) and the counting (`recount`: a page decided again, by the short
pages' vote or the relatives pass, is taken out of the count it was in and counted
anew).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from collie.archive.bodies import note_unread
from collie.archive.bodycache import CACHE_FOLDER, write_body
from collie.archive.keeping import keeps
from collie.archive.writer import WarcArchive
from collie.crawl.links import short_page_vote
from collie.decide.classify import decide_short
from collie.decide.dedup import (
    Deduplicator,
    ParagraphSketch,
    comes_first,
    fingerprints,
    mark_duplicate,
    stored_sketch,
)
from collie.fetch.robots import MemoryRobotsStore
from collie.langid.model import LangModel
from collie.mining.config import RunConfig
from collie.mining.examine import MISSING, examine_cached
from collie.mining.provenance import ModelStamp, model_stamp
from collie.mining.records import LoopReport
from collie.mining.relatives import judge_with_sites, suspect_sites
from collie.mining.spider import Spider
from collie.models import Examined, Exchange, PageOutcome, QueuedPage, WarcLocation
from collie.reasons import NEAR_DUPLICATE, RELATIVE_SUSPECTED, TOO_SHORT
from collie.store import Store

if TYPE_CHECKING:  # types only: the caller hands these in
    from collie.store import Store


@dataclass
class _Waiting:
    """A short page of this run waiting for more votes: its text as examined (the vote
    needs no second examination while the model is the same)."""

    examined: Examined
    model: LangModel


@dataclass
class Settler:
    """A run's settling (module docstring)."""

    store: Store
    config: RunConfig
    spider: Spider
    model: LangModel  # the site judgements' (the relatives pass hands in a new one)
    archive: WarcArchive | None = None  # the workspace's WARC files (warc.keep not none)
    robots: object = None  # the run's robots.txt records, saved after each batch
    originals: Deduplicator | None = None  # the near-duplicate lookups
    counted: dict[int, PageOutcome] = field(default_factory=dict)  # may be recounted
    waiting: dict[int, _Waiting] = field(default_factory=dict)  # short pages of this run
    stamp: ModelStamp | None = None  # the model's, for each page's provenance (provenance.py)

    # -- a batch ---------------------------------------------------------------------

    def settle(
        self,
        examined: Sequence[Examined],
        report: LoopReport,
        also: Callable[[Sequence[PageOutcome]], object] | None = None,
    ) -> list[PageOutcome]:
        """A batch of examined pages into the workspace (see the module docstring), in
        the batch's order; `also(outcomes)` writes what follows from them in the same
        transaction (the sitemaps and feeds they ask for: a kill -9 keeps both or
        neither). Returns their outcomes."""
        short = {e.queued.id: _waiting_copy(e) for e in examined if e.short_text is not None}
        outcomes = self.decide(examined)
        for one in examined:
            self._keep(one)
        if self.archive is not None:
            self.archive.flush()  # on disk before any row points at a record
        by_id = {e.queued.id: e.queued for e in examined}
        displaced: list[tuple[int, str, int]] = []
        self.record(outcomes, by_id, report.number, displaced, also)
        near = {o.site for o in outcomes if o.near_letters}
        if suspect_sites(self.store, self.config.rules, near):
            self.forget_originals()  # their documents left the corpus
        self.spider.stop_poor_sites({o.site for o in outcomes})
        self.save_robots()
        self.recount(report, outcomes)
        for page_id, site, doc_id in displaced:  # kept before, a near-duplicate now
            report.count(PageOutcome(page_id, site, "kept"), -1)
            report.count(PageOutcome(page_id, site, "duplicate", f"{NEAR_DUPLICATE}:{doc_id}"))
        for outcome in outcomes:
            if outcome.reason == TOO_SHORT and outcome.page_id in short:
                self.waiting[outcome.page_id] = _Waiting(short[outcome.page_id], self.model)
        return outcomes

    def decide(self, examined: Sequence[Examined]) -> list[PageOutcome]:
        """The examined pages' outcomes as the rules decide them here, for a run and a
        reprocess alike: a short page by its referrers' vote, a page relative-suspected
        on its own by its site (once the model knows the relatives' text)."""
        outcomes = [self._finish(e) for e in examined]
        judge_with_sites(self.store, self.model, self.config.rules, outcomes)
        return outcomes

    def fresh_originals(self) -> Deduplicator:
        """Near-duplicate lookups over no document yet, with the run's rule
        (dedup.max_distance, dedup.paragraphs): what a reprocess decides every
        document again with, in their pages' URL order (a run's lookups: `_originals`)."""
        keep = self.config.keep
        return Deduplicator(keep.max_distance, paragraphs=keep.paragraphs)

    def new_loop(self) -> None:
        """A loop begins: its report counts afresh, its short pages are its own."""
        self.counted.clear()
        self.waiting.clear()

    def record(
        self,
        outcomes: Sequence[PageOutcome],
        by_id: dict[int, QueuedPage],
        loop: int,
        displaced: list[tuple[int, str, int]] | None = None,
        also: Callable[[Sequence[PageOutcome]], object] | None = None,
    ) -> int:
        """A batch's outcomes in one transaction: each target document marked as a
        near-duplicate or not against every earlier original (this batch's included;
        an original a new document displaces by the representative rule added to
        `displaced`: its page, site and new original), then the crawl links of the
        batch's new target documents queued. Returns how many URLs were new."""
        store = self.store
        originals = self._originals()
        self.model_stamp().apply(outcomes)
        try:
            with store.batch():
                moved = write_outcomes(store, outcomes, originals)
                if displaced is not None:
                    displaced += moved
                added = store.pages.enqueue_in_batch(self.spider.plan_links(by_id, outcomes, loop))
                if also is not None:
                    also(outcomes)
                return added
        except BaseException:
            self.forget_originals()  # they may hold rolled-back documents
            raise

    def recount(self, report: LoopReport, outcomes: Sequence[PageOutcome]) -> None:
        """Count pages in the loop's report; a page this run counted before (a short page
        the vote decides now, a suspect the relatives pass restores) is first taken out
        of what it was counted as."""
        for outcome in outcomes:
            before = self.counted.pop(outcome.page_id, None)
            if before is not None:
                report.count(before, -1)
            report.count(outcome)
            reason = outcome.reason or ""
            if reason == TOO_SHORT or reason.startswith(RELATIVE_SUSPECTED):
                self.counted[outcome.page_id] = _counted_copy(outcome)

    def forget_originals(self) -> None:
        """Documents left the corpus (or came back): the lookups are built again."""
        self.originals = None

    def _originals(self) -> Deduplicator:
        """The run's near-duplicate lookups over the corpus's originals (built from the
        store when first needed, and again after documents left the corpus)."""
        if self.originals is None:
            keep = self.config.keep
            originals = Deduplicator(
                keep.max_distance, self.store.pages.exact_original, keep.paragraphs
            )
            originals.add_all(stored_originals(self.store))
            self.originals = originals
        return self.originals

    def use_model(self, model: LangModel) -> None:
        """Judge sites with `model` from now on."""
        self.model, self.stamp = model, None

    def model_stamp(self) -> ModelStamp:
        """The version, file hash and threshold of the model pages are judged with (read
        from its file once the model is in use: the relatives pass saves it first)."""
        if self.stamp is None:
            self.stamp = model_stamp(self.store.root, self.model)
        return self.stamp

    # -- what is kept ------------------------------------------------------------------

    def keep_exchanges(
        self, exchanges: Sequence[Exchange], final: str | None = None, target: bool = False
    ) -> WarcLocation | None:
        """Write a fetch's exchanges to the WARC files, when the run keeps them (warc.keep:
        all, or target and `target` says this fetch gave a target-language document);
        the record of the last answer from `final` (the page's own), if there is one."""
        if self.archive is None or not keeps(self.config.keep.warc, target):
            return None
        found = None
        for exchange in exchanges:
            where = self.archive.write(exchange)
            if exchange.url == final:
                found = where
        return found

    def save_robots(self) -> None:
        """Keep the robots.txt records fetched since the last save in the workspace."""
        if isinstance(self.robots, MemoryRobotsStore):
            self.store.robots.save_robots(self.robots.take_new())

    def _keep(self, examined: Examined) -> None:
        """The page's exchanges into the WARC files (warc.keep target: a target
        document's, or a page a later pass may make one: too short to judge yet, a
        relative suspect), the page pointing at its answer's record; without WARC files,
        its body into cache/."""
        outcome = examined.outcome
        if self.archive is None:
            if examined.body is not None:
                write_body(self.store.root / CACHE_FOLDER, examined.body)
            return
        if examined.exchanges:
            reason = outcome.reason or ""
            again = reason == TOO_SHORT or reason.startswith(RELATIVE_SUSPECTED)
            target = outcome.status == "kept" or again  # "kept": duplicates too
            outcome.warc = self.keep_exchanges(examined.exchanges, outcome.final_url, target)

    # -- short pages -------------------------------------------------------------------

    def _finish(self, examined: Examined) -> PageOutcome:
        """Decide a short page by its referrers' vote."""
        if examined.short_text is not None:
            referrers = self.store.frontier.referrers(examined.queued.url)
            voted = short_page_vote(referrers, self.config.crawl.min_votes)
            decide_short(examined, voted, self.config.rules)
        return examined.outcome

    def decide_short_pages(self, loop: int) -> list[Examined]:
        """Hayati's vote again for the loop's short pages that too few linking pages had
        voted on when they were fetched (a site's about page comes in the batch that
        brings the articles linking to it). A page this run examined is taken as it was
        examined; one from before a resume, or examined with another model, is read back
        as kept (bodies.py), no request. Returns those the vote decides now (to be
        recorded, and crawled out, like any page)."""
        min_votes, rules = self.config.crawl.min_votes, self.config.rules
        decided, unread = [], []
        for page in self.store.pages.short_pages(loop):
            voted = short_page_vote(self.store.frontier.referrers(page.url), min_votes)
            if voted is None:
                continue
            waiting = self.waiting.pop(page.id, None)
            if waiting is not None and waiting.model is self.model:
                examined = waiting.examined
            else:
                examined = examine_cached(page, self.store.root, self.model, rules)
                if examined.outcome.reason == MISSING:
                    unread.append(page)
            if examined.short_text is not None:
                decide_short(examined, voted, rules)
                decided.append(examined)
        note_unread("the short pages' vote", unread)
        return decided


def _waiting_copy(examined: Examined) -> Examined:
    """What the vote needs of a short page before it is decided: its outcome and text as
    examined, without its body and exchanges (kept by the settling)."""
    return Examined(
        examined.queued,
        replace(examined.outcome, warc=None, links=list(examined.outcome.links)),
        short_text=examined.short_text,
        short_paragraphs=list(examined.short_paragraphs),
        short_labels=list(examined.short_labels),
    )


def _counted_copy(outcome: PageOutcome) -> PageOutcome:
    """What `recount` needs to take a page out again: its status, reason, language."""
    return PageOutcome(
        outcome.page_id, outcome.site, outcome.status, outcome.reason, lang=outcome.lang
    )


def record_outcomes(store: Store, outcomes: Sequence[PageOutcome], max_distance: int = 3) -> None:
    """Record outcomes in one transaction, near-duplicates (within `max_distance`:
    dedup.max_distance) marked against the store's originals (for tests and benchmarks;
    a run records through `Settler.record`)."""
    originals = Deduplicator(max_distance, store.pages.exact_original)
    originals.add_all(stored_originals(store))
    with store.batch():
        write_outcomes(store, outcomes, originals)


def write_outcomes(
    store: Store, outcomes: Sequence[PageOutcome], originals: Deduplicator
) -> list[tuple[int, str, int]]:
    """Write outcomes inside a batch, each target document first compared with the
    originals (collie.decide.dedup.mark_duplicate), an original joining them; of a
    group of near-duplicates the page with the lowest URL is the original whatever the
    order they come in (dedup.comes_first): a new document that comes first displaces
    the original it matches, which becomes its near-duplicate with its own copies.
    Returns the displaced originals' (page id, site, new original's id)."""
    displaced: list[tuple[int, str, int]] = []
    pages = store.pages
    for outcome in outcomes:
        doc = outcome.document
        if doc is not None:
            doc.exact_key, doc.simhash, doc.sketch = fingerprints(doc)

        def first(original: int, page_id: int = outcome.page_id) -> bool:
            return comes_first(pages.page_url(page_id), pages.document_url(original))

        old = mark_duplicate(outcome, originals.find, first)
        doc_id = pages.write(outcome)
        if doc is not None and doc_id and doc.kind == "target" and doc.duplicate_of is None:
            assert doc.exact_key is not None and doc.simhash is not None
            if old is None:
                originals.add(doc_id, doc.exact_key, doc.simhash, doc.sketch)
                continue
            originals.replace(old, doc_id, doc.exact_key, doc.simhash, doc.sketch)
            moved = pages.displace_original(old, doc_id)
            if moved is not None:
                displaced.append((*moved, doc_id))
    return displaced


def stored_originals(store: Store) -> Iterator[tuple[int, int, ParagraphSketch]]:
    """The corpus's originals as the near-duplicate lookups take them: (id, simhash,
    paragraph sketch), the sketch computed from the paragraphs for documents recorded
    before sketches were stored."""
    for doc_id, fingerprint, stored, paragraphs in store.pages.original_fingerprints():
        yield doc_id, fingerprint, stored_sketch(stored, paragraphs)
