"""Pre-cleaning with regular expressions (fast, standard library), before html2text.

`remove_junk` removes comments, scripts, styles, the <head>, SVG, iframes... with their
content; `clean_markup` drops navigation markup (<nav>, <aside>, <header>/<footer>
outside <article>/<main>, forms, elements whose class, id or role names a menu, sidebar,
cookie notice, share bar, advert...: `NAV_ATTRIBUTE`), keeps only the page's one <main>
when it has exactly one, and simplifies the remaining tags; `to_markdown` writes the
Markdown html2text gives for the result (`render_markdown`: html2text's output state
machine without its HTML parser, 2.5 times faster on real pages; issue 56). Nothing here
raises on malformed HTML.
"""

from __future__ import annotations

import functools
import html
import html.entities
import re
from dataclasses import dataclass

import html2text
from html2text import config as _h2t_config
from html2text import utils as _h2t_utils

from collie.page.boilerplate import LINK_RUN
from collie.page.boilerplate_rules import LINK_CLOSE, LINK_OPEN

# Elements removed with their content. Raw-text ones run to the end of the page when
# never closed (as in browsers); for the others only the unclosed start tag goes.
_RAW_TEXT = {"script", "style", "noscript", "template", "title", "textarea", "xmp"}
_JUNK_START = re.compile(
    r"<(?:(!--)|(!\[CDATA\[)|(script|style|noscript|template|svg|iframe|object|canvas|head|"
    r"title|textarea|xmp)\b|(![a-zA-Z]|\?))",  # 4: <!DOCTYPE ...>, <?xml ...?>
    re.I,
)
# Every pattern is bounded ({0,2048}...): many unclosed tags or quotes never make a
# search quadratic. A '>' inside a quoted attribute value ends the tag early (rare).
_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9:-]{0,64})([^>]{0,2048})>")
_ANY_TAG = re.compile(r"<[^>]{0,2048}>")
# A start tag whose attributes run past those bounds (a product card's JSON in data-item,
# a media gallery's in media-json): its long quoted values are emptied before the walk,
# or the whole tag would reach the text as "<div class=..." (shorten_long_tags).
_LONG_TAG = re.compile(r"<[a-zA-Z][a-zA-Z0-9:-]{0,64}(?=[^>]{2048})")
_LONG_VALUE = re.compile(r"""=\s*(?:"[^"]{256,}"|'[^']{256,}')""")
_UNQUOTED = re.compile(r"[^\"'>]*")

# Elements removed whole, by name. header/footer only outside <article>/<main>.
_NAV_ELEMENTS = {"nav", "aside", "menu", "dialog", "select", "textarea", "button", "form"}
_PAGE_FRAME = {"header", "footer"}
_NEVER_REMOVED = {"html", "body", "main", "article"}
NAV_ATTRIBUTE = re.compile(
    r"""\b(?:class|id)\s*=\s*["']?[^"'>]*?(?<![a-z0-9])(?<!has-)(?<!with-)(?<!no-)(?:"""
    r"nav|navbar|navigation|menu|menubar|menus|submenu|breadcrumbs?|sidebar|side-bar|widgets?|"
    r"cookies?|cookie-?banner|consent|gdpr|share|sharing|sharedaddy|social|socials|"
    r"advert|adverts|advertisement|ads|adsense|ad-slot|sponsored|promo|popup|modal|newsletter|"
    r"subscribe|related|recommended|pagination|pager|toolbar|topbar|login|signup|searchform|"
    r"search-form|skip-link|skiplinks?|tagcloud|tag-cloud|sr-only|screen-reader-text|"
    r"visually-hidden|hidden|print-only|editsection|mw-editsection|(?P<frame>header|footer|masthead|site-header|site-footer)"
    r""")(?![a-z0-9])|\brole\s*=\s*["']?(?:navigation|banner|contentinfo|complementary|search|"""
    r"""menu|menubar|dialog|alert)\b|\baria-hidden\s*=\s*["']?true|\bhidden(?:\s|=|$)|"""
    r"display\s*:\s*none|visibility\s*:\s*hidden",
    re.I,
)
_BLOCKS = {"h1", "h2", "h3", "h4", "h5", "h6", "li", "ul", "ol", "blockquote"}
_BLOCKS |= {"pre", "br", "hr"}
_AS_DIV = {
    "table",
    "thead",
    "tbody",
    "tfoot",
    "tr",
    "td",
    "th",
    "caption",
    "section",
    "article",
    "main",
    "figure",
    "figcaption",
    "address",
    "header",
    "footer",
    "details",
    "summary",
    "center",
    "fieldset",
    "legend",
    "dl",
    "dt",
    "dd",
    "body",
}
_BREAKS = _AS_DIV | {"p", "div"}  # all become one paragraph break
_LINK_BLOCKS = {"li", "p", "div", "td", "th", "dt", "dd", "h1", "h2", "h3", "h4", "h5", "h6"}
_WORDY = re.compile(r"[^\W_]")
_MAX_SHARE = 0.4  # an attribute-matched element this big (share of the page) is a wrapper


