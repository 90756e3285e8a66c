"""HTML -> Markdown -> clean text, with the boilerplate rules in one table.

With extract.main = "trafilatura" (the default), the main content is found on the DOM
(maintext.py) and rendered as html2text renders it, the line rules apply to it, and the steps below
(extract.main = "rules") still run: their result decides a page where trafilatura finds
under MIN_MAIN_CHARS, and gives back the long lines it missed. The pre-cleaning's
`extract_html` works in three steps:

1. Pre-cleaning with regular expressions (preclean.py): scripts, styles,
   comments, forms and their controls, images and embedded objects are removed, then
   navigation markup: <nav>, <aside>, <header>/<footer> outside <article>/<main>, and
   elements whose class, id or role names a menu, sidebar, cookie notice, share bar,
   advert... (`NAV_ATTRIBUTE`). When the page has exactly one <main>, only it is kept.
   The links (with anchor texts) are taken from the page before navigation is removed,
   since navigation links matter to the crawler.
2. What is left becomes the Markdown html2text gives for it (CorpusCollie's choice;
   `preclean.render_markdown` writes it without html2text's parser), links written as
   their anchor text, no images, no emphasis, no line wrapping.
3. With `boilerplate="rules"`, each line is tested against `RULES` (copyright lines,
   link-only lines, pipe-separated link lists, cookie notices, share bars, runs of very
   short lines...) and dropped lines are returned with the rule that dropped them.

`Extracted.text` is the kept text without Markdown markup, one paragraph per block;
`Extracted.markdown` is the same kept lines with their Markdown markup (headings, list
bullets, quotes). Nothing here raises on malformed HTML: the worst page gives empty text.
"""

from __future__ import annotations

import contextlib
import functools
import html
import re
from collections import Counter
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

from collie.page.boilerplate import LINK_RUN, apply_rules
from collie.page.boilerplate_rules import LINK_CLOSE, LINK_OPEN, MENU_TEXT, Line
from collie.page.encoding import normalise_text
from collie.page.maintext import (
    CARD_LINK_SHARE,
    LONG_LINE,
    MIN_MAIN_CHARS,
    SHORT_MAIN,
    is_page_dump,
    link_share,
    main_content,
    with_list_items,
    with_long_lines,
    without_menu_text,
)
from collie.page.preclean import (
    clean_inline,
    clean_markup,
    remove_junk,
    to_markdown,
    without_code_blocks,
)
from collie.urls import canonical_url

# Bounded patterns ({0,2048}...), as in preclean.py: never a quadratic search.
_HTML_START_TAG = re.compile(r"<html\b[^>]{0,2048}>", re.I)
_LANG = re.compile(r"""\b(?:xml:)?lang\s*=\s*["']?\s*([A-Za-z0-9_-]{0,64})""", re.I)
_BASE = re.compile(r"<base\b[^>]{0,2048}>", re.I)
_ALT = re.compile(r"""\b(?:alt|title|aria-label)\s*=\s*(?:"([^"]{0,500})"|'([^']{0,500})')""", re.I)
_ANCHOR_TAG = re.compile(r"<(/?)a(?:\s[^>]{0,2048})?>", re.I)  # an <a> start or end tag
_HREF = re.compile(r"""\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+))""", re.I)
_WHITESPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Extracted:
    """What one page gives: kept text and paragraphs, and what was learnt on the way."""

    text: str
    paragraphs: list[str]
    title: str
    lang: str  # the <html lang> attribute as written ("" when absent)
    links: list[tuple[str, str]]  # (absolute URL, anchor text), in page order
    dropped: list[tuple[str, str]] = field(default_factory=list)  # (line, rule name)
    markdown: str = ""
    cards: bool = False  # a page of cards (listing, collection): maintext.link_share


# --- links, title, lang ------------------------------------------------------------------


def _attribute(match: re.Match[str] | None) -> str | None:
    if match is None:
        return None
    value = next((g for g in match.groups() if g is not None), "")
    return (html.unescape(value) if "&" in value else value).strip()


