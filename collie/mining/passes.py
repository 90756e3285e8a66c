"""The passes that judge a loop's pages again once no more are coming in: the short
pages' vote again (settle.py), the relatives pass (relatives.py) and the teaser pass
(teasers.py), the one place both ways into a loop call them, so that a page gets the
same decision however it came in.

The loop (loop.py) asks for the vote and the relatives pass whenever its frontier is
empty (the pages they restore may link to more, which it then fetches) and for the
teaser pass at the loop's end; a scan (scan.py) asks for all of them once its files are
recorded (`settle_loop`), so that its corpus is the one a run would keep. The relatives
pass runs at most MAX_PASSES times a loop; the model it learns is the settler's from
then on (the caller hands it to whatever examines pages next).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from collie.langid.model import LangModel
from collie.mining.neighbours import NeighbourReport, learn_neighbours
from collie.mining.provenance import stamped_figures
from collie.mining.records import LoopReport, RunEvents
from collie.mining.relatives import RelativesReport, learn_relatives, pages_to_restore
from collie.mining.settle import Settler
from collie.mining.teasers import mark_teasers

if TYPE_CHECKING:  # types only: the caller hands these in
    from collie.workspace.folder import Workspace

MAX_PASSES = 3  # relatives passes per loop, once the frontier is empty


@dataclass
class PassCount:
    """What the passes changed in a loop (for a scan's report)."""

    voted: int = 0  # short pages the vote decided
    relatives: int = 0  # relatives passes that learnt a new model
    set_aside: int = 0  # corpus pages the relatives pass set aside as a relative's
    restored: int = 0  # pages suspected on their own that it gave back
    teasers: int = 0  # documents left with nothing of their own (dropped as teasers)


class LoopPasses:
    """A loop's passes over its recorded pages (module docstring), on the run's settler."""

    def __init__(self, ws: Workspace, settler: Settler, events: RunEvents) -> None:
        self.ws, self.settler, self.events = ws, settler, events
        self.relatives_passes = 0  # in this loop (the frontier may empty more than once)
        self.count = PassCount()

    @property
    def model(self) -> LangModel:
        """The model pages are judged with (a relatives pass may have learnt a new one)."""
        return self.settler.model

    def new_loop(self) -> None:
        self.relatives_passes = 0
        self.count = PassCount()

    def settle_loop(self, report: LoopReport) -> PassCount:
        """Every pass, as a loop runs them once nothing is left to fetch: the vote and
        the relatives pass until neither changes a page, then the teaser pass."""
        while self.revote_short(report) or self.learn_relatives(report):
            pass
        self.mark_teasers()
        return self.count

    def revote_short(self, report: LoopReport) -> int:
        """The loop's short pages that the vote decides now (Settler.decide_short_pages),
        recorded, counted again and crawled out, like any page. Returns how many."""
        decided = self.settler.decide_short_pages(report.number)
        if not decided:
            return 0
        outcomes = [e.outcome for e in decided]
        self.settler.record(outcomes, {e.queued.id: e.queued for e in decided}, report.number)
        self.settler.recount(report, outcomes)
        self.count.voted += len(outcomes)
        return len(outcomes)

    def learn_relatives(self, report: LoopReport) -> int:
        """The relatives pass (relatives.py); the settler gets its model. With a new
        model, the pages suspected on their own are examined again from their kept
        bodies: those on target sites that now pass are recorded (and crawled out) like
        any page. Returns how many were."""
        if self.relatives_passes >= MAX_PASSES:
            return 0
        self.relatives_passes += 1
        settler, store, config = self.settler, self.settler.store, self.settler.config
        old, rules = settler.model, config.rules
        done: RelativesReport | NeighbourReport
        model, done = learn_relatives(self.ws, store, old, rules, config.langid_hide)
        if model is old and done.contrast is None and not done.refused:  # a fitted target
            model, done = learn_neighbours(self.ws, store, old, rules)
        line = done.line(report.number, config.target)
        if line:
            self.events.line(line)
        if model is old:
            return 0  # nothing learnt, nothing judged again
        self.count.relatives += 1
        self.count.set_aside += done.pages
        settler.forget_originals()  # documents may have left the corpus
        settler.use_model(model)
        # the corpus's paragraphs were labelled again by the new model: its provenance
        pages = [
            (page_id, paragraphs)
            for page_id, _, _, paragraphs, _ in store.sites.corpus_paragraphs()
        ]
        store.pages.set_langid(stamped_figures(settler.model_stamp(), pages))
        restored = pages_to_restore(store, model, rules)
        if not restored:
            return 0
        freed = set(store.sites.forget_suspects([e.queued.id for e in restored]))
        by_id = {e.queued.id: e.queued for e in restored if e.queued.id in freed}
        outcomes = [e.outcome for e in restored if e.queued.id in freed]
        if not outcomes:
            return 0
        settler.record(outcomes, by_id, report.number)
        settler.recount(report, outcomes)
        self.count.restored += len(outcomes)
        self.events.line(
            f"loop {report.number}: pages suspected on their own but found to be "
            f"{config.target} after all (their sites are): {len(outcomes)}"
        )
        return len(outcomes)

    def mark_teasers(self) -> int:
        """The teaser pass (teasers.py) at the end of a loop, or of a run that stops: one
        transaction; the near-duplicate lookups are built again when pages moved.
        Returns how many documents it left with nothing of their own."""
        store, config = self.settler.store, self.settler.config
        with store.batch():
            done = mark_teasers(store.pages, config.keep.teasers, config.crawl.short_page_chars)
        if done.changed:
            self.settler.forget_originals()  # pages left the corpus, or came back
        self.count.teasers = done.pages
        return done.pages
