"""Whether a page is a target document: the decisions on a page's labelled paragraphs.

`decide` turns a page's paragraphs, each with the language it was given, into a target
document, wrong-language text, a relative-suspected page or a drop, by the share of
letters (langid.min_share) and, for a target learnt from the user's documents, the
relative check (langid.min_pass; `relative_page`). A short page takes the language its
linking pages voted for (`decide_short`). A site's text taken together makes it the
target's (`target_site`: its pages are judged with it, `judge_with_site`) or a
relatives' site (`relative_site`). Pure functions of plain data: the worker (examine.py),
the loop (pipeline), the relatives pass and reprocess all decide through them.

A page lifted by its site still needs target-language text of its own
(langid.site_own_text): the vote of the linking pages does not make a short page the
target's when the model finds no target paragraph on it but another language
(`vote_fits`), and a site judged the target's lifts a page only when SITE_OWN_LETTERS
of its letters are the target's by the model itself, or SITE_LIKE_LETTERS are
target-like (`holds_own_text`). A target
document that lists its site's articles is a listing, not a document (extract.listings,
`mark_listing`).

A target document holds at least langid.min_target_words words of running text in the
target (`target_words`): a page the share of letters makes the target's but whose
target text is an e-mail address, a phone number or a menu is dropped as
`too-little-target-text`, whatever its share; the export applies the same count to the
text it writes (`holds_target_text`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from collie.decide.dedup import exact_key, paragraph_sketch, simhash_text
from collie.decide.listing import is_listing
from collie.langid.model import NO_ANSWER, UNDETERMINED, LangModel
from collie.models import DocumentKind, DocumentRow, Examined, PageOutcome, SuspectRow
from collie.reasons import (
    LANGUAGE_UNDETERMINED,
    LISTING,
    RELATIVE_SUSPECTED,
    TOO_LITTLE_TARGET,
    TOO_SHORT,
)
from collie.text import count_words

Labels = list[tuple[str, str, float]]  # (paragraph, language, probability)


@dataclass(frozen=True)
class PageRules:
    """The settings that decide a page's fate (encoding.*, extract.*, langid.min_share,
    crawl.short_page_chars, fetch.max_bytes) and the target language."""

    target: str
    min_confidence: float = 0.7
    boilerplate: str = "rules"
    engine: str = "trafilatura"
    short_page_chars: int = 200
    min_share: float = 0.2
    min_pass: float = 0.0  # > 0: the relative check of a target learnt from documents
    listings: bool = True  # extract.listings
    site_own_text: bool = True  # langid.site_own_text
    max_bytes: int = 5 * 1024 * 1024  # fetch.max_bytes: a kept body is read back to it
    min_target_words: int = 3  # langid.min_target_words
    code: str = "apart"  # extract.code
    learnt_min_pass: float = 0.0  # langid.min_pass, which min_pass takes for a learnt target

    @classmethod
    def from_settings(
        cls, target: str, settings: Mapping[str, Any], model: LangModel | None = None
    ) -> PageRules:
        """The rules of `settings`; the relative check (langid.min_pass) only when `model`
        learnt the target from documents (it has open-set tests for it)."""
        learnt = model is not None and is_learnt(model, target)
        return cls(
            target,
            settings["encoding.min_confidence"],
            settings["extract.boilerplate"],
            settings["extract.main"],
            settings["crawl.short_page_chars"],
            settings["langid.min_share"],
            settings["langid.min_pass"] if learnt else 0.0,
            settings["extract.listings"],
            settings["langid.site_own_text"],
            settings["fetch.max_bytes"],
            settings["langid.min_target_words"],
            code=settings["extract.code"],
            learnt_min_pass=settings["langid.min_pass"],
        )

    def for_model(self, target: str, model: LangModel) -> PageRules:
        """These rules for pages judged with `model`: the relative check only when it
        learnt `target` from documents."""
        return replace(self, min_pass=self.learnt_min_pass if is_learnt(model, target) else 0.0)


def is_learnt(model: LangModel, code: str) -> bool:
    """Was `code` learnt from documents (does it have open-set tests)?"""
    return any(code in model.meta.get(key, {}) for key in ("open_set", "novelty"))


def decide_short(examined: Examined, voted: str | None, rules: PageRules) -> None:
    """A short page takes the language its linking pages voted for; `too-short` when
    too few voted. With langid.site_own_text, a vote for the target is refused
    (`too-short` too) when the page's own text says otherwise (`vote_fits`): a site's
    short English "Contact us" page is not the target's because the site's pages link
    to it."""
    own = examined.short_labels
    if voted is None:
        examined.outcome.reason = TOO_SHORT
    elif voted == rules.target and rules.site_own_text and not vote_fits(own, rules):
        examined.outcome.reason = f"{TOO_SHORT}:not {rules.target} by its own text"
    else:
        text = examined.short_text or ""
        decide(examined.outcome, text, [(p, voted, 0.0) for p in examined.short_paragraphs], rules)
    examined.short_text, examined.short_paragraphs, examined.short_labels = None, [], []


SITE_OWN_LETTERS = 50  # of a page's own target text before its site may lift it
SITE_LIKE_LETTERS = 300  # or of target-like text (undetermined, the target nearest)


def vote_fits(labels: Sequence[tuple[str, str, float]], rules: PageRules) -> bool:
    """May the linking pages' vote make a short page the target's? Not when the model
    finds no target-language paragraph on it but finds another language: a short page
    with no target-language paragraph never passes. A page the model cannot tell at
    all (every paragraph `und`: Hayati's very short pages) is the vote's to decide, and
    so is one with a target paragraph beside a heading taken for a close relative."""
    codes = {code for _, code, _ in labels}
    return rules.target in codes or codes <= {"und"}


def holds_own_text(
    own: Sequence[tuple[str, str, float]],
    like: Sequence[tuple[str, str, float]],
    rules: PageRules,
) -> bool:
    """May a target site lift this page? Only when the model itself gives at least
    SITE_OWN_LETTERS of its letters to the target (`own`: its labels), or the page
    holds SITE_LIKE_LETTERS of target-like text (`like`: the same labels with an
    undetermined paragraph whose nearest language is the target taken for it).

    The rule of langid.site_own_text, from the numbers of issue 30's Luo world: the
    pages a target site let through with no Luo in them were short English pages
    ("Contact us", 23 words, about 120 letters) of which the model gave between 0 and
    37% to the target, at most about 45 letters; one sentence of the target (ten
    words) is more. A longer target page whose paragraphs all fail the learnt target's
    open-set tests by chance (a menu-heavy "About us", a short article: 400-800
    letters on the real-text news world) is lifted by its target-like text: without
    that, recall there fell by 0.012."""
    mine = sum(_letters(text) for text, code, _ in own if code == rules.target)
    alike = sum(_letters(text) for text, code, _ in like if code == rules.target)
    return mine >= SITE_OWN_LETTERS or alike >= SITE_LIKE_LETTERS


def _letters(text: str) -> int:
    return sum(ch.isalpha() for ch in text)


# What is not running text however its letters are labelled: e-mail addresses, web
# addresses (with a scheme, www. or a bare host name) and handles; digits (phone
# numbers, dates, prices) make no word anyway (collie.text).
_NOT_WORDS = re.compile(
    r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"  # e-mail
    r"|(?:https?://|www\.)\S+"  # URL
    r"|(?<![\w@])[\w-]+(?:\.[\w-]+)*\.(?:com|org|net|info|biz|edu|gov|africa|[a-z]{2})"
    r"(?:/\S*)?(?!\w)"  # a bare host name (nyasachiel.com, news.co.za/contact)
    r"|(?<!\w)@\w+"  # a handle
)
LINE_WORDS = 3  # fewer words in a paragraph: a menu item or a label ("Email:", "Home")


def running_words(paragraph: str) -> int:
    """The words of a paragraph that are running text: none for a menu item or a label
    (fewer than LINE_WORDS words), and never an e-mail or web address or a number."""
    words = count_words(_NOT_WORDS.sub(" ", paragraph))
    return words if words >= LINE_WORDS else 0


def target_words(labels: Sequence[tuple[str, str, float]], target: str) -> int:
    """The words of running text (`running_words`) in the paragraphs labelled `target`."""
    return sum(running_words(text) for text, code, _ in labels if code == target)


def holds_target_text(paragraphs: Sequence[str], least: int) -> bool:
    """Do these target-language paragraphs (what an export writes of a document) hold
    `least` (langid.min_target_words) words of running text?"""
    return sum(map(running_words, paragraphs)) >= least


def mark_listing(
    outcome: PageOutcome, url: str, paragraphs: Sequence[str], rules: PageRules
) -> None:
    """A target document that lists its site's articles (collie.decide.listing) is
    dropped as `listing` (extract.listings); its language, share and links stay, so
    the loop still crawls out of it."""
    if not rules.listings or outcome.status != "kept" or outcome.document is None:
        return
    if is_listing(url, paragraphs, outcome.links, outcome.cards):
        outcome.status, outcome.reason, outcome.document = "dropped", LISTING, None


def relative_page(mine: int, near: int, total: int, rules: PageRules) -> bool:
    """Does a page look like a close relative of the learnt target? Its target-like
    letters (`mine` taken for the target, `near` nearest to it but failing its tests)
    are at least langid.min_share of its `total` letters, and less than langid.min_pass
    of them were taken for the target (always False with the relative check off)."""
    like = mine + near
    return bool(rules.min_pass) and like >= rules.min_share * total and mine < rules.min_pass * like


SITE_MIN_LETTERS = 2000  # of target-like text before a site's pages are judged together


def relative_site(mine: int, near: int, rules: PageRules, least: int = SITE_MIN_LETTERS) -> bool:
    """A site whose target-like text, taken together (at least `least` letters), mostly
    fails the learnt target's open-set tests is a relatives' site (one page passing by
    chance does not make a site the target's)."""
    like = mine + near
    return bool(rules.min_pass) and like >= least and mine < rules.min_pass * like


def target_site(mine: int, near: int, rules: PageRules) -> bool:
    """A site whose target-like text, taken together (at least SITE_MIN_LETTERS), mostly
    passes the learnt target's tests: its pages are judged with it (not one by one)."""
    like = mine + near
    return bool(rules.min_pass) and like >= SITE_MIN_LETTERS and mine >= rules.min_pass * like


def judge_with_site(outcome: PageOutcome, rules: PageRules, model: LangModel) -> None:
    """A page found relative-suspected on its own but on a target site, decided again
    with its site: its paragraphs nearest to the target that failed the target's tests
    count as the target's (short pages, a few paragraphs failing by chance), and there
    is no page-level relative check. A relative's page there still fails
    langid.min_share once the model has learnt the relatives' text (`mis`, not the
    target, is then nearest to it). With langid.site_own_text SITE_OWN_LETTERS of the
    page's letters must be target-like by the model itself (`holds_own_text`), else
    the page stays as it was: a site lifts a borderline page, not one with no
    target text of its own."""
    suspect = outcome.suspect
    if suspect is None:
        return
    texts = [p[0] for p in suspect.paragraphs]
    found = model.identify_nearest(texts)
    own = [(text, code, prob) for text, (code, prob, _) in zip(texts, found, strict=True)]
    labels = [
        (text, nearest if code == UNDETERMINED and nearest == rules.target else code, prob)
        for text, (code, prob, nearest) in zip(texts, found, strict=True)
    ]
    if rules.site_own_text and not holds_own_text(own, labels, rules):
        return
    outcome.suspect, outcome.status, outcome.reason = None, "dropped", None
    decide(outcome, suspect.text, labels, replace(rules, min_pass=0.0))
    mark_listing(outcome, outcome.final_url or "", texts, rules)


def language_figures(labels: Sequence[tuple[str, str, float]]) -> tuple[int, float]:
    """What the model was given and how clear its answer was, for a page's provenance:
    the characters of its paragraphs, and the margin between the top two languages'
    shares of its letters (1.0: all one language; 0.0: two languages alike, or none
    identified; `und` and `zxx` are no language). The decision is `decide`'s; these
    only describe the labels it decided on."""
    letters: Counter[str] = Counter()
    for paragraph, code, _ in labels:
        letters[code] += sum(ch.isalpha() for ch in paragraph)
    total = sum(letters.values())
    shares = sorted((n for c, n in letters.items() if c not in NO_ANSWER), reverse=True)
    first, second = [*shares, 0, 0][:2]
    margin = (first - second) / total if total else 0.0
    return sum(len(paragraph) for paragraph, _, _ in labels), round(margin, 4)


def decide(
    outcome: PageOutcome, text: str, labels: Labels, rules: PageRules, near: Sequence[bool] = ()
) -> None:
    """Target document, wrong-language text, relative-suspected or undetermined, by the
    share of letters; a document gets its fingerprints (exact key, simhash) here.

    `near` flags the `und` paragraphs whose nearest language is the learnt target (or
    the anonymous wronglang class): they failed its open-set tests. With the relative
    check on (rules.min_pass), a page whose target-like text (taken for the target, or
    near it) is at least langid.min_share of its letters but of which less than
    langid.min_pass was taken for the target is relative-suspected: a close relative
    the model does not know looks like that (a mixed target/English page does not: its
    other paragraphs are confidently English)."""
    letters: Counter[str] = Counter()
    near_letters = 0
    for i, (paragraph, code, _) in enumerate(labels):
        count = sum(ch.isalpha() for ch in paragraph)
        letters[code] += count
        near_letters += count if i < len(near) and near[i] else 0
    total = sum(letters.values()) or 1
    mine = letters[rules.target]
    share = mine / total
    known = [(n, c) for c, n in letters.items() if c not in NO_ANSWER]
    best = max(known)[1] if known else "und"
    outcome.target_share = round(share, 4)
    outcome.target_letters, outcome.near_letters = mine, near_letters
    like = mine + near_letters
    if relative_page(mine, near_letters, total, rules):
        outcome.lang, outcome.reason = UNDETERMINED, f"{RELATIVE_SUSPECTED}:page {mine / like:.2f}"
        flags = [i < len(near) and near[i] for i in range(len(labels))]
        outcome.suspect = SuspectRow(
            "page",
            mine / like,
            text,
            [(*label, f) for label, f in zip(labels, flags, strict=True)],
            count_words(text),
        )
        return
    outcome.lang = rules.target if share >= rules.min_share else best
    probs = [p for _, c, p in labels if c == outcome.lang]
    outcome.lang_prob = round(sum(probs) / len(probs), 4) if probs else None
    if outcome.lang == "und":
        outcome.reason = LANGUAGE_UNDETERMINED
        return
    kind: DocumentKind = "target" if outcome.lang == rules.target else "wronglang"
    words = target_words(labels, rules.target) if kind == "target" else 0
    if kind == "target" and words < rules.min_target_words:
        outcome.reason = f"{TOO_LITTLE_TARGET}:{words} words"
        return
    outcome.status, outcome.reason = ("kept" if kind == "target" else "wronglang"), None
    outcome.document = DocumentRow(
        kind,
        outcome.lang,
        text,
        labels,
        count_words(text),
        exact_key=exact_key(text),
        simhash=simhash_text(text),
        sketch=paragraph_sketch(p for p, _, _ in labels),
    )
