"""The worker half of the fetch stage: one batch of a few sites' pages -> fetched,
decoded, extracted, language-identified and fingerprinted pages, as plain data.

pipeline.py cuts each frontier batch into host-partitioned `SiteBatch`es (every page of
a site in the same one) and hands them to an executor (executor.py): in this process, or
on Dask workers. Politeness then holds inside each task with nothing shared between
workers: a site's pages are fetched by one `Fetcher`, one request in flight per host,
`fetch.delay` apart; the batch carries the robots.txt records the driver knows for its
origins and the time before which each host must not be asked again (the pacing of the
previous batch, wherever it ran), and the result hands back the records fetched and the
hosts' new times. Nothing here touches the workspace: bodies come back compressed and
the driver writes them, and a short page, whose language is the vote of the pages
linking to it, comes back undecided for the driver to decide.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from collie.bodycache import CompressedBody, compress_body, read_body
from collie.dedup import exact_key, simhash_text
from collie.fetch import FetchConfig, Fetcher, FetchResult, origin_of
from collie.langid.model import OTHER, UNDETERMINED, LangModel
from collie.models import DocumentRow, PageOutcome, QueuedPage, SuspectRow
from collie.process import process
from collie.reasons import CACHE_MISSING, LANGUAGE_UNDETERMINED, RELATIVE_SUSPECTED, TOO_SHORT
from collie.reprocess_store import CachedPage
from collie.robots import MemoryRobotsStore, RobotsRecord
from collie.seeds import count_words

MISSING = CACHE_MISSING  # a recorded body gone from cache/
log = logging.getLogger("collie.sitework")

Labels = list[tuple[str, str, float]]  # (paragraph, language, probability)


@dataclass(frozen=True)
class PageRules:
    """The settings that decide a page's fate (encoding.*, extract.*, langid.min_share,
    crawl.short_page_chars) and the target language."""

    target: str
    min_confidence: float = 0.7
    boilerplate: str = "rules"
    short_page_chars: int = 200
    min_share: float = 0.2
    min_pass: float = 0.0  # > 0: the relative check of a target learnt from documents

    @classmethod
    def from_settings(
        cls, target: str, settings: Mapping[str, Any], model: LangModel | None = None
    ) -> PageRules:
        """The rules of `settings`; the relative check (langid.min_pass) only when `model`
        learnt the target from documents (it has open-set tests for it)."""
        learnt = model is not None and is_learnt(model, target)
        return cls(target, settings["encoding.min_confidence"], settings["extract.boilerplate"],
                   settings["crawl.short_page_chars"], settings["langid.min_share"],
                   settings["langid.min_pass"] if learnt else 0.0)  # fmt: skip


def is_learnt(model: LangModel, code: str) -> bool:
    """Was `code` learnt from documents (does it have open-set tests)?"""
    return any(code in model.meta.get(key, {}) for key in ("open_set", "novelty"))


@dataclass
class Examined:
    """One page as a worker leaves it: the outcome to record, the body to keep, and for
    a short page its text, waiting for the vote of the pages linking to it."""

    queued: QueuedPage
    outcome: PageOutcome
    body: CompressedBody | None = None
    short_text: str | None = None  # set: the language is the driver's to decide
    short_paragraphs: list[str] = field(default_factory=list)


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


def fetch_and_examine(batch: SiteBatch, context: WorkerContext) -> SiteResult:
    """Fetch a batch's pages politely and examine each (see the module docstring)."""
    if context.fetcher is not None:
        return SiteResult(_fetch_examine(context.fetcher, batch, context.model))
    store = MemoryRobotsStore(batch.robots)
    with Fetcher(batch.fetch, store) as fetcher:
        offset = fetcher.clock.now() - time.time()  # wall-clock -> this process's clock
        for host, when in batch.not_before.items():
            fetcher.gate.hold_until(host, when + offset)
        examined = _fetch_examine(fetcher, batch, context.model)
        times = {host: when - offset for host, when in fetcher.gate.ready_times().items()}
    return SiteResult(examined, store.take_new(), times)


def _fetch_examine(fetcher: Fetcher, batch: SiteBatch, model: LangModel) -> list[Examined]:
    results = {r.url: r for r in fetcher.fetch_all([page.url for page in batch.pages])}
    return [examine(page, results[page.url], model, batch.rules) for page in batch.pages]


def examine(
    queued: QueuedPage, result: FetchResult, model: LangModel, rules: PageRules
) -> Examined:
    """`examine_page`, but a bug on one page drops that page (with the error as its
    reason) instead of stopping the run."""
    try:
        return examine_page(queued, result, model, rules)
    except Exception as exc:
        log.exception("processing %s failed", queued.url)
        reason = f"error:{type(exc).__name__}"
        return Examined(queued, PageOutcome(queued.id, queued.site, "dropped", reason))


