"""The relatives pass at the end of each loop: the target learnt again against the
relatives' text the loop found, and the corpus judged again with it.

During a loop, pages and sites whose target-like text mostly fails the learnt target's
open-set tests are set aside as relative-suspected (classify.relative_page and
relative_site). Those tests alone let much of a close relative's text through (an
unseen relative shares most of the target's n-grams). At the end of the loop their text
becomes a contrast class (collie.langid.contrast); the corpus's pages are labelled
again by the new model, pages and sites that now fail join the suspects, and with
their text the class is learnt again (at most MAX_ROUNDS times, while pages move).
The new model is the workspace's model from then on: the next loop meets the
relatives' pages with it. Each round is one transaction; the model file is replaced
only after, so a run killed meanwhile redoes the pass on resume.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from collie.archive.bodies import note_unread
from collie.decide.classify import (
    SITE_MIN_LETTERS,
    SITE_OWN_LETTERS,
    PageRules,
    is_learnt,
    judge_with_site,
    relative_page,
    relative_site,
    target_site,
)
from collie.files import atomic_path
from collie.langid.contrast import (
    MIN_CONTRAST_LETTERS,
    Contrast,
    contrast_budget,
    contrast_of,
    draw,
    learn_against,
    letters,
)
from collie.langid.learn import (
    base_model,
    learn_language,
    relearn,
    split_paragraphs,
    workspace_model_path,
)
from collie.langid.model import OTHER, UNDETERMINED, LangModel
from collie.langid.modelfile import save_model
from collie.mining.examine import MISSING, examine_cached
from collie.models import Examined, PageOutcome, SuspectRow

if TYPE_CHECKING:  # types only: the caller hands these in
    from collie.store import Store
    from collie.workspace.folder import Workspace


log = logging.getLogger(__name__)

MAX_ROUNDS = 2


@dataclass
class RelativesReport:
    contrast: Contrast | None = None  # the contrast of the last model learnt
    pages: int = 0  # corpus pages set aside as relative-suspected by the pass
    refused: bool = False  # the contrast would have cost too much recall: not used

    def line(self, loop: int, target: str) -> str | None:
        if self.refused:
            return (
                f"loop {loop}: the relatives' pages found were not used to sharpen "
                f"{target}: learning against them cost too much recall on your "
                "documents (some may be in the target: `collie review`)"
            )
        if self.contrast is None:
            return None
        c = self.contrast
        return (
            f"loop {loop}: {target} learnt again against {c.used:,} letters of "
            f"relatives' text from {c.sites} sites (recall on your held-back documents "
            f"{c.recall:.1%}, {c.recall_without:.1%} without); {self.pages} more pages "
            f"set aside as relative-suspected"
        )


def _seed_texts(ws: Workspace) -> tuple[list[str], dict[str | None, list[str]]]:
    wronglang: dict[str | None, list[str]] = {}
    for row in ws.seed_documents("wronglang"):
        wronglang.setdefault(row["lang"], []).append(ws.path(row["path"]).read_text("utf-8"))
    return ws.seed_texts("target"), wronglang


def _suspect_texts(store: Store, rules: PageRules) -> tuple[dict[str, list[str]], int]:
    """The relative-suspected pages' text by site, of the sites that are not the
    target's, and its letters."""
    suspects: dict[str, list[str]] = {}
    for site, text, _ in store.sites.suspect_paragraphs():
        if not target_site(*store.sites.site_letters(site), rules):
            suspects.setdefault(site, []).append(text)
    return suspects, sum(letters(t) for texts in suspects.values() for t in texts)


def _recall_without(model: LangModel, code: str) -> float | None:
    """The held-back recall of the target without a contrast: recorded with the model's
    contrast, else the model's own (None: not recorded)."""
    own = contrast_of(model, code) or {"recall_without": model.meta.get("recall", {}).get(code)}
    value = own.get("recall_without")
    return None if value is None else float(value)