def clean_inline(fragment: str) -> str:
    """The text of an HTML fragment: tags as spaces, entities decoded, spaces collapsed."""
    if "<" in fragment:
        fragment = _ANY_TAG.sub(" ", fragment)
    if "&" in fragment:
        fragment = html.unescape(fragment)
    return " ".join(fragment.split())


def _is_removable(name: str, attrs: str, in_content: bool) -> bool:
    if name in _NEVER_REMOVED:
        return False
    if name in _NAV_ELEMENTS:
        return True
    if name in _PAGE_FRAME:
        return not in_content
    if not attrs or attrs.isspace():
        return False
    found = _nav_attribute(attrs) if len(attrs) <= 300 else _nav_attribute.__wrapped__(attrs)
    return found is not None and not (in_content and found)


@functools.lru_cache(maxsize=8192)
def _nav_attribute(attrs: str) -> bool | None:
    """None when a start tag's attributes name no boilerplate (NAV_ATTRIBUTE), else
    whether what they name is a page frame (header, footer): a page's tags repeat the
    same attributes, so the search is cached."""
    if attrs.isascii():
        lower = attrs.lower()
        if _NAV_HINT.search(lower) is None:
            return None  # the search, slow on long class lists, cannot match
    match = NAV_ATTRIBUTE.search(attrs)
    return None if match is None else bool(match.group("frame"))


# A substring of every match of NAV_ATTRIBUTE (lower-case): attributes holding none of
# them are decided without the search (a third of the tag walk's time on real pages).
_NAV_HINTS = (
    *("nav", "menu", "breadcrumb", "side", "widget", "cookie", "consent", "gdpr", "shar"),
    *("social", "advert", "ads", "ad-slot", "sponsored", "promo", "popup", "modal"),
    *("newsletter", "subscribe", "related", "recommended", "pag", "toolbar", "topbar"),
    *("login", "signup", "search", "skip", "tag", "sr-only", "screen-reader", "hidden"),
    *("print-only", "editsection", "header", "footer", "masthead", "banner"),
    *("contentinfo", "complementary", "dialog", "alert", "display"),
)
_NAV_HINT = re.compile("|".join(sorted(_NAV_HINTS, key=len, reverse=True)))


def _simple_tag(name: str, closing: bool) -> str:
    """What a tag becomes for html2text: a block without attributes, a <div>, a link
    marker, or nothing (inline and unknown tags)."""
    if name == "a":
        return LINK_CLOSE if closing else LINK_OPEN
    if name in _BREAKS:
        return "<p>"  # html2text breaks paragraphs alike at <p>, </p>, <div>, </div>
    return (f"</{name}>" if closing else f"<{name}>") if name in _BLOCKS else ""


def _escape_stray(text: str) -> str:
    """A '<' that starts no tag is text: escaped, html.parser need not retry it."""
    return text.replace("<", "&lt;") if "<" in text else text


def shorten_long_tags(page: str) -> str:
    """The page with the long quoted attribute values of its over-long start tags
    emptied (`_LONG_TAG`): linear, one quote-aware scan a long tag."""
    kept: list[str] = []
    position = 0
    while (match := _LONG_TAG.search(page, position)) is not None:
        end = _tag_end(page, match.end())
        tag = _LONG_VALUE.sub('=""', page[match.start() : end])
        if len(tag) > 2000:  # many shorter values: only the tag's name is left
            tag = match.group(0) + ">"
        kept += (page[position : match.start()], tag)
        position = end
    if not kept:
        return page
    kept.append(page[position:])
    return "".join(kept)


