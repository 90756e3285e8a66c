"""The known-neighbour pass: a fitted target judged again beside its neighbours' web text.

A target the model knows is fitted to the user's documents (collie.langid.learn
.fit_language): a column of the user's register. A neighbour the model also knows
(Kinyarwanda beside Kirundi) has real text of other registers only, so on the web's
pages of the user's register the target may win its text (issue 59). This pass, at the
end of each loop, finds the neighbours' sites (`nearly_won`; the neighbours are the
known languages init found close to the target, collie.langid.neighbours): a site whose
text, taken together, the target leads the neighbour on by less than NEAR_WIN of its
lead on the user's held-back documents, measured at init with the model as fitted (a
paragraph may go either way by chance; a neighbour's site, read as a whole, is nearly
won by it). The neighbours' sites leave the corpus (their crawl stopped), and so does
any other page the same rule finds. Each neighbour gets a column of its sites' text
(`code/web`, drawn evenly over them, no bigger than the user's column: the two meet in
the same register with as much text), which the next pages are judged with; a model
whose web columns would cost more than MAX_RECALL_LOSS of the user's own paragraphs is
refused. The new model is the workspace's from then on.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from collie.files import atomic_path
from collie.langid.contrast import MIN_CONTRAST_LETTERS, draw, letters
from collie.langid.learn import (
    USER_COLUMN,
    split_paragraphs,
    workspace_model_path,
)
from collie.langid.model import NO_ANSWER, LangModel
from collie.langid.modelfile import save_model
from collie.langid.neighbours import leads
from collie.langid.train import add_language, remove_columns
from collie.models import SuspectRow

if TYPE_CHECKING:
    from collie.decide.classify import PageRules
    from collie.store import Store
    from collie.workspace.folder import Workspace

log = logging.getLogger(__name__)

WEB_COLUMN = "web"  # the register of a neighbour's column of the web's text
# A site is the neighbour's when the target leads it by less than this share of its lead
# on the user's documents (the news worlds: the target's sites 0.28 at least, the
# neighbours' 0.0 at most).
NEAR_WIN = 0.1
MAX_RECALL_LOSS = 0.02  # of the user's paragraphs the new model may lose


@dataclass
class NeighbourReport:
    used: dict[str, int] = field(default_factory=dict)  # neighbour -> letters of web text
    pages: int = 0  # corpus pages set aside
    sites: int = 0  # sites set aside as a neighbour's
    refused: bool = False

    def line(self, loop: int, target: str) -> str | None:
        refused = (
            f"the known neighbours' web text was not used to sharpen {target} (it cost too "
            "much recall on your documents); "
            if self.refused
            else ""
        )
        if not (self.used or self.pages or self.sites or self.refused):
            return None
        named = ", ".join(f"{code} ({n:,} letters)" for code, n in sorted(self.used.items()))
        learnt = (
            f"{target} judged beside the web's text of its known neighbours {named}; "
            if self.used
            else ""
        )
        return (
            f"loop {loop}: {refused}{learnt}{self.sites} sites and {self.pages} more pages "
            f"that a known neighbour nearly wins set aside"
        )


def is_fitted(model: LangModel, code: str) -> bool:
    """Was the known target `code` fitted to the user's documents (a `code/user` column)?"""
    return any(c == f"{code}/{USER_COLUMN}" for c in model.columns)


def known_neighbours(model: LangModel, code: str) -> dict[str, float]:
    """The known languages init found close to the fitted target, with the share of the
    user's held-back paragraphs the bundled model took for each (meta "neighbours")."""
    near: dict[str, float] = model.meta.get("neighbours", {}).get(code, {})
    return {c: float(share) for c, share in sorted(near.items()) if c in model.codes}


