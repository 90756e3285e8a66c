"""The known-neighbour pass: a fitted target judged again beside its neighbours' web text.

A target the model knows is fitted to the user's documents (collie.langid.learn
.fit_language): a column of the user's register. A neighbour the model also knows
(Kinyarwanda beside Kirundi) has real text of other registers only, so on the web's
pages of the user's register the target may win its text (issue 59). This pass, at the
end of each loop, gives each known neighbour (collie.langid.neighbours.candidates: the
languages close to the target on the user's documents, stored at init) a column of its
own web text (`code/web`: the loop's wrong-language documents labelled with it on the
sites that are mostly the neighbour's, drawn evenly over those sites, no bigger than the
user's column), so that both meet in the
same register. Then the corpus is judged again with that model: a site whose
target-like letters the neighbour now takes NEIGHBOUR_SITE_SHARE of is a neighbour's
site as a whole (set aside, its crawl stopped), and every other page is judged alone by
langid.min_share (relatives.judge_corpus). A model that would cost more than
MAX_RECALL_LOSS of the user's own paragraphs is refused. The new model is the
workspace's from then on.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from collie.files import atomic_path
from collie.langid.contrast import MIN_CONTRAST_LETTERS, draw, letters
from collie.langid.learn import (
    USER_COLUMN,
    column_budget,
    split_paragraphs,
    workspace_model_path,
)
from collie.langid.model import LangModel
from collie.langid.modelfile import save_model
from collie.langid.train import add_language
from collie.mining.relatives import judge_corpus

if TYPE_CHECKING:
    from collie.decide.classify import PageRules
    from collie.store.sites import SiteStore
    from collie.workspace.folder import Workspace

log = logging.getLogger(__name__)

WEB_COLUMN = "web"  # the register of a neighbour's column of the web's text
NEIGHBOUR_SITE_SHARE = 0.5  # of a site's target-like letters the neighbour takes
MAX_RECALL_LOSS = 0.02  # of the user's paragraphs the new model may lose
SITE_RATIO = 2  # a site lends its neighbour's pages when they hold this many times its target's


@dataclass
class NeighbourReport:
    used: dict[str, int] = field(default_factory=dict)  # neighbour -> letters of web text
    pages: int = 0  # corpus pages set aside
    sites: int = 0  # sites set aside as a neighbour's
    refused: bool = False

    def line(self, loop: int, target: str) -> str | None:
        if self.refused:
            return (
                f"loop {loop}: the known neighbours' pages were not used to sharpen {target}: "
                "they cost too much recall on your documents"
            )
        if not self.used:
            return None
        named = ", ".join(f"{code} ({n:,} letters)" for code, n in sorted(self.used.items()))
        return (
            f"loop {loop}: {target} judged again beside the web's text of its known "
            f"neighbours {named}: {self.pages} pages and {self.sites} sites set aside"
        )


def is_fitted(model: LangModel, code: str) -> bool:
    """Was the known target `code` fitted to the user's documents (a `code/user` column)?"""
    return any(c == f"{code}/{USER_COLUMN}" for c in model.columns)


def known_neighbours(model: LangModel, code: str) -> list[str]:
    """The known languages init found close to the fitted target (meta "neighbours")."""
    return sorted(c for c in model.meta.get("neighbours", {}).get(code, {}) if c in model.codes)


def learn_neighbours(
    ws: Workspace, store: SiteStore, model: LangModel, rules: PageRules
) -> tuple[LangModel, NeighbourReport]:
    """The pass (module docstring): (the model to go on with, what it did)."""
    report = NeighbourReport()
    code = rules.target
    if not is_fitted(model, code):
        return model, report
    done: dict[str, int] = model.meta.get("neighbour_web", {})
    budget = column_budget(model)
    new, used = model, {}
    elsewhere: Counter[str] = Counter()  # letters of the neighbours' pages, by site
    targets = _target_letters(store, code)
    for other in known_neighbours(model, code):
        by_site = store.wronglang_texts(other)
        sizes = {site: sum(letters(t) for t in texts) for site, texts in by_site.items()}
        elsewhere.update(sizes)
        # A target site's page taken for the neighbour is no text of the neighbour's: its
        # column learns from the sites that are mostly the neighbour's.
        theirs = {s: t for s, t in by_site.items() if sizes[s] >= SITE_RATIO * targets[s]}
        texts = draw(theirs, budget)
        count = sum(letters(t) for t in texts)
        if count < MIN_CONTRAST_LETTERS or count <= done.get(other, 0):
            continue
        paragraphs = [p for t in texts for p in split_paragraphs(t)]
        new = add_language(new, other, paragraphs, column=WEB_COLUMN)
        used[other] = count
    if not used:
        return model, report
    new = new.with_settings(model.threshold, model.min_chars)
    new.meta["neighbour_web"] = {**done, **used}
    mine = [p for t in ws.seed_texts("target") for p in split_paragraphs(t)]
    before = _share(model, code, mine)
    after = _share(new, code, mine)
    if after < before - MAX_RECALL_LOSS:
        report.refused = True
        log.info("neighbours: refused (recall on the seed documents %.3f -> %.3f)", before, after)
        return model, report
    report.used = used
    report.sites = _neighbour_sites(
        store, new, rules, set(known_neighbours(model, code)), elsewhere
    )
    pages, _ = judge_corpus(store, new, rules)
    report.pages = pages
    with atomic_path(workspace_model_path(ws.root)) as partial:
        save_model(new, partial)
    return new, report


def _target_letters(store: SiteStore, code: str) -> Counter[str]:
    """Letters of the corpus's paragraphs labelled `code`, by site (as stored)."""
    found: Counter[str] = Counter()
    for _, site, _, paragraphs, _ in store.corpus_paragraphs():
        found[site] += sum(letters(p[0]) for p in paragraphs if p[1] == code)
    return found


def _share(model: LangModel, code: str, paragraphs: list[str]) -> float:
    labels = [c for c, _ in model.identify_batch(paragraphs)]
    return sum(c == code for c in labels) / max(len(labels), 1)


def _neighbour_sites(
    store: SiteStore,
    model: LangModel,
    rules: PageRules,
    neighbours: set[str],
    elsewhere: Counter[str],
) -> int:
    """Set aside the corpus's sites whose letters in the target and its neighbours (the
    corpus's pages, labelled again, and the neighbours' pages there, `elsewhere`) the
    neighbours take NEIGHBOUR_SITE_SHARE of. Returns how many."""
    pages = store.corpus_paragraphs()
    texts = [p[0] for *_, paragraphs, _ in pages for p in paragraphs]
    labels = iter(model.identify_batch(texts))
    mine: Counter[str] = Counter()
    theirs: Counter[str] = Counter(elsewhere)
    for _, site, _, paragraphs, _ in pages:
        for paragraph in paragraphs:
            label, _ = next(labels)
            count = letters(paragraph[0])
            mine[site] += count if label == rules.target else 0
            theirs[site] += count if label in neighbours else 0
    found = 0
    for site in sorted(mine):
        like = mine[site] + theirs[site]
        if theirs[site] and theirs[site] >= NEIGHBOUR_SITE_SHARE * like:
            count = store.suspect_site(site, mine[site] / like)
            log.info("%s: a known neighbour's site (%d documents set aside)", site, count)
            found += 1
    return found
