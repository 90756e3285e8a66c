"""The known-neighbour pass: a fitted target judged again beside its neighbours' web text.

A target the model knows is fitted to the user's documents (collie.langid.learn
.fit_language): a column of the user's register. A neighbour the model also knows
(Kinyarwanda beside Kirundi) has real text of other registers only, so on the web's
pages of the user's register the target may win its text (issue 59). This pass, at the
end of each loop, finds the neighbours' sites (`neighbour_sites`; the neighbours are the
known languages init found close to the target, collie.langid.neighbours): a site whose
text, taken together, the target leads the neighbour on by less than NEAR_WIN of its
lead on the user's held-back documents, measured at init (a page may go either way by
chance; a site of the neighbour's, read as a whole, is nearly won by it). Each
neighbour gets a column of its sites' text (`code/web`, drawn evenly over them, no
bigger than the user's column: the two meet in the same register with as much text),
the neighbours' sites leave the corpus (their crawl stopped), and every other page is
judged again with the new model by langid.min_share (relatives.judge_corpus). A model
that would cost more than MAX_RECALL_LOSS of the user's own paragraphs is refused. The
new model is the workspace's from then on.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from collie.files import atomic_path
from collie.langid.contrast import MIN_CONTRAST_LETTERS, draw, letters
from collie.langid.learn import (
    USER_COLUMN,
    split_paragraphs,
    workspace_model_path,
)
from collie.langid.model import LangModel
from collie.langid.modelfile import save_model
from collie.langid.neighbours import margin
from collie.langid.train import add_language, remove_columns
from collie.mining.relatives import judge_corpus

if TYPE_CHECKING:
    from collie.decide.classify import PageRules
    from collie.store.sites import SiteStore
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


def known_neighbours(model: LangModel, code: str) -> dict[str, float]:
    """The known languages init found close to the fitted target, with the share of the
    user's held-back paragraphs the bundled model took for each (meta "neighbours")."""
    near: dict[str, float] = model.meta.get("neighbours", {}).get(code, {})
    return {c: float(share) for c, share in sorted(near.items()) if c in model.codes}


def learn_neighbours(
    ws: Workspace, store: SiteStore, model: LangModel, rules: PageRules
) -> tuple[LangModel, NeighbourReport]:
    """The pass (module docstring): (the model to go on with, what it did)."""
    report = NeighbourReport()
    code = rules.target
    near = known_neighbours(model, code)
    if not is_fitted(model, code) or not near:
        return model, report
    lead = {c: v for c, v in model.meta.get("neighbour_margins", {}).get(code, {}).items()
            if c in near}  # fmt: skip
    texts = _site_texts(store, set(near))
    # The yardstick was measured without the web's columns: so are the sites.
    fitted = remove_columns(model, {c for c in model.columns if c.endswith(f"/{WEB_COLUMN}")})
    sites = neighbour_sites(fitted, code, lead, texts)
    done: dict[str, int] = model.meta.get("neighbour_web", {})
    budget = model.sizes[model.columns.index(f"{code}/{USER_COLUMN}")]
    new, used = model, {}
    for other in sorted({n for n in sites.values()}):
        drawn = draw({s: texts[s] for s, n in sites.items() if n == other}, budget)
        count = sum(letters(t) for t in drawn)
        if count < MIN_CONTRAST_LETTERS or count <= done.get(other, 0):
            continue
        paragraphs = [p for t in drawn for p in split_paragraphs(t)]
        new = add_language(new, other, paragraphs, column=WEB_COLUMN)
        used[other] = count
    if not used:
        return model, report
    new = new.with_settings(model.threshold, model.min_chars)
    new.meta["neighbour_web"] = {**done, **used}
    mine = [p for t in ws.seed_texts("target") for p in split_paragraphs(t)]
    before, after = _share(model, code, mine), _share(new, code, mine)
    if after < before - MAX_RECALL_LOSS:
        report.refused = True
        log.info("neighbours: refused (recall on the seed documents %.3f -> %.3f)", before, after)
        return model, report
    report.used = used
    corpus_sites = {site for _, site, *_ in store.corpus_paragraphs()}
    for site in sorted(corpus_sites & set(sites)):
        count = store.suspect_site(site, 0.0)
        log.info("%s: a site of %s's (%d documents set aside)", site, sites[site], count)
        report.sites += 1
    pages, _ = judge_corpus(store, new, rules)
    report.pages = pages
    with atomic_path(workspace_model_path(ws.root)) as partial:
        save_model(new, partial)
    return new, report


def _site_texts(store: SiteStore, neighbours: set[str]) -> dict[str, list[str]]:
    """site -> the texts of its corpus documents and of its wrong-language documents in
    the neighbours' languages."""
    texts: dict[str, list[str]] = {}
    for _, site, text, _, _ in store.corpus_paragraphs():
        texts.setdefault(site, []).append(text)
    for other in sorted(neighbours):
        for site, found in store.wronglang_texts(other).items():
            texts.setdefault(site, []).extend(found)
    return texts


def neighbour_sites(
    model: LangModel, code: str, lead: dict[str, float], texts: dict[str, list[str]]
) -> dict[str, str]:
    """site -> the known neighbour it belongs to: a site whose text, taken together, the
    target leads the neighbour on by less than NEAR_WIN of its lead on the user's
    held-back documents (`lead`, measured at init: collie.langid.neighbours.margins),
    the neighbour nearly winning it (of several, the nearest)."""
    found = {}
    for site in sorted(texts):
        paragraphs = [p for t in texts[site] for p in split_paragraphs(t)]
        ratios = []
        for other, yardstick in sorted(lead.items()):
            value = margin(model, code, other, paragraphs) if yardstick > 0 else None
            if value is not None and value < NEAR_WIN * yardstick:
                ratios.append((value / yardstick, other))
        if ratios:
            found[site] = min(ratios)[1]
    return found


def _share(model: LangModel, code: str, paragraphs: list[str]) -> float:
    labels = [c for c, _ in model.identify_batch(paragraphs)]
    return sum(c == code for c in labels) / max(len(labels), 1)
