"""A contrast class learnt from the web: the text of the relatives' pages a run found.

A language learnt from a user's documents cannot be told from a close relative the
model has never seen by any test of the language alone (measured on Zulu against
Xhosa, Southern Ndebele and Swati: the relatives' text fits the learnt column as well
as the language's own text of another genre does). Once the run has set aside pages
as relative-suspected (their target-like text mostly failing the open-set tests), that
text is the missing class: the target is learnt again with it as negative data in the
anonymous class `mis` (reported `und`), so the relative's words and spellings now
count against the target. The contrast is drawn from every suspected site in turn
(a big site does not make the class its own) and kept to CONTRAST_SHARE of the target's
letters, because a naive-Bayes class with more text than the target's wins the
target's own rare n-grams too (measured: 30,000 seed words against 30,000 of Xhosa cost
7 points of own recall; against 15,000, 3). A contrast that has taken in target text
(a site wrongly suspected) shows as lower recall on the held-back seed paragraphs: it is
halved until the loss is at most MAX_RECALL_LOSS (plus one held-back paragraph: a few
hundred words of seed hold back only a handful), or not used.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from collie.langid.learn import LearnedLanguage, learn_language
from collie.langid.model import LangModel

CONTRAST_SHARE = 0.5  # contrast letters at most this share of the target documents' letters
MIN_CONTRAST_LETTERS = 2000  # less relatives' text than this learns nothing
MAX_RECALL_LOSS = 0.03  # held-back seed recall the contrast may cost
TRIES = 3  # share, share/2, share/4


@dataclass(frozen=True)
class Contrast:
    """The relatives' text a model was learnt against (recorded in model.meta)."""

    letters: int  # of the suspected text the caller had (the relatives' among it: used)
    used: int  # letters taken into the class
    sites: int
    recall: float  # held-back seed recall with the contrast
    recall_without: float


def letters(text: str) -> int:
    """Letters in a text (what the contrast's budget and the relatives' rules count)."""
    return sum(ch.isalpha() for ch in text)


def contrast_budget(documents: Sequence[str]) -> int:
    """Letters of contrast text to learn against: CONTRAST_SHARE of the documents', and
    at least twice MIN_CONTRAST_LETTERS (a few hundred words of seed text; the recall
    guard halves it when that costs too much)."""
    mine = sum(letters(d) for d in documents)
    return max(int(CONTRAST_SHARE * mine), 2 * MIN_CONTRAST_LETTERS)


def draw(texts_by_site: Mapping[str, Sequence[str]], budget: int) -> list[str]:
    """Up to `budget` letters of text, one text from each site in turn (sites in name
    order, their texts in the given order): every suspected site has its say."""
    queues = {site: list(texts) for site, texts in sorted(texts_by_site.items()) if texts}
    taken: list[str] = []
    used = 0
    while queues and used < budget:
        for site in list(queues):
            text = queues[site].pop(0)
            if not queues[site]:
                del queues[site]
            taken.append(text)
            used += letters(text)
            if used >= budget:
                break
    return taken


def learn_against(
    base: LangModel,
    code: str,
    documents: Sequence[str],
    wronglang: Mapping[str | None, Sequence[str]],
    texts_by_site: Mapping[str, Sequence[str]],
    recall_without: float | None = None,
    seen: int | None = None,
) -> tuple[LearnedLanguage, Contrast] | None:
    """`code` learnt from `documents` again, with the relatives' text (by site) in the
    anonymous class; None when there is too little of it, or when even a quarter of
    the allowed amount costs more than MAX_RECALL_LOSS of held-back recall."""
    available = sum(letters(t) for texts in texts_by_site.values() for t in texts)
    seen = available if seen is None else seen
    if available < MIN_CONTRAST_LETTERS:
        return None
    if recall_without is None:
        recall_without = learn_language(base, code, documents, wronglang).recall
    budget = contrast_budget(documents)
    for _ in range(TRIES):
        taken = draw(texts_by_site, budget)
        used = sum(letters(t) for t in taken)
        if used < MIN_CONTRAST_LETTERS:
            return None
        negatives = {k: list(v) for k, v in wronglang.items()}
        negatives[None] = [*negatives.get(None, []), *taken]
        learned = learn_language(base, code, documents, negatives)
        slack = MAX_RECALL_LOSS + 1 / max(learned.tested, 1)  # and one paragraph
        if learned.recall >= recall_without - slack:
            sites = sum(1 for texts in texts_by_site.values() if texts)
            contrast = Contrast(seen, used, sites, learned.recall, recall_without)
            learned.model.meta["contrast"] = {code: contrast.__dict__}
            return learned, contrast
        budget //= 2
    return None


def contrast_of(model: LangModel, code: str) -> dict[str, float] | None:
    """The contrast `model` learnt `code` against, if any (model.meta)."""
    entry = model.meta.get("contrast", {}).get(code)
    return dict(entry) if entry else None