def _tag_end(page: str, i: int) -> int:
    """The end of the tag going on at page[i], past quoted values holding '>'."""
    while True:
        i = _UNQUOTED.match(page, i).end()  # type: ignore[union-attr]
        if i >= len(page) or page[i] == ">":
            return min(i + 1, len(page))
        close = page.find(page[i], i + 1)
        if close < 0:  # an unclosed quote: the next '>' ends the tag
            found = page.find(">", i)
            return len(page) if found < 0 else found + 1
        i = close + 1


def clean_markup(
    page: str, link_runs: list[list[str]] | None = None, item_runs: set[int] | None = None
) -> str:
    """Drop navigation, page frame, forms and attribute-named boilerplate elements, and
    simplify the remaining tags (`_simple_tag`), in one walk over the tags.

    With `link_runs`, blocks holding nothing but one short link (menu items, headline
    lists) are not handed to html2text: each run of them becomes one marker line
    (LINK_RUN, its index in `link_runs`, LINK_RUN) and their anchor texts go to
    `link_runs`, for `apply_rules` to report them as dropped `link-only` lines; the
    indexes of the runs that are list items (`<li>`) go to `item_runs` when given.
    """
    page = shorten_long_tags(page)
    tags = list(_TAG.finditer(page))
    names = [t[2].lower() for t in tags]
    closing = [t[1] == "/" for t in tags]
    walk = _TagWalk(page, tags, names, closing, link_runs, item_runs)
    if "main" in names:
        mains = [i for i, n in enumerate(names) if n == "main" and not closing[i]]
        end = walk.end_of(mains[0]) if len(mains) == 1 else None
        if end is not None:
            return walk.clean(tags[mains[0]].start(), tags[end].end(), True)
    return walk.clean(0, len(page), False)


@dataclass
class _TagWalk:
    page: str
    tags: list[re.Match[str]]
    names: list[str]
    closing: list[bool]
    link_runs: list[list[str]] | None = None
    item_runs: set[int] | None = None

    def link_block(self, i: int, last: int) -> tuple[int, int, str] | None:
        """(next tag index, next position, anchor) when element i is <x><a>short</a></x>
        with nothing but punctuation around the link."""
        names, closing, tags = self.names, self.closing, self.tags
        if i + 3 >= len(names) or names[i + 1] != "a" or closing[i + 1]:
            return None
        if names[i + 2] != "a" or not closing[i + 2] or names[i + 3] != names[i]:
            return None
        after = tags[i + 3]
        if after.end() > last:
            return None
        page = self.page
        gaps = page[tags[i].end() : tags[i + 1].start()] + page[tags[i + 2].end() : after.start()]
        if _WORDY.search(gaps):
            return None
        anchor = clean_inline(page[tags[i + 1].end() : tags[i + 2].start()])
        if not _WORDY.search(anchor) or len(anchor.split()) >= 15:
            return None
        if closing[i + 3]:
            return i + 4, after.end(), anchor
        return i + 3, after.start(), anchor  # an unclosed <li> followed by the next one

    def collapse_link(self, kept: list[str], found: tuple[int, int, str], item: bool) -> None:
        """Add a link-only block to the current run of them, or start a run (a run of
        list items when `item`, the block an <li>)."""
        assert self.link_runs is not None
        anchor = found[2]
        if len(kept) >= 2 and kept[-1] == "<p>" and kept[-2].startswith(LINK_RUN):
            self.link_runs[-1].append(anchor)
            return
        if item and self.item_runs is not None:
            self.item_runs.add(len(self.link_runs))
        self.link_runs.append([anchor])
        kept += ("<p>", f"{LINK_RUN}{len(self.link_runs) - 1}{LINK_RUN}", "<p>")

    def end_of(self, i: int) -> int | None:
        """Index of the end tag of start tag i (same-name tags counted), if any."""
        name, depth, names, closing = self.names[i], 1, self.names, self.closing
        for k in range(i + 1, len(names)):
            if names[k] == name:
                depth += -1 if closing[k] else 1
                if depth == 0:
                    return k
        return None

    def removed_until(self, i: int, in_content: bool, limit: float) -> int | None:
        """Index of the end tag when element i is boilerplate to remove whole."""
        name, tag = self.names[i], self.tags[i]
        if self.closing[i] or not _is_removable(name, tag.group(3), in_content):
            return None
        j = self.end_of(i)
        if j is None:
            return None
        by_name = name in _NAV_ELEMENTS or name in _PAGE_FRAME
        # a <form> holding a large part of the page is an ASP.NET-style wrapper
        if (by_name and name != "form") or self.tags[j].end() - tag.start() <= limit:
            return j
        return None

    def clean(self, first: int, last: int, in_main: bool) -> str:
        """Cleaned page[first:last] (the whole page, or its one <main>)."""
        kept: list[str] = []
        position, content_depth, limit = first, 0, _MAX_SHARE * (last - first)
        i, count = 0, len(self.tags)
        while i < count:
            tag = self.tags[i]
            if tag.start() < first or tag.end() > last:
                i += 1
                continue
            name = self.names[i]
            if name in ("article", "main"):
                content_depth += -1 if self.closing[i] else 1
            text = self.page[position : tag.start()]
            if self.link_runs is not None and name in _LINK_BLOCKS and not self.closing[i]:
                found = self.link_block(i, last)
                if found is not None:
                    if not text.isspace():
                        kept.append(_escape_stray(text))
                    self.collapse_link(kept, found, name == "li")
                    i, position = found[0], found[1]
                    continue
            j = self.removed_until(i, in_main or content_depth > 0, limit)
            if j is not None:
                kept += (text, " ")
                position, i = self.tags[j].end(), j + 1
                continue
            simple = _simple_tag(name, self.closing[i])
            if text and not (simple.startswith("<") and text.isspace()):  # spaces before a block:
                kept.append(_escape_stray(text))  # one html2text event less, same Markdown
            if simple != "<p>" or not kept or kept[-1] != "<p>":  # runs of breaks: one break
                kept.append(simple)
            position, i = tag.end(), i + 1
        kept.append(_escape_stray(self.page[position:last]))
        return "".join(kept)