def learn_relatives(
    ws: Workspace, store: Store, model: LangModel, rules: PageRules, hide: Sequence[str] = ()
) -> tuple[LangModel, RelativesReport]:
    """The pass (see the module's docstring): (the model to go on with, what it did).
    `hide`: the languages taken out of the bundled model at init (langid.hide)."""
    report = RelativesReport()
    code = rules.target
    if not rules.min_pass or not is_learnt(model, code):
        return model, report
    started = time.monotonic()
    base = targets = wronglang = None
    recall_without: float | None = None
    for _ in range(MAX_ROUNDS):
        suspects, available = _suspect_texts(store, rules)
        learnt = contrast_of(model, code)
        if learnt and learnt["letters"] == available:
            break  # nothing new since the model was learnt
        if available < MIN_CONTRAST_LETTERS:
            break  # too little to learn from (learn_against would say so, after relearning)
        if base is None:
            base = base_model(list(hide))
            targets, wronglang = _seed_texts(ws)
            recall_without = _recall_without(model, code)
            if recall_without is None:
                recall_without = learn_language(base, code, targets, wronglang).recall
        assert targets is not None and wronglang is not None
        relatives = relatives_sites(
            base, code, targets, wronglang, rules, suspects, store.sites.corpus_paragraphs(), model
        )
        by_site = {site: texts for site, texts in suspects.items() if site in relatives}
        result = learn_against(
            base, code, targets, wronglang, by_site, recall_without, seen=available
        )
        if result is None:
            offered = sum(letters(t) for texts in by_site.values() for t in texts)
            report.refused = offered >= MIN_CONTRAST_LETTERS and report.contrast is None
            break
        learnt_model = result[0].model.with_settings(model.threshold, model.min_chars)
        model, report.contrast = learnt_model, result[1]
        log.info(
            "relatives: learnt against %d letters from %d sites (%.1f s in the pass)",
            result[1].used,
            result[1].sites,
            time.monotonic() - started,
        )
        pages, _ = judge_corpus(store, model, rules)
        report.pages += pages
        if not pages:
            break
    if report.contrast is not None:
        path = workspace_model_path(ws.root)
        with atomic_path(path) as partial:
            save_model(model, partial)
    return model, report


def search_contrast(
    ws: Workspace, store: Store, model: LangModel, rules: PageRules, hide: Sequence[str] = ()
) -> LangModel | None:
    """The target learnt against the relatives' text found so far in the loop, for the
    search stage's judgement of its results only (loop.py, during the search): the
    pass's first round without its verdicts. It judges no page, sets no site aside and
    is not saved: a contrast learnt from a few sites' pages may take a target site for a
    relative's (measured on the news world: a Zulu site's crawl stopped, -0.07 recall),
    while a snippet judged wrongly only moves the search's estimate. The pass at the
    loop's end, with all its text, judges the corpus. None when there is nothing to
    learn (no learnt target, too little text, too much recall lost on the seed
    documents)."""
    code = rules.target
    if not rules.min_pass or not is_learnt(model, code):
        return None
    suspects, available = _suspect_texts(store, rules)
    learnt = contrast_of(model, code)
    if available < MIN_CONTRAST_LETTERS or (learnt and learnt["letters"] >= available):
        return None
    base = base_model(list(hide))
    targets, wronglang = _seed_texts(ws)
    recall_without = _recall_without(model, code)
    relatives = relatives_sites(
        base, code, targets, wronglang, rules, suspects, store.sites.corpus_paragraphs(), model
    )
    by_site = {site: texts for site, texts in suspects.items() if site in relatives}
    result = learn_against(base, code, targets, wronglang, by_site, recall_without, available)
    if result is None:
        return None
    log.info(
        "relatives: the search's results judged against %d letters from %d sites",
        result[1].used,
        result[1].sites,
    )
    return result[0].model.with_settings(model.threshold, model.min_chars)


FOLDS = 3


def relatives_sites(
    base: LangModel,
    code: str,
    targets: list[str],
    wronglang: dict[str | None, list[str]],
    rules: PageRules,
    suspects: dict[str, list[str]],
    corpus: list[tuple[int, str, str, list[Any], int]],
    tests: LangModel,
) -> set[str]:
    """The sites with suspected pages that are relatives' sites as a whole: each judged
    on all its pages (suspected and in the corpus) by the target learnt against the
    other sites' suspected text (FOLDS folds of sites, so that a site is never judged
    by a model that has learnt its own text as the contrast). A target site with a few
    pages suspected by chance passes; its pages are not made the contrast."""
    sites = sorted(suspects)
    pages: dict[str, list[str]] = {site: list(texts) for site, texts in suspects.items()}
    for _, site, text, _, _ in corpus:
        if site in pages:
            pages[site].append(text)
    folds = max(1, min(FOLDS, len(sites)))
    budget = contrast_budget(targets)
    found: set[str] = set()
    for fold in range(folds):
        judged = sites[fold::folds]
        others = {s: suspects[s] for s in sites if s not in judged}
        negatives = {k: list(v) for k, v in wronglang.items()}
        negatives[None] = [*negatives.get(None, []), *draw(others, budget)]
        model = relearn(base, code, targets, negatives, tests).with_settings(
            tests.threshold, tests.min_chars
        )
        for site in judged:
            paragraphs = [p for text in pages[site] for p in split_paragraphs(text)]
            mine = near = 0
            for paragraph, (label, _, nearest) in zip(
                paragraphs, model.identify_nearest(paragraphs), strict=True
            ):
                count = letters(paragraph)
                mine += count if label == code else 0
                near += count if label == UNDETERMINED and nearest in (code, OTHER) else 0
            if mine + near and mine < rules.min_pass * (mine + near):
                found.add(site)
    return found