def learn_neighbours(
    ws: Workspace, store: Store, model: LangModel, rules: PageRules
) -> tuple[LangModel, NeighbourReport]:
    """The pass (module docstring): (the model to go on with, what it did)."""
    report = NeighbourReport()
    code = rules.target
    near = known_neighbours(model, code)
    if not is_fitted(model, code) or not near:
        return model, report
    measured: dict[str, float] = model.meta.get("neighbour_margins", {}).get(code, {})
    lead = {c: v for c, v in measured.items() if c in near}
    texts = _site_texts(store, set(near))
    # The yardstick was measured without the web's columns: so are the sites.
    fitted = remove_columns(model, {c for c in model.columns if c.endswith(f"/{WEB_COLUMN}")})
    sites = nearly_won(fitted, code, lead, texts)
    done: dict[str, int] = model.meta.get("neighbour_web", {})
    budget = model.sizes[model.columns.index(f"{code}/{USER_COLUMN}")]
    new, used = model, {}
    for other in sorted(set(sites.values())):
        drawn = draw({s: texts[s] for s, n in sites.items() if n == other}, budget)
        count = sum(letters(t) for t in drawn)
        if count < MIN_CONTRAST_LETTERS or count <= done.get(other, 0):
            continue
        paragraphs = [p for t in drawn for p in split_paragraphs(t)]
        new = add_language(new, other, paragraphs, column=WEB_COLUMN)
        used[other] = count
    if used:
        new = new.with_settings(model.threshold, model.min_chars)
        new.meta["neighbour_web"] = {**done, **used}
        mine = [p for t in ws.seed_texts("target") for p in split_paragraphs(t)]
        before, after = _share(model, code, mine), _share(new, code, mine)
        if after < before - MAX_RECALL_LOSS:
            report.refused = True
            log.info("neighbours: web columns refused (seed recall %.3f -> %.3f)", before, after)
            new, used = model, {}
    report.used = used
    corpus_sites = {site for _, site, *_ in store.sites.corpus_paragraphs()}
    for site in sorted(corpus_sites & set(sites)):
        count = store.sites.suspect_site(site, 0.0)
        log.info("%s: a site of %s's (%d documents set aside)", site, sites[site], count)
        report.sites += 1
    report.pages = _set_aside_pages(store, fitted, code, lead)
    if used:
        with atomic_path(workspace_model_path(ws.root)) as partial:
            save_model(new, partial)
    elif report.sites or report.pages:  # the same model, the corpus changed: a new object
        new = model.with_settings(model.threshold, model.min_chars)
    return new, report


def _site_texts(store: Store, neighbours: set[str]) -> dict[str, list[str]]:
    """site -> the texts of its corpus documents and of its wrong-language documents in
    the neighbours' languages."""
    texts: dict[str, list[str]] = {}
    for _, site, text, _, _ in store.sites.corpus_paragraphs():
        texts.setdefault(site, []).append(text)
    for other in sorted(neighbours):
        for site, found in store.sites.wronglang_texts(other).items():
            texts.setdefault(site, []).extend(found)
    return texts


def nearly_won(
    model: LangModel, code: str, lead: dict[str, float], groups: dict[str, list[str]]
) -> dict[str, str]:
    """group (a site, a page) -> the known neighbour that nearly wins its texts taken
    together: the target leads it there by less than NEAR_WIN of its lead on the user's
    held-back documents (`lead`, measured at init: collie.langid.neighbours.margins); of
    several, the nearest."""
    keys = sorted(groups)
    number = {key: i for i, key in enumerate(keys)}
    owner, paragraphs = [], []
    for key in keys:
        for text in groups[key]:
            for paragraph in split_paragraphs(text):
                owner.append(number[key])
                paragraphs.append(paragraph)
    others = [o for o, yardstick in sorted(lead.items()) if yardstick > 0]
    if not paragraphs or not others:
        return {}
    values, letters = leads(model, code, others, paragraphs)
    index = np.asarray(owner, np.int64)
    weight = np.bincount(index, weights=letters, minlength=len(keys))
    found: dict[str, str] = {}
    nearest: dict[str, float] = {}
    for other in others:
        total = np.bincount(index, weights=values[other] * letters, minlength=len(keys))
        ratio = total / np.maximum(weight, 1) / lead[other]
        for i in np.flatnonzero((weight > 0) & (ratio < NEAR_WIN)):
            key = keys[i]
            if key not in nearest or ratio[i] < nearest[key]:
                found[key], nearest[key] = other, float(ratio[i])
    return found


def _set_aside_pages(store: Store, model: LangModel, code: str, lead: dict[str, float]) -> int:
    """The corpus's pages (on any site) that a neighbour nearly wins, as their sites
    are judged (`nearly_won`), set aside as relative-suspected. Returns how many."""
    pages = store.sites.corpus_paragraphs()
    groups = {str(page_id): [text] for page_id, _, text, _, _ in pages}
    found = nearly_won(model, code, lead, groups)
    suspected = []
    for page_id, _, text, paragraphs, words in pages:
        if str(page_id) in found:
            marked = [(*p[:3], p[1] in NO_ANSWER) for p in paragraphs]
            suspected.append((page_id, SuspectRow("page", 0.0, text, marked, words)))
    if suspected:
        store.sites.judge_again([], suspected, {})
    return len(suspected)


def _share(model: LangModel, code: str, paragraphs: list[str]) -> float:
    labels = [c for c, _ in model.identify_batch(paragraphs)]
    return sum(c == code for c in labels) / max(len(labels), 1)