def _escape_md_section(text: str, snob: bool = False) -> str:
    """html2text's `escape_md_section` (its 2025.4.15 code) with each of its four
    substitutions run only when its character is in the text: the same output; nearly a
    third of html2text's time on real pages went to them."""
    if "\\" in text:
        text = _h2t_config.RE_MD_BACKSLASH_MATCHER.sub(r"\\\1", text)
    if snob:
        text = _h2t_config.RE_MD_CHARS_MATCHER_ALL.sub(r"\\\1", text)
    if "." in text:
        text = _h2t_config.RE_MD_DOT_MATCHER.sub(r"\1\\\2", text)
    if "+" in text:
        text = _h2t_config.RE_MD_PLUS_MATCHER.sub(r"\1\\\2", text)
    if "-" in text:
        text = _h2t_config.RE_MD_DASH_MATCHER.sub(r"\1\\\2", text)
    return text


if getattr(html2text, "escape_md_section", None) is _h2t_utils.escape_md_section:
    html2text.escape_md_section = _escape_md_section


def to_markdown(page: str) -> str:
    """The Markdown of `clean_markup`'s output: html2text's, no wrapping, no links,
    images or emphasis (`render_markdown`, its output without its parser)."""
    return render_markdown(page)


def html2text_markdown(page: str) -> str:
    """html2text itself over simplified markup, with `to_markdown`'s options (what
    `render_markdown` is checked against)."""
    converter = html2text.HTML2Text()
    converter.body_width = 0
    converter.unicode_snob = True
    converter.ignore_links = True
    converter.ignore_images = True
    converter.ignore_emphasis = True
    converter.ignore_tables = True
    try:
        return converter.handle(page)
    except Exception:  # html2text on broken markup: the page is data, not a crash
        return clean_inline(page)


@functools.lru_cache(maxsize=32)
def _closer(text: str) -> re.Pattern[str]:
    return re.compile(re.escape(text), re.I)


def without_code_blocks(page: str) -> str:
    """The page without its <pre> elements (extract.code = "out"): linear, one literal
    search a block; an unclosed <pre> is left as it is."""
    lower = page.lower()
    kept: list[str] = []
    position = 0
    while (start := _PRE_START.search(lower, position)) is not None:
        end = lower.find("</pre", start.end())
        if end < 0:
            break
        close = lower.find(">", end)
        kept += (page[position : start.start()], " ")
        position = len(page) if close < 0 else close + 1
    kept.append(page[position:])
    return "".join(kept)