def examine_cached(page: CachedPage, cache: Path, model: LangModel, rules: PageRules) -> Examined:
    """`examine` a recorded page again from its raw body in cache/ (no network)."""
    queued = QueuedPage(page.id, page.url, page.site, page.loop, page.source, page.depth)
    body = read_body(cache, page.body_sha1)
    if body is None:
        return Examined(queued, PageOutcome(page.id, page.site, "dropped", MISSING))
    result = FetchResult(page.url, page.final_url or page.url, page.http_status,
                         {"content-type": _content_type(page)}, body,
                         fetched_at=page.fetched_at or 0.0)  # fmt: skip
    examined = examine(queued, result, model, rules)
    examined.body = None  # already in cache/
    return examined


def _content_type(page: CachedPage) -> str:
    """As served; for pages recorded before content types were (migration 5), the
    charset that decided their decoding when it came from the header."""
    if page.content_type:
        return page.content_type
    if page.encoding_method == "http" and page.encoding:
        return f"text/html; charset={page.encoding}"
    return "text/html"


def examine_page(queued: QueuedPage, result: FetchResult, model: LangModel,
                 rules: PageRules) -> Examined:  # fmt: skip
    """Decode, extract, identify the language paragraph by paragraph, decide, fingerprint."""
    page = process(result.url, result, min_confidence=rules.min_confidence,
                   boilerplate=rules.boilerplate)  # fmt: skip
    outcome = PageOutcome(
        queued.id, queued.site, "dropped", page.reason, result.final_url, result.status,
        result.fetched_at or None, page.encoding, page.encoding_method, page.title or None,
        page.lang or None,
    )  # fmt: skip
    examined = Examined(queued, outcome)
    if page.outcome != "kept":
        return examined
    examined.body = compress_body(result.body)
    outcome.body_sha1 = examined.body.sha1
    outcome.content_type = result.headers.get("content-type")
    outcome.text_chars = len(page.text)
    outcome.links = page.links
    if len(page.text) < rules.short_page_chars:
        examined.short_text, examined.short_paragraphs = page.text, page.paragraphs
        return examined
    found = model.identify_nearest(page.paragraphs)
    labels = [(p, code, prob) for p, (code, prob, _) in zip(page.paragraphs, found, strict=True)]
    near = [code == UNDETERMINED and nearest in (rules.target, OTHER) for code, _, nearest in found]
    decide(outcome, page.text, labels, rules, near)
    return examined


def decide_short(examined: Examined, voted: str | None, rules: PageRules) -> None:
    """A short page takes the language its linking pages voted for; `too-short` when
    too few voted."""
    if voted is None:
        examined.outcome.reason = TOO_SHORT
    else:
        text = examined.short_text or ""
        decide(examined.outcome, text, [(p, voted, 0.0) for p in examined.short_paragraphs],
               rules)  # fmt: skip
    examined.short_text, examined.short_paragraphs = None, []


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
    target, is then nearest to it)."""
    suspect = outcome.suspect
    if suspect is None:
        return
    texts = [p[0] for p in suspect.paragraphs]
    labels = [(text, nearest if code == UNDETERMINED and nearest == rules.target else code, prob)
              for text, (code, prob, nearest) in zip(texts, model.identify_nearest(texts),
                                                      strict=True)]  # fmt: skip
    outcome.suspect, outcome.status, outcome.reason = None, "dropped", None
    decide(outcome, suspect.text, labels, replace(rules, min_pass=0.0))


def decide(outcome: PageOutcome, text: str, labels: Labels, rules: PageRules,
           near: Sequence[bool] = ()) -> None:  # fmt: skip
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
    known = [(n, c) for c, n in letters.items() if c != "und"]
    best = max(known)[1] if known else "und"
    outcome.target_share = round(share, 4)
    outcome.target_letters, outcome.near_letters = mine, near_letters
    like = mine + near_letters
    if relative_page(mine, near_letters, total, rules):
        outcome.lang, outcome.reason = UNDETERMINED, f"{RELATIVE_SUSPECTED}:page {mine / like:.2f}"
        flags = [i < len(near) and near[i] for i in range(len(labels))]
        outcome.suspect = SuspectRow("page", mine / like, text,
                                     [(*label, f) for label, f in zip(labels, flags, strict=True)],
                                     count_words(text))  # fmt: skip
        return
    outcome.lang = rules.target if share >= rules.min_share else best
    probs = [p for _, c, p in labels if c == outcome.lang]
    outcome.lang_prob = round(sum(probs) / len(probs), 4) if probs else None
    if outcome.lang == "und":
        outcome.reason = LANGUAGE_UNDETERMINED
        return
    kind = "target" if outcome.lang == rules.target else "wronglang"
    outcome.status, outcome.reason = ("kept", None) if kind == "target" else ("wronglang", None)
    outcome.document = DocumentRow(
        kind, outcome.lang, text, labels, count_words(text), exact_key=exact_key(text),
        simhash=simhash_text(text),
    )  # fmt: skip


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