# Hrefs whose absolute form is already canonical: no dot segments, escapes or queries.
_SIMPLE_PATH = re.compile(r"(?:/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)*/?")
_SIMPLE_ABSOLUTE = re.compile(r"(https?://[a-z0-9-]+(?:\.[a-z0-9-]+)*)(/.*)?")


class _LinkResolver:
    """Absolute canonical URLs for one page's hrefs, with a fast path for plain paths."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.origin: str | None = None
        with contextlib.suppress(ValueError):
            parts = urlsplit(canonical_url(base)) if base else None
            if parts and parts.scheme in ("http", "https") and parts.netloc:
                self.origin = f"{parts.scheme}://{parts.netloc}"
        self.cache: dict[str, str | None] = {}

    def resolve(self, href: str) -> str | None:
        if href in self.cache:
            return self.cache[href]
        url = self._fast(href) or self._slow(href)
        self.cache[href] = url
        return url

    def _fast(self, href: str) -> str | None:
        if href.startswith("/") and not href.startswith("//") and self.origin:
            return self.origin + href if _SIMPLE_PATH.fullmatch(href) else None
        match = _SIMPLE_ABSOLUTE.fullmatch(href)
        if match and not match.group(1).endswith((":80", ":443")):
            path = match.group(2) or "/"
            return match.group(1) + path if _SIMPLE_PATH.fullmatch(path) else None
        return None

    def _slow(self, href: str) -> str | None:
        href = href.replace("\n", "").replace("\t", "").replace("\r", "").strip()
        if not href or href.startswith("#"):
            return None
        resolve = resolve_link if len(href) <= 512 else resolve_link.__wrapped__
        if self.origin and href.startswith("/") and not href.startswith("//"):
            return resolve(self.origin + "/", href)  # cached for all pages of the site
        return resolve(self.base, href)


@functools.lru_cache(maxsize=16384)
def resolve_link(base: str, href: str) -> str | None:
    """The absolute canonical http(s) URL of href on base, or None."""
    try:
        url = urljoin(base, href)
        parts = urlsplit(url)
        if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
            return None
        if "/." in parts.path:  # urljoin resolves dot segments of relative refs only
            url = urljoin(url, parts.path + (f"?{parts.query}" if parts.query else ""))
    except ValueError:
        return None
    return canonical_url(url)


def find_links(page: str, base_url: str) -> list[tuple[str, str]]:
    """Every http(s) link of the page, absolute and fragment-free, with its anchor text.

    `base_url` is the page's final URL, already resolved against its <base href>.
    """
    resolver = _LinkResolver(base_url)
    links: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()
    tags = list(_ANCHOR_TAG.finditer(page))
    for i, tag in enumerate(tags):
        if tag[1]:
            continue  # an end tag
        found = _HREF.search(tag[0])  # within one tag: bounded
        if found is None:
            continue
        href = found[1] if found[1] is not None else found[2] or found[3] or ""
        url = resolver.resolve(html.unescape(href) if "&" in href else href)
        if url is None:
            continue
        end = tags[i + 1].start() if i + 1 < len(tags) else min(len(page), tag.end() + 2000)
        inner = page[tag.end() : end]
        anchor = clean_inline(inner) or (_attribute(_ALT.search(tag[0] + inner[:500])) or "")
        if (url, anchor) not in seen:
            seen.add((url, anchor))
            links.append((url, anchor))
    return links


_TITLE_START, _TITLE_END = re.compile("<title", re.I), re.compile("</title", re.I)


def _title(page: str) -> str:
    """The text of the page's first <title> (searched without lower-casing a copy of the
    whole page: a millisecond a page)."""
    start = _TITLE_START.search(page)
    opened = page.find(">", start.end()) if start else -1
    end = _TITLE_END.search(page, opened) if opened >= 0 else None
    return clean_inline(page[opened + 1 : end.start()]) if end else ""


def _lang(page: str) -> str:
    tag = _HTML_START_TAG.search(page[:20000])
    match = _LANG.search(tag.group(0)) if tag else None
    return match.group(1) if match else ""


def extract_html(
    page: str,
    base_url: str = "",
    boilerplate: str = "rules",
    engine: str = "trafilatura",
    code: str = "apart",
    cards_text: bool = True,
) -> Extracted:
    """Clean text, paragraphs, title, lang attribute and links of one decoded HTML page.

    engine "trafilatura": the main content is found on the DOM (`main_content`; found again
    with trafilatura's fallbacks when under SHORT_MAIN characters), with the line rules
    after it (not the layout passes), the long lines only the pre-cleaning kept put back
    (`with_long_lines`: what the main content does not say already), short linked list items
    inside the text kept (`with_list_items`) and menu text run together dropped
    (`without_menu_text`); the pre-cleaning with regular expressions decides a page where it
    finds under MIN_MAIN_CHARS, or only its dump of a thin page (`is_page_dump`). engine
    "fast": trafilatura's fast mode's main text through the line rules, without the
    pre-cleaning of the whole page (`_fast_main`: at trafilatura's default speed, for less
    F1). engine "rules": the pre-cleaning only. code "apart": a code block's lines are
    paragraphs of their own; "out": code blocks (<pre>) are removed before anything else
    (their links go with them). Links, title and lang are taken from the whole page either
    way. The results are NFC with Unix newlines whatever the input's normalisation.
    `cards_text`: on a page of cards (`Extracted.cards`) the link rules give way to the
    lines whose links name cards (boilerplate.apply_rules, `cards`) and the menu-text pass
    is skipped; the listing decision takes the page's cards as evidence
    (collie.decide.listing).
    """
    if code == "out":
        page = without_code_blocks(page)
    title, lang = normalise_text(_title(page)), _lang(page)
    base_tag = _BASE.search(page[:20000])
    base = _attribute(_HREF.search(base_tag.group(0))) if base_tag else None
    if base:
        base_url = urljoin(base_url, base) if base_url else base
    original = page
    main = main_content(page) if engine in ("trafilatura", "fast") else None
    page = _without_markers(normalise_text(remove_junk(page)))
    links = find_links(page, base_url)
    if engine == "fast" and main is not None:
        paragraphs, dropped = _fast_main(main, boilerplate, links)
        if paragraphs is not None:
            return _extracted(paragraphs, dropped, title, lang, links, False)
    link_runs: list[list[str]] | None = [] if boilerplate == "rules" else None
    items: set[int] = set()  # the link runs that are list items
    whole = to_markdown(clean_markup(page, link_runs, items))
    markdown = ""
    cards = boilerplate == "rules" and link_share(whole, link_runs or []) >= CARD_LINK_SHARE
    card_rules = cards and cards_text  # its cards are its text
    in_main = "none" if card_rules else boilerplate  # no link runs taken away
    if main is not None and engine == "trafilatura":
        markdown, runs, main_items = _main_markdown(main, in_main)
        if MIN_MAIN_CHARS <= len(markdown) < SHORT_MAIN:  # found again with the fallbacks
            again = main_content(original, fast=False)
            if again is not None:
                markdown, runs, main_items = _main_markdown(again, in_main)
    if len(markdown) < MIN_MAIN_CHARS:  # trafilatura's own floor: below it, it guesses
        paragraphs, dropped = apply_rules(whole, boilerplate, link_runs or [])
    else:  # of the pre-cleaning's lines, only the long ones are judged (with_long_lines)
        lines, _ = apply_rules(whole, boilerplate, link_runs or [], only_long=LONG_LINE)
        paragraphs, dropped = apply_rules(
            markdown, boilerplate, runs or [], layout=False, cards=card_rules
        )
        paragraphs, back = with_list_items(paragraphs, markdown, runs or [], main_items)
        paragraphs = with_long_lines(paragraphs, lines)
        paragraphs, _ = with_list_items(paragraphs, whole, link_runs or [], items)
        dropped = _without(dropped, back)
        dump = boilerplate == "rules" and is_page_dump(paragraphs, links)
        rest: list[list[Line]] = []
        if dump:  # the pre-cleaning decides a dump, unless it keeps nothing (issue 56)
            rest, rest_dropped = apply_rules(whole, boilerplate, link_runs or [])
        if rest:
            dropped = [*rest_dropped, (paragraphs[0][0].text, MENU_TEXT.name)]
            paragraphs = rest
        elif boilerplate == "rules" and not card_rules and not dump:
            paragraphs, menus = without_menu_text(paragraphs, links)
            dropped += menus
    return _extracted(paragraphs, dropped, title, lang, links, cards)


def _fast_main(
    main: str, boilerplate: str, links: list[tuple[str, str]]
) -> tuple[list[list[Line]] | None, list[tuple[str, str]]]:
    """engine "fast": trafilatura's fast mode's main text through the line rules, its
    short linked list items kept and menu text dropped, without the pre-cleaning of the
    whole page (no long lines put back, no second look with trafilatura's fallbacks, no
    page of cards). None for a main text under MIN_MAIN_CHARS or a thin page's dump:
    the pre-cleaning decides those, as with engine "trafilatura"."""
    markdown, runs, items = _main_markdown(main, boilerplate)
    if len(markdown) < MIN_MAIN_CHARS:
        return None, []
    paragraphs, dropped = apply_rules(markdown, boilerplate, runs or [], layout=False)
    paragraphs, back = with_list_items(paragraphs, markdown, runs or [], items)
    dropped = _without(dropped, back)
    if boilerplate == "rules":
        if is_page_dump(paragraphs, links):
            return None, []
        paragraphs, menus = without_menu_text(paragraphs, links)
        dropped += menus
    return paragraphs, dropped


def _extracted(
    paragraphs: list[list[Line]],
    dropped: list[tuple[str, str]],
    title: str,
    lang: str,
    links: list[tuple[str, str]],
    cards: bool,
) -> Extracted:
    """The page's `Extracted` from its kept paragraphs."""
    texts = ["\n".join(line.text for line in p) for p in paragraphs]
    marked = ["\n".join(line.markdown.strip() for line in p) for p in paragraphs]
    return Extracted(
        text="\n\n".join(texts),
        paragraphs=texts,
        title=title,
        lang=lang,
        links=links,
        dropped=dropped,
        markdown="\n\n".join(marked),
        cards=cards,
    )


def _main_markdown(main: str, boilerplate: str) -> tuple[str, list[list[str]] | None, set[int]]:
    """The main content's Markdown, its link runs when the line rules apply, and which
    of them are list items."""
    runs: list[list[str]] | None = [] if boilerplate == "rules" else None
    items: set[int] = set()
    main = _INLINE_CODE.sub(r"\1", main) if "<pre>" in main else main
    markdown = to_markdown(clean_markup(_without_markers(normalise_text(main)), runs, items))
    return markdown, runs, items


def _without(dropped: list[tuple[str, str]], back: list[str]) -> list[tuple[str, str]]:
    """The dropped lines without the link-only ones put back (`with_list_items`)."""
    if not back:
        return dropped
    left = Counter(back)
    kept = []
    for line, rule in dropped:
        if rule == "link-only" and left[line] > 0:
            left[line] -= 1
        else:
            kept.append((line, rule))
    return kept


# trafilatura writes inline <code> as <pre>: a one-line <pre> is a word of its sentence.
_INLINE_CODE = re.compile(r"<pre>([^<\n]{0,200})</pre>")


def _without_markers(page: str) -> str:
    """The page's own characters that collie uses as link-run markers are removed."""
    if LINK_OPEN in page or LINK_CLOSE in page or LINK_RUN in page:
        page = page.replace(LINK_OPEN, "").replace(LINK_CLOSE, "").replace(LINK_RUN, "")
    return page


def text_paragraphs(text: str, boilerplate: str = "rules") -> list[str]:
    """The paragraphs of a page's plain text with a line per block (as an archive's WET
    record gives it: menus and footers included): each line a paragraph, through the
    line rules and the layout passes that guess boilerplate from the lines."""
    lines = [line.strip() for line in normalise_text(text).split("\n")]
    markdown = "\n\n".join(_MARKDOWN_START.sub(r"\\\g<0>", line) for line in lines if line)
    paragraphs, _ = apply_rules(markdown, boilerplate)
    return ["\n".join(line.text for line in p) for p in paragraphs]


_MARKDOWN_START = re.compile(r"^(?:[#>*+-]|\d+[.)])")  # plain text, not Markdown syntax