_PRE_START = re.compile(r"<pre[\s>]")


def remove_junk(page: str) -> str:
    """Remove comments, CDATA, declarations, scripts, styles, the <head>, SVG, iframes...
    with their content. Linear in the page: one literal search per removed piece, never
    a backtracking pattern over unclosed elements."""
    kept: list[str] = []
    position = 0
    missing: set[str] = set()  # closers not found after some point: not found later either
    while (match := _JUNK_START.search(page, position)) is not None:
        kept.append(page[position : match.start()])
        comment, cdata, name, declaration = match.groups()
        if declaration:
            tag_end = page.find(">", match.end())
            position = len(page) if tag_end < 0 else tag_end + 1
            continue
        closer = "-->" if comment else "]]>" if cdata else f"</{name.lower()}"
        found = None if closer in missing else _closer(closer).search(page, match.end())
        if found is None:
            missing.add(closer)
            if not (comment or cdata or name.lower() in _RAW_TEXT):
                tag_end = page.find(">", match.end())  # an unclosed <head>: drop the tag only
                position = len(page) if tag_end < 0 else tag_end + 1
                continue
            position = len(page)
        else:
            tag_end = page.find(">", found.end() - 1)
            position = len(page) if tag_end < 0 else tag_end + 1
        kept.append(" ")
    kept.append(page[position:])
    return "".join(kept)


# --- Markdown from the simplified markup, without html2text's parser ------------------

# What `clean_markup` leaves: these tags, without attributes, text with its stray '<'
# escaped, and entities. html.parser's own entity patterns (convert_charrefs off, as
# html2text runs it): the character after the name ends it and is consumed only when ';'.
_SIMPLE_TOKEN = re.compile(
    r"<(/?)(p|h[1-6]|li|ul|ol|blockquote|pre|br|hr)>"
    r"|&#((?:[0-9]+|[xX][0-9a-fA-F]+))(?:;|(?=[^0-9a-fA-F]))"
    r"|&([a-zA-Z][-.a-zA-Z0-9]*)(?:;|(?=[^a-zA-Z0-9]))"
    r"|&"
)
_NBSP_HOLDER = "&nbsp_place_holder;"
_LAST_INCOMPLETE = re.compile(r"[a-zA-Z]")


def _charref(name: str) -> str:
    """html2text's `charref` with unicode_snob."""
    code = int(name[1:], 16) if name[0] in "xX" else int(name)
    if not 0 < code < 0x110000 or 0xD800 <= code < 0xE000:
        code = 0xFFFD
    return chr(_h2t_utils.control_character_replacements.get(code, code))


def _entityref(name: str) -> str:
    """html2text's `entityref` with unicode_snob."""
    if name == "nbsp":
        return _NBSP_HOLDER
    return html.entities.html5.get(name + ";", "&" + name + ";")


