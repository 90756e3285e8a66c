"""The main text of a page found on its DOM (extract.main = "trafilatura"), and the two
corrections collie makes to it: long lines it missed put back, menu text run together
dropped. extract.py calls these; the line rules (boilerplate.py) apply in between.

Chosen by measurement on 945 real pages (benchmarks/bench_extract.py): F1 0.926, against
0.924 for trafilatura with its fallbacks and 0.833 for collie's regular-expression
pre-cleaning and line rules alone.
"""

from __future__ import annotations

import logging

from collie.errors import dependency_error
from collie.page.boilerplate_rules import MENU_TEXT, Line

log = logging.getLogger("collie.maintext")

# Main content shorter than this (Markdown characters) is not trusted: trafilatura itself
# counts under 250 characters as not found and falls back to its cruder baseline, which
# keeps a short page's menu; the pre-cleaning decides such pages (the short-page vote
# then decides whether they count).
MIN_MAIN_CHARS = 250
LONG_LINE = 200  # a line this long that only the pre-cleaning kept is prose (with_long_lines)
MENU_WORDS, MENU_SHARE = 10, 0.7  # without_menu_text; 0.5 cost 0.024 of F1 on real pages


def check_installed() -> None:
    """Raise DependencyError (naming the package) unless the main-text extractor and
    everything it imports load: a command that extracts pages calls this first, so a
    broken install fails once, plainly, instead of on every page."""
    try:
        import trafilatura  # noqa: F401
    except ImportError as exc:
        raise dependency_error(exc) from exc


def main_content(page: str) -> str | None:
    """The page's main content as simple HTML (paragraphs, headings, lists, tables,
    quotes, links), found by trafilatura on the parsed DOM; None when it finds none or
    fails on the markup.

    Its fast mode: its fallbacks (its baseline and jusText, whose stop-word lists know
    none of the languages collie mines) dump a thin page's menus as one paragraph; with
    them, F1 on the 945 real pages of benchmarks/bench_extract.py is 0.003 higher and the
    project's own closed world leaks 5.9% boilerplate instead of 3.7%.
    """
    import trafilatura  # 0.14 s to import: only when a page is extracted

    try:
        kept = trafilatura.extract(
            page,
            output_format="html",
            fast=True,
            include_comments=False,
            include_images=False,
            include_links=True,  # for the line rules (link-dense, link-only)
            with_metadata=False,
        )
    except Exception:  # lxml/trafilatura on hostile markup: the page is data, not a crash
        log.debug("trafilatura failed on a page", exc_info=True)
        return None
    return kept or None


def with_long_lines(main: list[list[Line]], rules: list[list[Line]]) -> list[list[Line]]:
    """The main content's paragraphs, with the lines of at least LONG_LINE characters that
    only the pre-cleaning kept put back in page order, each its own paragraph.

    trafilatura misses prose in some layouts (list items inside table cells, several
    post containers): on the project's page templates its F1 is 0.944, 0.962 with these
    lines back; on the 945 real pages of benchmarks/bench_extract.py 0.9285 vs 0.9281.
    Language ID still judges every line.
    """
    where = {
        _key(line): (i, j) for i, paragraph in enumerate(main) for j, line in enumerate(paragraph)
    }
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
            elif found is None and len(line.text) >= LONG_LINE:
                merged.append([line])
                fresh = True
    emit_until((len(main), 0))
    return merged


def without_menu_text(
    paragraphs: list[list[Line]], links: list[tuple[str, str]]
) -> tuple[list[list[Line]], list[tuple[str, str]]]:
    """Lines of MENU_WORDS words or more, MENU_SHARE of them words of the page's link
    anchors: menus, link lists and teasers run together into one line (trafilatura's
    text recovery on a page without paragraphs), dropped as `menu-text`."""
    anchors = {word for _, anchor in links for word in anchor.lower().split()}
    dropped: list[tuple[str, str]] = []
    kept: list[list[Line]] = []
    for paragraph in paragraphs:
        lines = []
        for line in paragraph:
            words = line.lower.split()
            covered = sum(word in anchors for word in words)
            if len(words) >= MENU_WORDS and covered >= MENU_SHARE * len(words):
                dropped.append((line.text, MENU_TEXT.name))
            else:
                lines.append(line)
        if lines:
            kept.append(lines)
    return kept, dropped


def _key(line: Line) -> str:
    return " ".join(line.text.lower().split())
