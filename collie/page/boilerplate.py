"""Boilerplate rules applied to html2text's Markdown: each line parsed into a `Line` and
tested against the table of rules (`RULES`, in collie.page.boilerplate_rules); the
first matching rule drops the line and is recorded with it. After the per-line rules,
runs of very short lines (menus, tag lists) are dropped as `short-line-run`. Links
arrive marked by LINK_OPEN ... LINK_CLOSE around their anchor text.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from collie.page.boilerplate_rules import (
    ISOLATED_LINE,
    LINK_CLOSE,
    LINK_OPEN,
    ORPHAN_HEADING,
    RULES,
    SHORT_RUN,
    Line,
    Rule,
)

LINK_RUN = "\ue002"  # around the index of a run of link-only blocks (see clean_markup)
_LINK_RUN_LINE = re.compile(f"{LINK_RUN}(\\d+){LINK_RUN}")
_WHITESPACE = re.compile(r"\s+")

_MD_PREFIX = re.compile(r"^(?:\s*(?:#{1,6}\s+|>\s?|[*+-]\s+|\d+[.)]\s+))+")
_MD_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!>|~])")
_HAS_WORD = re.compile(r"\w")
_LINK_SPAN = re.compile(f"{LINK_OPEN}([^{LINK_OPEN}{LINK_CLOSE}]*){LINK_CLOSE}")
_MARKERS = re.compile(f"[{LINK_OPEN}{LINK_CLOSE}]")


_PREFIX_START = ("#", ">", "*", "+", "-", " ", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9")


def _strip_markup(markdown: str) -> str:
    if markdown.startswith(_PREFIX_START):
        markdown = _MD_PREFIX.sub("", markdown)
    return _MD_ESCAPE.sub(r"\1", markdown) if "\\" in markdown else markdown


CACHED_CHARS = 300  # lines at most this long are cached: the pages of a site repeat them


@functools.lru_cache(maxsize=16384)
def parse_line(raw: str) -> Line:
    """Split a Markdown line into its text, its links and the text outside links."""
    if "\xa0" in raw or "\xad" in raw:
        raw = raw.replace("\xa0", " ").replace("\xad", "")
    raw = raw.rstrip()
    if LINK_OPEN in raw or LINK_CLOSE in raw:
        links = tuple(s.strip() for s in _LINK_SPAN.findall(raw) if s.strip())
        outside = _strip_markup(_MARKERS.sub("", _LINK_SPAN.sub(" ", raw)))
        markdown = _MARKERS.sub("", raw)
    else:
        links, markdown = (), raw
        outside = ""
    words = _strip_markup(markdown).split()
    text = " ".join(words)
    return Line(markdown, text, links, outside if links else text, text.lower(), len(words))


# On a page's main content found on the DOM (layout=False), these rules apply only to lines
# at most this long: a cookie banner is short there, and longer lines naming cookies or
# Datenschutz are prose (privacy pages, posts about them). On the 945 real pages of
# benchmarks/bench_extract.py the rule dropped 7 wanted snippets there, no unwanted one.
MAIN_CONTENT_MAX_CHARS = {"cookie-notice": 150}

_END = Line("", "", (), "")
_RUN_LENGTH, _RUN_WORDS = 4, 3
_SHORT_CHARS = 30  # scripts written without spaces: a one-"word" line can be a sentence
_SENTENCE_END = re.compile(r"[.!?;:…。！？]$")


# On a page of cards, the rules that take a card for a menu or a list of links.
CARD_RULES = frozenset({"link-only", "link-dense", "pipe-list"})
CARD_ANCHOR_WORDS = 3  # a link this long names a card (a product, a headline), not a place


def _card_line(line: Line) -> bool:
    return any(len(anchor.split()) >= CARD_ANCHOR_WORDS for anchor in line.links)


CARD_RUN = 3  # card lines one after the other, nothing between: a list of links


def _keep_cards(lines: list[Line | None], decisions: list[str | None], cards: list[int]) -> None:
    """Keep the card lines, except those in runs of CARD_RUN or more with no other line
    between them: a card is a link with its text (a teaser, a price) around it; a list of
    headline links (related articles under an article, a sidebar's latest posts) is no
    page's text."""
    if not cards:
        return
    present = [i for i, line in enumerate(lines) if line is not None]
    rank = {i: k for k, i in enumerate(present)}
    run: list[int] = []
    for i in [*cards, -1]:
        if run and (i < 0 or rank[i] != rank[run[-1]] + 1):
            if len(run) < CARD_RUN:
                for j in run:
                    decisions[j] = None
            run = []
        run.append(i)


_LIMITS = sorted({rule.max_chars for rule in RULES if rule.max_chars})


@functools.lru_cache(maxsize=64)
def _rules_up_to(limit: int) -> tuple[Rule, ...]:
    return tuple(rule for rule in RULES if not rule.max_chars or rule.max_chars >= limit)


# One search tells whether any keyword-gated rule can match: most lines skip them all.
_KEYWORD_GATE = re.compile("|".join(re.escape(k) for rule in RULES for k in rule.keywords))


@functools.lru_cache(maxsize=16384)
def match_rule(line: Line) -> str | None:
    """The name of the first rule of `RULES` the line matches."""
    length = len(line.text)
    bucket = next((limit for limit in _LIMITS if limit >= length), length)
    gated = _KEYWORD_GATE.search(line.lower) is None
    for rule in _rules_up_to(bucket):  # only the rules that apply to lines this long
        if gated and rule.keywords and rule.predicate is None:
            continue
        if rule.matches(line):
            return rule.name
    return None


def _is_short(line: Line) -> bool:
    if line.words > _RUN_WORDS or len(line.text) > _SHORT_CHARS:
        return False
    return not _SENTENCE_END.search(line.text)


def _drop_short_runs(lines: list[Line | None], decisions: list[str | None]) -> None:
    """Mark runs of short kept lines; blank and already dropped lines do not break a run."""
    run: list[int] = []
    for i, line in enumerate(lines):
        if line is None or decisions[i] is not None:
            continue
        if _is_short(line):
            run.append(i)
            continue
        if len(run) >= _RUN_LENGTH:
            for j in run:
                decisions[j] = SHORT_RUN.name
        run = []
    if len(run) >= _RUN_LENGTH:
        for j in run:
            decisions[j] = SHORT_RUN.name


def _drop_isolated_lines(lines: list[Line | None], decisions: list[str | None]) -> None:
    """Short non-heading lines whose neighbours (page edges included) were all dropped."""
    present = [i for i, line in enumerate(lines) if line is not None]
    edge = "edge"
    for k, i in enumerate(present):
        line = lines[i]
        if line is None or decisions[i] is not None or line.words > 2 or len(line.text) > 20:
            continue
        if line.markdown.lstrip().startswith("#"):
            continue
        before = decisions[present[k - 1]] if k > 0 else edge
        after = decisions[present[k + 1]] if k + 1 < len(present) else edge
        if before is not None and after is not None and (before, after) != (edge, edge):
            decisions[i] = ISOLATED_LINE.name


def _drop_orphan_headings(lines: list[Line | None], decisions: list[str | None]) -> None:
    """A heading whose section lost every line ('Most read' over a dropped list) goes too,
    unless that would leave the page empty (issue 56): a page of headings over images (a
    gallery, a poster) keeps its headings."""
    last_kept_heading: int | None = None
    section_kept = False
    orphans: list[int] = []
    for i, line in enumerate([*lines, _END]):
        if line is None or (i < len(lines) and decisions[i] is not None):
            continue
        if line is _END or line.markdown.lstrip().startswith("#"):
            if last_kept_heading is not None and not section_kept:
                orphans.append(last_kept_heading)
            last_kept_heading, section_kept = (None if line is _END else i), False
        else:
            section_kept = True
    kept = sum(line is not None and d is None for line, d in zip(lines, decisions, strict=True))
    if kept > len(orphans):
        for i in orphans:
            decisions[i] = ORPHAN_HEADING.name


# A line of a code block (html2text indents <pre> by four spaces; not a list item): no
# line rule applies to it ("const [a, b] = useState<T>()" is no breadcrumb), it stays a
# paragraph of its own for language identification (extract.code = "apart").
CODE_LINE = re.compile(r"(?: {4}|\t)(?!\s*(?:[*+-]|\d+[.)])\s)")


def apply_rules(
    markdown: str,
    boilerplate: str = "rules",
    link_runs: Sequence[list[str]] = (),
    layout: bool = True,
    only_long: int = 0,
    cards: bool = False,
) -> tuple[list[list[Line]], list[tuple[str, str]]]:
    """Kept lines grouped in paragraphs, and the dropped (line, rule) pairs.

    `layout=False` when the text is already a page's main content found on its DOM: the
    line rules apply, not the passes that guess the layout from the lines (short-line
    runs, isolated lines, orphan headings), which measured on real pages only cost
    recall there.

    `link_runs` are the anchor texts of link-only blocks that clean_markup kept away from
    html2text; their marker lines are reported as one dropped `link-only` line each.

    `only_long`: the line rules test only the lines of at least this many characters
    and the layout passes are skipped (the pre-cleaning's long lines, all a page whose
    main content trafilatura found needs of it: issue 56, a tenth of the time).

    `cards`: the text is a page of cards (maintext.link_share): a line the link rules
    (`CARD_RULES`) would drop is kept when one of its links reads like a card's name or
    headline (CARD_ANCHOR_WORDS words or more) and is not in a run of CARD_RUN such lines
    (`_keep_cards`); "Home", "Read more" and "[1]" still go.
    """
    lines: list[Line | None] = []
    runs: dict[int, int] = {}  # line index -> index in link_runs
    for raw in markdown.split("\n"):
        if not raw or raw.isspace():
            lines.append(None)
            continue
        run = _LINK_RUN_LINE.fullmatch(raw.strip()) if LINK_RUN in raw else None
        if run and int(run.group(1)) < len(link_runs):
            runs[len(lines)] = int(run.group(1))
        short = len(raw) <= CACHED_CHARS  # only short lines repeat; long ones stay uncached
        parsed = parse_line(raw) if short else parse_line.__wrapped__(raw)
        lines.append(parsed if parsed.text and _HAS_WORD.search(parsed.text) else None)
    decisions: list[str | None] = [None] * len(lines)
    card_lines: list[int] = []  # lines the link rules dropped that name cards
    for i in runs:
        decisions[i] = "link-only"
    if boilerplate == "rules":
        for i, kept in enumerate(lines):
            if kept is None or decisions[i] is not None or len(kept.text) < only_long:
                continue
            if not CODE_LINE.match(kept.markdown):
                short = len(kept.markdown) <= CACHED_CHARS
                decision = match_rule(kept) if short else match_rule.__wrapped__(kept)
                cap = None if layout else MAIN_CONTENT_MAX_CHARS.get(decision or "")
                decisions[i] = None if cap and len(kept.text) > cap else decision
                if cards and decision in CARD_RULES and _card_line(kept):
                    card_lines.append(i)
        _keep_cards(lines, decisions, card_lines)
    if boilerplate == "rules" and layout and not only_long:
        _drop_short_runs(lines, decisions)
        _drop_isolated_lines(lines, decisions)
        _drop_orphan_headings(lines, decisions)
    paragraphs: list[list[Line]] = [[]]
    dropped: list[tuple[str, str]] = []
    for i, (item, decision) in enumerate(zip(lines, decisions, strict=True)):
        if item is None:
            if paragraphs[-1]:
                paragraphs.append([])
        elif decision is None:
            paragraphs[-1].append(item)
        elif i in runs:
            dropped += [(anchor, decision) for anchor in link_runs[runs[i]]]
        else:
            dropped.append((item.text, decision))
    return [p for p in paragraphs if p], dropped