def judge_corpus(store: Store, model: LangModel, rules: PageRules) -> tuple[int, int]:
    """Label the corpus's paragraphs again with `model`, set aside the pages and sites
    that now look like relatives (classify.py's rules: a page on a target site is judged
    with its site, by langid.min_share alone, and with langid.site_own_text, when it
    fails on its own, only if SITE_OWN_LETTERS of it are the target's); (pages, sites)
    set aside."""
    pages = store.sites.corpus_paragraphs()
    texts = [p[0] for _, _, _, paragraphs, _ in pages for p in paragraphs]
    labels = iter(model.identify_nearest(texts))
    site_mine: Counter[str] = Counter()
    site_near: Counter[str] = Counter()
    judged = []
    for page_id, site, text, paragraphs, words in pages:
        new = []
        mine = near = own = total = 0
        for paragraph in paragraphs:
            code, prob, nearest = next(labels)
            count = letters(paragraph[0])
            is_near = code == UNDETERMINED and nearest in (rules.target, OTHER)
            mine += count if code == rules.target else 0
            near += count if is_near else 0
            own += count if is_near and nearest == rules.target else 0
            total += count
            new.append((paragraph[0], code, round(prob, 4), is_near))
        site_mine[site] += mine
        site_near[site] += near
        judged.append((page_id, site, text, words, new, (mine, near, own, total)))
    for site, _, paragraphs in store.sites.suspect_paragraphs():
        for paragraph in paragraphs:
            count = letters(paragraph[0])
            site_mine[site] += count if paragraph[1] == rules.target else 0
            site_near[site] += count if len(paragraph) > 3 and paragraph[3] else 0
    site_letters = {site: (site_mine[site], site_near[site]) for site in site_mine | site_near}
    relabelled: list[tuple[int, list[Any], float]] = []
    suspected: list[tuple[int, SuspectRow]] = []
    for page_id, site, text, words, new, (mine, near, own, total) in judged:
        alone = mine < rules.min_share * max(total, 1) or relative_page(mine, near, total, rules)
        if target_site(*site_letters[site], rules):  # judged with its site: judge_with_site
            lifted = alone and rules.site_own_text and mine < SITE_OWN_LETTERS
            fails = mine + own < rules.min_share * max(total, 1) or lifted
        else:
            fails = alone
        if fails:
            share = mine / max(mine + near, 1)
            suspected.append((page_id, SuspectRow("page", share, text, new, words)))
        else:
            relabelled.append((page_id, [p[:3] for p in new], mine / max(total, 1)))
    store.sites.judge_again(relabelled, suspected, site_letters)
    moved = {page_id for page_id, _ in suspected}
    corpus_sites = {site for page_id, site, *_ in pages if page_id not in moved}
    least = SITE_MIN_LETTERS // 2  # the model now knows the relatives: less text will do
    sites = [
        site for site in sorted(corpus_sites) if relative_site(*site_letters[site], rules, least)
    ]
    demoted = 0
    for site in sites:
        mine, near = site_letters[site]
        count = store.sites.suspect_site(site, mine / (mine + near))
        log.info("%s: relative-suspected site (%d documents set aside)", site, count)
        demoted += count
    return len(suspected) + demoted, len(sites)


def judge_with_sites(
    store: Store, model: LangModel, rules: PageRules, outcomes: Sequence[PageOutcome]
) -> None:
    """A page relative-suspected on its own, on a site already known as the target's,
    is judged with its site (classify.judge_with_site), once the model has learnt the
    relatives' text (before, a relative's site can look like the target's)."""
    if contrast_of(model, rules.target) is None:
        return
    for outcome in outcomes:
        alone = outcome.suspect is not None and outcome.suspect.level == "page"
        if alone and target_site(*store.sites.site_letters(outcome.site), rules):
            judge_with_site(outcome, rules, model)


def suspect_sites(store: Store, rules: PageRules, sites: set[str]) -> int:
    """Stop crawling the relatives' sites among `sites` (classify.relative_site); their
    target documents become relative-suspected. Returns how many sites."""
    found = 0
    for site in sorted(sites):
        mine, near = store.sites.site_letters(site)
        if not relative_site(mine, near, rules) or store.sites.site_counts(site)[2] is not None:
            continue
        demoted = store.sites.suspect_site(site, mine / (mine + near))
        log.info("%s: relative-suspected site (%d documents set aside)", site, demoted)
        found += 1
    return found


def pages_to_restore(store: Store, model: LangModel, rules: PageRules) -> list[Examined]:
    """The pages suspected on their own that a new model, and their site, now let pass:
    examined again from their kept bodies (no request), those that are target documents now (on
    a site that is not a relatives' site); the caller records them like any page."""
    restored, unread = [], []
    for page in store.pages.page_suspects():
        letters = store.sites.site_letters(page.site)
        if relative_site(*letters, rules, SITE_MIN_LETTERS // 2):
            continue  # a relatives' site now: its pages stay aside
        examined = examine_cached(page, store.root, model, rules)
        outcome = examined.outcome
        if outcome.reason == MISSING:
            unread.append(page)
        if outcome.suspect is not None and target_site(*letters, rules):
            judge_with_site(outcome, rules, model)
        if outcome.status == "kept" and examined.short_text is None:
            restored.append(examined)
    note_unread("the relatives pass", unread)
    return restored