class _Markdown:
    """html2text's output state machine (`HTML2Text.o`, `handle_tag`, `handle_data`,
    html2text 2025.4.15, GPL-3.0-or-later like collie) for the tags `clean_markup` keeps
    and the options `to_markdown` sets: the same Markdown, without html.parser's
    tokenizer and html2text's handling of the tags and options collie never gives it
    (checked against html2text by tests/test_extract.py)."""

    def __init__(self) -> None:
        self.out: list[str] = []
        self.p_p = 0
        self.space = False
        self.start = True
        self.last_nl = False
        self.br_toggle = ""
        self.quote = 0
        self.pre = False
        self.startpre = False
        self.pre_indent = ""
        self.lists: list[str] = []  # the open lists' names, innermost last
        self.numbers: list[int] = []  # their items so far
        self.code_indent = ""
        self.last_was_list = False

    def emit(self, s: str) -> None:
        if s:
            self.out.append(s)
            self.last_nl = s[-1] == "\n"

    def o(self, data: str, puredata: bool = False, force: str = "") -> None:
        if puredata and not self.pre and data:
            # re.sub(r"\s+", " ", data) as html2text, in str methods: the same spaces
            if data[0].isspace():
                self.space = True
            ends = data[-1].isspace()
            data = " ".join(data.split())
            if ends and data:
                data += " "
        if not data and not force:
            return
        if self.startpre and not data.startswith("\n"):
            data = "\n" + data
        bq = ">" * self.quote
        if not (force and data and data[0] == ">") and self.quote:
            bq += " "
        if self.pre:
            if self.lists:
                bq += self.code_indent
            bq += "    "
            data = data.replace("\n", "\n" + bq)
            self.pre_indent = bq
        if self.startpre:
            self.startpre = False
            if self.lists:
                data = data.lstrip("\n" + self.pre_indent)
        if self.start:
            self.space = False
            self.p_p = 0
            self.start = False
        if force == "end":
            self.p_p = 0
            self.emit("\n")
            self.space = False
        if self.p_p:
            self.emit((self.br_toggle + "\n" + bq) * self.p_p)
            self.space = False
            self.br_toggle = ""
        if self.space:
            if not self.last_nl:
                self.emit(" ")
            self.space = False
        self.p_p = 0
        self.emit(data)

    def data(self, data: str, entity: bool = False) -> None:
        if not data:
            return
        if not self.pre and not entity:
            data = _escape_md_section(data)
        self.o(data, puredata=True)

    def tag(self, name: str, start: bool) -> None:
        if name[0] == "h" and name[1:].isdigit():
            self.p_p = 2
            if not start:
                return
            self.o("#" * int(name[1:]) + " ")
        elif name == "p":
            self.p_p = 2
        elif name == "br":
            if start:
                self.o("  \n> " if self.quote > 0 else "  \n")
        elif name == "hr":
            if start:
                self.p_p = 2
                self.o("* * *")
                self.p_p = 2
        elif name == "blockquote":
            if start:
                self.p_p = 2
                self.o("> ", force="quote")
                self.start = True
                self.quote += 1
            else:
                self.quote -= 1
                self.p_p = 2
        if name in ("ol", "ul"):
            if not self.lists and not self.last_was_list:
                self.p_p = 2
            if start:
                self.lists.append(name)
                self.numbers.append(0)
            elif self.lists:
                self.lists.pop()
                self.numbers.pop()
                if not self.lists:
                    self.o("\n")
            self.last_was_list = True
        else:
            self.last_was_list = False
        if name == "li":
            self.code_indent = ""
            if self.p_p == 0:
                self.p_p = 1
            if start:
                parent = None
                for kind in self.lists:
                    self.code_indent += "   " if parent == "ol" else "  "
                    parent = kind
                self.o(self.code_indent)
                if not self.lists or self.lists[-1] == "ul":
                    self.code_indent += "  "
                    self.o("* ")
                else:
                    self.numbers[-1] += 1
                    self.code_indent += "   "
                    self.o(f"{self.numbers[-1]}. ")
                self.start = True
        elif name == "pre":
            if start:
                self.startpre = True
                self.pre = True
                self.pre_indent = ""
            else:
                self.pre = False
            self.p_p = 2

    def finish(self) -> str:
        if self.p_p == 0:
            self.p_p = 1
        self.o("", force="end")
        text = "".join(self.out)
        return text.replace(_NBSP_HOLDER, "\xa0") if _NBSP_HOLDER in text else text


def render_markdown(simplified: str) -> str:
    """The Markdown html2text gives for `clean_markup`'s output with `to_markdown`'s
    options (no wrapping, links, images or emphasis), in a tenth of its time: one
    pattern finds the tags and entities, `_Markdown` writes the output."""
    writer = _Markdown()
    position = 0
    if simplified[-2:-1] == "&" and _LAST_INCOMPLETE.match(simplified[-1]):
        simplified = simplified[:-2] + simplified[-1]  # html.parser drops that '&'
    for token in _SIMPLE_TOKEN.finditer(simplified):
        if token.start() > position:
            writer.data(simplified[position : token.start()])
        position = token.end()
        name = token.group(2)
        if name is not None:
            writer.tag(name, not token.group(1))
        elif token.group(3) is not None:
            writer.data(_charref(token.group(3)), entity=True)
        elif token.group(4) is not None:
            ref = _entityref(token.group(4))
            if ref:
                writer.data(ref, entity=True)
        else:
            writer.data("&")
    if position < len(simplified):
        writer.data(simplified[position:])
    return writer.finish()
