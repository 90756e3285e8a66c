"""The main text of a page found on its DOM (extract.main = "trafilatura"), and the two
corrections collie makes to it: long lines it missed put back, menu text run together
dropped. extract.py calls these; the line rules (boilerplate.py) apply in between.

Chosen by measurement on 945 real pages (benchmarks/bench_extract.py, decided on its
development half): F1 0.935 (development half 0.937, held-out half 0.933), against 0.924
for trafilatura with its fallbacks and 0.833 for collie's regular-expression pre-cleaning
and line rules alone; 0.926 before issue 30 (long lines put back after the main content,
the cookie rule on long lines of it, no second look at a short main text).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Collection, Sequence
from typing import Any

from collie.errors import dependency_error
from collie.page.boilerplate import LINK_RUN, parse_line
from collie.page.boilerplate_rules import LINK_CLOSE, LINK_OPEN, MENU_TEXT, Line

log = logging.getLogger(__name__)

# Main content shorter than this (Markdown characters) is not trusted: trafilatura itself
# counts under 250 characters as not found and falls back to its cruder baseline, which
# keeps a short page's menu; the pre-cleaning decides such pages (the short-page vote
# then decides whether they count).
MIN_MAIN_CHARS = 250
# A main text found by the fast mode shorter than this (Markdown characters) is found again
# with trafilatura's fallbacks: on the 945 real pages of benchmarks/bench_extract.py, 104
# pages, F1 0.930 -> 0.935 (development half 0.931 -> 0.937, held-out 0.928 -> 0.932).
# 1000 -> 3000 (issue 43): a forum thread whose first post is all the fast mode finds;
# on the development half of benchmarks/bench_wcxb.py, forum F1 0.702 -> 0.728.
SHORT_MAIN = 3000
# trafilatura's comments option: it finds the comment section and keeps it apart from the
# main text (its HTML output, which collie reads, leaves it out). On the development half
# of bench_wcxb.py, forum F1 0.694 -> 0.702 with it; putting the comments back after the
# main text cost F1 on every type (0.870 -> 0.868; news pages of bench_extract.py 0.9386
# -> 0.9345): a comment section is mostly not what a page is about.
COMMENTS = True
LONG_LINE = 200  # a line this long that only the pre-cleaning kept is prose (with_long_lines)
# Markup or a script's string in a line (`<a href=\"...`, `<div class=`): never prose.
_MARKUP = re.compile(r"</?[a-zA-Z][a-zA-Z0-9-]{0,30}[\s>]|\w=\\?[\"']")
_LIST_ITEM = re.compile(r"\s*(?:[*+-]|\d+[.)])\s")  # a Markdown list item
MENU_WORDS, MENU_SHARE = 10, 0.7  # without_menu_text; 0.5 cost 0.024 of F1 on real pages


def check_installed() -> None:
    """Raise DependencyError (naming the package) unless the main-text extractor and
    everything it imports load: a command that extracts pages calls this first, so a
    broken install fails once, plainly, instead of on every page."""
    try:
        import trafilatura  # noqa: F401
    except ImportError as exc:
        raise dependency_error(exc) from exc


def main_content(page: str, fast: bool = True) -> str | None:
    """The page's main content as simple HTML (paragraphs, headings, lists, tables,
    quotes, links), found by trafilatura on the parsed DOM; None when it finds none or
    fails on the markup.

    Its fast mode first: its fallbacks (its baseline and jusText, whose stop-word lists
    know none of the languages collie mines) dump a thin page's menus as one paragraph.
    extract.py asks again with them (fast=False) when the fast mode finds a short main
    text (SHORT_MAIN). trafilatura's own `extract` also hashes the text for a fingerprint
    collie never reads (an eighth of the time on real pages): its two steps are called
    here without it.
    """
    import trafilatura  # 0.14 s to import: only when a page is extracted

    kept: str | None
    try:
        kept = _without_fingerprint(page, fast)
    except _NoInternals:  # another trafilatura: its documented call, hash and all
        kept = _extract(trafilatura, page, fast)
    except Exception:  # lxml/trafilatura on hostile markup: the page is data, not a crash
        log.debug("trafilatura failed on a page", exc_info=True)
        return None
    return kept or None


class _NoInternals(Exception):
    """This trafilatura lacks the two steps `_without_fingerprint` calls."""


def _without_fingerprint(page: str, fast: bool) -> str:
    """trafilatura's `extract` without its fingerprint: `bare_extraction`, then
    `determine_returnstring` (trafilatura 2.x; not its documented API, so another
    version falls back to `extract`)."""
    import trafilatura

    try:
        from trafilatura.core import determine_returnstring
        from trafilatura.settings import Document, Extractor
    except ImportError as exc:
        raise _NoInternals from exc
    options = Extractor(
        output_format="html",
        fast=fast,
        comments=COMMENTS,
        images=False,
        links=True,  # for the line rules (link-dense, link-only)
        with_metadata=False,
    )
    document = trafilatura.bare_extraction(page, options=options, as_dict=False)
    return determine_returnstring(document, options) if isinstance(document, Document) else ""


def _extract(trafilatura: Any, page: str, fast: bool) -> str | None:
    try:
        return trafilatura.extract(
            page,
            output_format="html",
            fast=fast,
            include_comments=COMMENTS,
            include_images=False,
            include_links=True,
            with_metadata=False,
        )
    except Exception:
        log.debug("trafilatura failed on a page", exc_info=True)
        return None


def with_long_lines(main: list[list[Line]], rules: list[list[Line]]) -> list[list[Line]]:
    """The main content's paragraphs, with the lines of at least LONG_LINE characters that
    only the pre-cleaning kept put back in page order, each its own paragraph; only lines
    before the main content's last line, or list items: after it come author boxes,
    disclaimers, comment rules and teasers, but also the lists of an article that
    trafilatura left out (0.961 on the project's templates with them, 0.948 without).

    trafilatura misses prose in some layouts (list items inside table cells, several
    post containers): on the project's page templates its F1 is 0.944, 0.962 with these
    lines back. On the 945 real pages of benchmarks/bench_extract.py (development half /
    held-out half) the lines after the main content put back 9 / 16 wanted snippets
    and 21 / 24 unwanted ones; leaving them out raised F1 from 0.926 to 0.930 / 0.928.
    Language ID still judges every line.
    """
    where = {
        _key(line): (i, j) for i, paragraph in enumerate(main) for j, line in enumerate(paragraph)
    }
    rules = _until_last_found(rules, where)
    triples: set[tuple[str, str, str]] | None = None  # the main content's, when needed
    merged: list[list[Line]] = []
    cursor, fresh = (0, 0), True  # the next main-content line; does it open a paragraph?

    def emit_until(end: tuple[int, int]) -> None:
        nonlocal cursor, fresh
        i, j = cursor
        while (i, j) < end and i < len(main):
            if j >= len(main[i]):
                i, j, fresh = i + 1, 0, True
                continue
            if fresh:
                merged.append([])
                fresh = False
            merged[-1].append(main[i][j])
            j += 1
        cursor = (i, j)

    for paragraph in rules:
        for line in paragraph:
            found = where.get(_key(line))
            if found is not None and found >= cursor:
                emit_until((found[0], found[1] + 1))
            elif found is None and len(line.text) >= LONG_LINE and not _MARKUP.search(line.text):
                if triples is None:
                    triples = {t for p in main for kept in p for t in _triples(kept.text)}
                left = _not_there(line, triples)
                if left is not None:
                    merged.append([left])
                    fresh = True
    emit_until((len(main), 0))
    return merged


SAME_WORDS = 0.5  # of a sentence's word triples found in the main content: said there already
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?…])\s+")


def _triples(text: str) -> list[tuple[str, str, str]]:
    """The runs of three successive words of a text, lower-cased, punctuation cut off."""
    words = _words(text.lower())
    return list(zip(words, words[1:], words[2:], strict=False))


def _not_there(line: Line, triples: set[tuple[str, str, str]]) -> Line | None:
    """What this long line of the pre-cleaning's says that the main content does not
    (issue 56): its words are compared, not its string, sentence by sentence. A sentence
    with SAME_WORDS of its word triples in the main content is there already: a paragraph
    whose pop-up links (`<a class="popup" href="javascript:...">`) the pre-cleaning
    removed with their words, or several paragraphs trafilatura kept apart that the
    pre-cleaning ran together, are not put back a second time. None when every sentence
    is there; the line itself when none is; else a line of the sentences that are not."""
    sentences = _SENTENCE_SPLIT.split(line.text)
    new = []
    for sentence in sentences:
        own = _triples(sentence)
        if not own or sum(t in triples for t in own) < SAME_WORDS * len(own):
            new.append(sentence)
    if len(new) == len(sentences):
        return line
    left = " ".join(s for s in new if _triples(s))  # sentences of three words or more
    return parse_line(left) if len(left) >= LONG_LINE // 2 else None


def _until_last_found(
    rules: list[list[Line]], where: dict[str, tuple[int, int]]
) -> list[list[Line]]:
    """The pre-cleaning's paragraphs up to its last line that is also a main-content line."""
    last = None
    for i, paragraph in enumerate(rules):
        for j, line in enumerate(paragraph):
            if _key(line) in where:
                last = (i, j)
    if last is None:
        return []
    head = [*rules[: last[0]], rules[last[0]][: last[1] + 1]]
    after = [*rules[last[0]][last[1] + 1 :], *(line for p in rules[last[0] + 1 :] for line in p)]
    return [*head, *([line] for line in after if _LIST_ITEM.match(line.markdown))]


def with_list_items(
    paragraphs: list[list[Line]],
    markdown: str,
    link_runs: Sequence[list[str]],
    item_runs: Collection[int],
) -> tuple[list[list[Line]], list[str]]:
    """The paragraphs with the short linked list items of `markdown` (runs of `<li><a>`
    that `clean_markup` took away, `item_runs` of `link_runs`) put back where the list sits
    inside the kept text: the lines just before and just after it in `markdown` are kept,
    one right after the other (issue 56: "Here's our year in review!", "fixed a shutdown
    hang" in a blog post were dropped as link-only, by the line rules or by trafilatura);
    and the anchors put back. A list of links before or after the text (a menu, related
    articles, a footer) has no kept line on one side, and stays out."""
    if not item_runs:
        return paragraphs, []
    order = [(i, j) for i, paragraph in enumerate(paragraphs) for j in range(len(paragraph))]
    rank = {at: k for k, at in enumerate(order)}
    where = {_key(paragraphs[i][j]): (i, j) for i, j in order}
    raw = [line.strip() for line in markdown.split("\n") if line.strip()]
    runs = [_LINK_RUN_LINE.fullmatch(line) if LINK_RUN in line else None for line in raw]
    inserts: dict[tuple[int, int], list[str]] = {}
    n = 0
    while n < len(raw):
        block = n  # a block of successive runs of links, list items or not
        while n < len(raw) and runs[n] is not None:
            n += 1
        if block == n:
            n += 1
            continue
        found = [int(run.group(1)) for run in runs[block:n] if run is not None]
        if block == 0 or n == len(raw) or not all(k in item_runs for k in found):
            continue
        before = where.get(_key(parse_line(raw[block - 1])))
        after = where.get(_key(parse_line(raw[n])))
        if before is not None and after is not None and rank[after] == rank[before] + 1:
            inserts[before] = [anchor for k in found for anchor in link_runs[k]]
    if not inserts:
        return paragraphs, []
    merged: list[list[Line]] = []
    for i, paragraph in enumerate(paragraphs):
        merged.append([])
        for j, line in enumerate(paragraph):
            merged[-1].append(line)
            if (i, j) in inserts:
                items = [parse_line(f"* {anchor}") for anchor in inserts[(i, j)]]
                if j + 1 == len(paragraph):
                    merged.append(items)  # between two paragraphs: one of its own
                else:
                    merged[-1].extend(items)
    return merged, [anchor for anchors in inserts.values() for anchor in anchors]


# A page whose pre-cleaned text is this much link text (words inside links over all
# words, link-only blocks counted among all words: link_share) is a page of cards: a
# listing's teasers, a collection's products, each a link (issue 56). On the development
# half of benchmarks/bench_wcxb.py it holds for 27 of 53 listings, 33 of 61 collections
# and 22 of 403 articles (their F1 unchanged, 0.936): listing F1 0.593 -> 0.626,
# collection 0.500 -> 0.504. On such a page (extract_html's cards_text, on by default since
# issue 56's third round) the link rules give way to lines naming cards and the menu-text
# pass is skipped (they took its cards for menus and link lists; boilerplate.apply_rules).
# Skipping the pre-cleaning's layout passes too when it decides such a page (a short main
# text, a dump) raised collection to 0.515, but a thin page of a menu and a most-read list is a
# page of cards by this measure, and its menu came back: left out.
CARD_LINK_SHARE = 0.15
CARD_MIN_WORDS = 50  # fewer words than this on the whole page: no evidence either way


def link_share(markdown: str, link_runs: Sequence[list[str]]) -> float:
    """The share of the words of the pre-cleaning's Markdown that are inside links, a
    link that spans blocks (a card: `<a><h3>name</h3><p>line</p></a>`) included; its
    link-only blocks (kept away as `link_runs`: menus, lists of links) count among the
    words, not the linked ones. Block-level evidence of a page of cards
    (CARD_LINK_SHARE); 0.0 for a page of under CARD_MIN_WORDS words."""
    linked = total = 0
    inside = False
    for raw in markdown.split("\n"):
        if not raw or raw.isspace() or LINK_RUN in raw:
            continue
        if LINK_OPEN not in raw and LINK_CLOSE not in raw:
            words = len(_WORD.findall(raw))
            total += words
            linked += words if inside else 0
            continue
        for piece in _LINK_MARKER.split(raw):
            if piece in (LINK_OPEN, LINK_CLOSE):
                inside = piece == LINK_OPEN
                continue
            words = len(_WORD.findall(piece))
            total += words
            linked += words if inside else 0
    total += sum(len(anchor.split()) for run in link_runs for anchor in run)
    return linked / total if total >= CARD_MIN_WORDS else 0.0


def without_menu_text(
    paragraphs: list[list[Line]], links: list[tuple[str, str]]
) -> tuple[list[list[Line]], list[tuple[str, str]]]:
    """Lines of MENU_WORDS words or more, MENU_SHARE of them words of the page's link
    anchors: menus, link lists and teasers run together into one line (trafilatura's
    text recovery on a page without paragraphs), dropped as `menu-text`. A line that
    ends a sentence (`_SENTENCE_END`) is prose however many of its words the page's
    links also use (issue 43: on the development halves, F1 0.9366 -> 0.9382 on the news
    pages of bench_extract.py, 0.869 -> 0.870 on the 2025 pages of bench_wcxb.py)."""
    anchors = {word for _, anchor in links for word in anchor.lower().split()}
    dropped: list[tuple[str, str]] = []
    kept: list[list[Line]] = []
    for paragraph in paragraphs:
        lines = []
        for line in paragraph:
            if _menu_like(line.lower.split(), anchors) and not _SENTENCE_END.search(line.text):
                dropped.append((line.text, MENU_TEXT.name))
            else:
                lines.append(line)
        if lines:
            kept.append(lines)
    return kept, dropped


def is_page_dump(paragraphs: list[list[Line]], links: list[tuple[str, str]]) -> bool:
    """Is the main content trafilatura's dump of a thin page (issue 43, part 4): all of
    it one line (its text recovery on a page without paragraphs: an "About us" page of
    one sentence among menus, breadcrumbs and most-read lists) that is menu text
    (`without_menu_text`) once only words are counted, separators (|, ») and counts
    ("(746 views)") left out? The pre-cleaning, which keeps the page's blocks apart,
    then decides the page."""
    if len(paragraphs) != 1 or len(paragraphs[0]) != 1:
        return False
    anchors = {word for _, anchor in links for word in _words(anchor.lower())}
    return _menu_like(_words(paragraphs[0][0].lower), anchors)


def _menu_like(words: list[str], anchors: set[str]) -> bool:
    """MENU_WORDS words or more, MENU_SHARE of them words of the page's link anchors."""
    covered = sum(word in anchors for word in words)
    return len(words) >= MENU_WORDS and covered >= MENU_SHARE * len(words)


_WORD = re.compile(r"[^\W\d_]\S*")  # a token that starts with a letter
_PUNCTUATION = "\"'()[]{}.,;:!?«»“”‘’"


def _words(text: str) -> list[str]:
    """A line's words: its tokens that start with a letter, their punctuation cut off."""
    return [m.group(0).strip(_PUNCTUATION) for m in _WORD.finditer(text)]


_SENTENCE_END = re.compile(r"[.!?][\"'”’)\]]*\s*$")
_LINK_MARKER = re.compile(f"([{LINK_OPEN}{LINK_CLOSE}])")
_LINK_RUN_LINE = re.compile(f"{LINK_RUN}(\\d+){LINK_RUN}")


def _key(line: Line) -> str:
    return " ".join(line.text.lower().split())
