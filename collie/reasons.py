"""Why a page is not a target document: every reason a page can be recorded with.

A recorded reason is a kind, optionally followed by ':' and a detail
(`not-html:application/pdf`, `near-duplicate:84`, `relative-suspected:page 0.33`).
Counts (the loop line, `collie status`, `collie report`) are by kind; `kind_of` is the
one place that cuts a reason. Kinds that vary (`http-404`, `http-500`) are listed by
their pattern.
"""

from __future__ import annotations

import re

ROBOTS = "robots"
ROBOTS_UNREACHABLE = "robots-unreachable"
TOO_SHORT = "too-short"
LANGUAGE_UNDETERMINED = "language-undetermined"
NEAR_DUPLICATE = "near-duplicate"
RELATIVE_SUSPECTED = "relative-suspected"
CACHE_MISSING = "cache-missing"
LISTING = "listing"
TEASER = "teaser"
TOO_LITTLE_TARGET = "too-little-target-text"

REASONS: dict[str, str] = {
    # fetching (fetch.py)
    ROBOTS: "robots.txt disallows the URL for collie's user agent",
    ROBOTS_UNREACHABLE: "robots.txt could not be fetched (no answer, 5xx, 429): the URL is "
    "held back for now, and a page stays queued (never recorded with this reason)",
    "http-<status>": "the final answer was not 200 (after retries for 429 and 5xx)",
    "timeout": "no answer, or the body did not arrive, within fetch.read_timeout",
    "connection-error": "the host could not be reached (after retries)",
    "incomplete-body": "the connection broke while the body was read",
    "content-encoding": "a Content-Encoding collie cannot undo (detail: the coding)",
    "bad-url": "the URL cannot be requested (detail: the error)",
    "too-many-redirects": "more than fetch.max_redirects redirects",
    "redirect-loop": "a redirect came back to a URL of its own chain",
    "fetched-already": "the URL, or where it redirects, was fetched already (not requested again)",
    "error": "another network failure (detail: the error)",
    # processing (process.py, encoding.py)
    "not-html": "not an HTML page (detail: the content type)",
    "binary": "the body holds NUL bytes",
    "encoding-uncertain": "no charset declared and detection below encoding.min_confidence",
    "empty-text": "no text left after extraction and boilerplate removal",
    # language and corpus decisions (decide/classify.py, mining/, store/)
    TOO_SHORT: "shorter than crawl.short_page_chars and too few linking pages voted (detail: "
    "or their vote for the target is refused by the page's own text, langid.site_own_text)",
    LANGUAGE_UNDETERMINED: "no language holds langid.min_share of the page's letters",
    RELATIVE_SUSPECTED: "looks like a close relative of the learnt target (detail: page or "
    "site, and the share of its target-like text taken for the target)",
    TOO_LITTLE_TARGET: "a target page with fewer than langid.min_target_words words of running "
    "target-language text (e-mail addresses, web addresses, phone numbers, menu items and "
    "labels do not count; detail: the words it holds): a contact page, a bare menu",
    NEAR_DUPLICATE: "repeats an earlier target document (detail: its id)",
    LISTING: "a home, section, tag or archive page listing its site's articles (headlines, "
    "their first words, read more): crawled, not a document (extract.listings)",
    TEASER: "nothing of its own left once the truncated copies of its site's other documents "
    "(teasers) are taken out (extract.teasers)",
    # reprocess
    CACHE_MISSING: "the page's raw body was not kept, or is gone (warc.keep target keeps "
    "only target-language pages' answers; reprocess cannot redo it)",
}

_HTTP = re.compile(r"^http-\d{3}$")


def kind_of(reason: str) -> str:
    """The kind of a recorded reason (before its ':' detail)."""
    return reason.split(":", 1)[0]


def is_known(reason: str) -> bool:
    """Is the reason's kind one of REASONS?"""
    kind = kind_of(reason)
    return kind in REASONS or bool(_HTTP.match(kind))


def describe(reason: str) -> str:
    """One line on what a reason means ('' for an unknown one)."""
    kind = kind_of(reason)
    return REASONS.get("http-<status>" if _HTTP.match(kind) else kind, "")
