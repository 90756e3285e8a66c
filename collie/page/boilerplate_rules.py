"""Boilerplate rules: the table (`RULES`) of line tests, and the `Line` they test.

Each rule has a name, a description, and a regular expression searched in the line's
text or a predicate over the parsed `Line` (text, anchor texts of its links, the text
outside links). The rules after the table (`SHORT_RUN`, `ORPHAN_HEADING`,
`ISOLATED_LINE`, `MENU_TEXT`) name what the passes over a whole page drop.
collie.page.boilerplate applies them all.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

LINK_OPEN, LINK_CLOSE = "\ue000", "\ue001"  # anchor-text markers through html2text
_NOT_WORD = re.compile(r"[\W\d_]+")


class Line(NamedTuple):
    """One line of Markdown, as the boilerplate rules see it (a tuple: cheap to make)."""

    markdown: str  # with Markdown markup, without link markers
    text: str  # without markup
    links: tuple[str, ...]  # anchor texts of the links on the line
    outside: str  # the text that is not inside a link
    lower: str = ""  # text, lower-cased
    words: int = 0  # number of words in text


_COUNTS = re.compile(
    r"\(?\s{0,3}\d[\d,.]*\s{0,3}(?:views?|comments?|replies|shares?|reads?|likes?)?\s{0,3}\)?",
    re.I,
)


def _only_links(line: Line) -> bool:
    """Links and nothing else but punctuation, numbers or counts like '(123 views)'."""
    return bool(line.links) and not _NOT_WORD.sub("", _COUNTS.sub("", line.outside))


def _is_link_only(line: Line) -> bool:
    return _only_links(line) and max(len(a.split()) for a in line.links) < 15


def _is_link_dense(line: Line) -> bool:
    if len(line.links) < 3:
        return False
    return sum(len(a) for a in line.links) >= 0.6 * max(1, len(line.text))


_SEPARATORS = re.compile(r"\s[|·•»/–]\s|\s\|\s{0,3}|\s{0,3}\|\s")  # bounded: no quadratic runs


_PIPE_CHARS, _CRUMB_CHARS, _ALNUM = (
    re.compile("[|·•»/–]"),
    re.compile("[>»›→]"),
    re.compile(r"[^\W_]"),
)


def _is_pipe_list(line: Line) -> bool:
    if not _PIPE_CHARS.search(line.text):
        return False
    parts = [p for p in _SEPARATORS.split(line.text) if p.strip()]
    return len(parts) >= 3 and all(len(p.split()) <= 4 for p in parts)


# A '>' between spaces, or a guillemet or arrow: "Home > News", "Blog » 2024". A bare '>'
# is code or markup ("Task<string>", "ISL> prompt"), and so is any line with a '<':
# on the 2025 pages of bench_wcxb.py, 1,481 words of main text were dropped as
# breadcrumbs before (documentation pages' code and command lines).
_CRUMBS = re.compile(r"\s{1,3}>\s{1,3}|\s{0,3}[»›→]\s{0,3}")


def _is_breadcrumb(line: Line) -> bool:
    if not _CRUMB_CHARS.search(line.text) or "<" in line.text:
        return False
    parts = [p for p in _CRUMBS.split(line.text) if p.strip()]
    return len(parts) >= 2 and len(_CRUMBS.findall(line.text)) >= 1 and line.words <= 15


_SHARE_WORDS = {
    "share",
    "this",
    "on",
    "tweet",
    "like",
    "pin",
    "it",
    "email",
    "e",
    "mail",
    "print",
    "facebook",
    "twitter",
    "x",
    "whatsapp",
    "linkedin",
    "telegram",
    "reddit",
    "pinterest",
    "copy",
    "link",
    "follow",
    "us",
    "send",
    "instagram",
    "youtube",
    "tiktok",
    "vk",
    "mastodon",
    "page",
    "article",
    "post",
    "via",
    "rss",
    "feed",
    "and",
    "or",
    "google",
}
_SHARE_KEYS = _SHARE_WORDS - {"this", "on", "it", "e", "us", "page", "article", "post", "via"}
_SHARE_KEYS -= {"and", "or", "like", "print", "link", "copy", "send", "mail", "email"}


def _is_share_bar(line: Line) -> bool:
    if line.words > 12:
        return False
    words = _NOT_WORD.sub(" ", line.text.lower()).split()
    return bool(words) and set(words) <= _SHARE_WORDS and bool(set(words) & _SHARE_KEYS)


def _is_symbols_only(line: Line) -> bool:
    return not _ALNUM.search(line.text)


def _phrases(*phrases: str) -> re.Pattern[str]:
    return re.compile(r"^\W*(?:" + "|".join(phrases) + r")\W*$", re.I)


@dataclass(frozen=True)
class Rule:
    """One boilerplate rule: a line matching `pattern` or `predicate` is dropped."""

    name: str
    description: str
    pattern: re.Pattern[str] | None = None  # searched in the line's text
    predicate: Callable[[Line], bool] | None = None
    max_chars: int = 0  # only lines at most this long (0: any length)
    keywords: tuple[str, ...] = ()  # when given, `pattern` is tried only on lines holding one

    def matches(self, line: Line) -> bool:
        if self.max_chars and len(line.text) > self.max_chars:
            return False
        if (
            self.pattern is not None
            and (not self.keywords or any(k in line.lower for k in self.keywords))
            and self.pattern.search(line.text)
        ):
            return True
        return self.predicate is not None and self.predicate(line)


RULES: tuple[Rule, ...] = (
    Rule(
        "copyright",
        "Copyright and licence lines: ©, (c) 2024, 'all rights reserved' in several languages,\n"
        "'available under the Creative Commons ... License'.",
        re.compile(
            r"©|\(c\)\s*(?:19|20)\d\d|\bcopyright\b|all rights reserved|tous droits réservés|"
            r"alle rechte vorbehalten|derechos reservados|diritti riservati|direitos reservados|"
            r"rechten voorbehouden|prawa zastrzeżone|права защищены|版权所有|著作権|"
            r"haki zote zimehifadhiwa|creative commons|\blicen[cs]ed under\b|terms may apply",
            re.I,
        ),
        max_chars=300,
        keywords=(
            "©",
            "(c)",
            "copyright",
            "reserved",
            "creative",
            "licen",
            "terms",
            "droits",
            "rechte",
            "derechos",
            "diritti",
            "direitos",
            "rechten",
            "prawa",
            "права",
            "版权",
            "著作権",
            "haki",
        ),
    ),
    Rule(
        "cookie-notice",
        "Cookie and consent notices, privacy and terms links.",
        re.compile(
            r"\bcookies?\b|\bgdpr\b|\bprivacy (?:policy|settings|notice|preferences)\b|"
            r"\bterms (?:of (?:use|service)|and conditions)\b|datenschutz|"
            r"^\W*(?:accept|reject|decline|allow|deny|agree)(?: all)?\W*$|"
            r"^\W*(?:got it|i agree|manage (?:preferences|options|settings))\W*$",
            re.I,
        ),
        max_chars=400,
        keywords=(
            "cookie",
            "gdpr",
            "privacy",
            "terms",
            "datenschutz",
            "accept",
            "reject",
            "decline",
            "allow",
            "deny",
            "agree",
            "got it",
            "manage",
        ),
    ),
    Rule(
        "share-bar",
        "Lines made only of share/follow words: 'Share: Facebook Twitter WhatsApp'.",
        predicate=_is_share_bar,
        max_chars=200,
    ),
    Rule(
        "navigation-phrase",
        "Whole-line navigation phrases: skip to content, back to top, read more, log in...",
        _phrases(
            r"skip to (?:main )?content",
            r"skip navigation",
            r"jump to(?: navigation| search| content| main content)?:?",
            r"from wikipedia, the free encyclopedia",
            r"(?:back|go) to top",
            r"top",
            r"(?:main |open |close )?menu",
            r"toggle navigation",
            r"search(?: for)?",
            r"search this site",
            r"go",
            r"home",
            r"(?:read|view|see|show|load) (?:more|all)(?: \w+)?",
            r"continue reading(?: .{0,60})?",
            r"more",
            r"close",
            r"log ?in|log ?out|sign ?in|sign ?up|sign out|register|my account",
            r"subscribe(?: to .{0,40})?",
            r"(?:sign up for |join )?(?:our |the )?newsletter",
            r"contact(?: us)?",
            r"lire la suite|weiterlesen|mehr lesen|leer más|ver más|leia mais|czytaj dalej",
            r"(?:leave a|post a|add a) (?:comment|reply)",
            r"reply",
            r"loading\.*",
            r"advertisement|sponsored(?: content)?",
            r"related(?: posts| articles| stories)?",
            r"you may also like",
            r"tags?",
            r"categories",
            r"archives",
            r"recent (?:posts|comments)",
        ),
        max_chars=80,
    ),
    Rule(
        "post-metadata",
        "Post metadata lines: 'Posted on ... by ...', 'Tags: ...', 'Filed under', '3 comments',\n"
        "'This page was last edited on ...'.",
        re.compile(
            r"^\W*(?:posted|published|written|updated|filed|tagged|submitted)\b.{0,200}$|"
            r"^.{0,150}?\blast (?:updated|edited|modified)\b|"
            r"^\W*(?:tags|categories|category|filed under|share this|like this|by)\s*:.{0,150}$|"
            r"^\W*\d+\s+(?:comments?|replies|responses|views|shares)\W*$|"
            r"^\W*(?:proudly )?powered by\b|^\W*(?:theme|designed|website) by\b",
            re.I,
        ),
        max_chars=250,
    ),
    Rule(
        "comment-form",
        "Comment form texts: 'Your email address will not be published', 'Name *'.",
        re.compile(
            r"^.{0,100}?(?:email address will not be published|required fields are marked)|"
            r"^\W*(?:(?:comment|name|e-?mail|website)\W*\*?\W*)+$|^\W*post comment\W*$",
            re.I,
        ),
        max_chars=160,
        keywords=("mail", "required", "comment", "name", "website"),
    ),
    Rule(
        "profile-field",
        "Poster and profile fields in forums: 'Joined: Mar 2009', 'Posts: 123', 'Location: ...'.",
        re.compile(
            r"^\W*(?:joined|posts|location|member since|registered|reputation|karma|rank|"
            r"gender|age|last seen|last visit|thanks|thanked)\s*:\s*.{0,40}$",
            re.I,
        ),
        max_chars=80,
    ),
    Rule(
        "forum-chrome",
        "Forum and board furniture: 'Who is online', 'You cannot post...', 'Display posts from'.",
        re.compile(
            r"^\W*(?:who is online|users browsing this (?:forum|topic)|you (?:cannot|can) "
            r"(?:post|reply|edit|delete|vote)|display posts from|sort by\b|"
            r"(?:previous|next) topic|board index|mark (?:topics|forums) read|"
            r"all times are (?:utc|gmt))",
            re.I,
        ),
        max_chars=200,
    ),
    Rule(
        "reference",
        "Reference-list lines: '^ Title. Retrieved 5 May 2019.', ISBN, doi, 'Archived from'.",
        re.compile(
            r"^\W*\^|\bretrieved(?: on)? \d|\barchived from the original\b|\bisbn[\s:-]*\d|"
            r"\bdoi:\s*10\.",
            re.I,
        ),
        max_chars=400,
        keywords=("^", "retrieved", "archived", "isbn", "doi"),
    ),
    Rule(
        "pagination",
        "Page numbers and arrows: '« Previous 1 2 3 … 10 Next »', 'Page 2 of 5'.",
        re.compile(
            r"^\W*page \d+ of \d+\W*(?:\[\s*\d+ (?:posts?|topics?|replies|results?)\s*\])?\W*$|"
            r"^[\s\d«»‹›<>.…|·-]*(?:(?:previous|prev|next|older|newer|first|last)"
            r"(?: page| posts| entries| articles)?[\s\d«»‹›<>.…|·-]*)+$",
            re.I,
        ),
        max_chars=120,
    ),
    Rule(
        "date-only",
        "Lines holding only a date or time: '2024-03-01', '12.03.2024 14:05'.",
        re.compile(r"^\W*\d{1,4}[./-]\d{1,2}[./-]\d{1,4}(?:,?\s+\d{1,2}:\d{2}(?::\d{2})?)?\W*$"),
        max_chars=40,
    ),
    Rule(
        "link-only",
        "Lines whose only words are link texts (menus, teasers, 'Home', 'Next article').",
        predicate=_is_link_only,
    ),
    Rule(
        "link-dense",
        "Lines with three or more links making most of their text ('Related: a, b, c').",
        predicate=_is_link_dense,
    ),
    Rule(
        "pipe-list",
        "Short items separated by | · • » / –: 'Home | About | Contact'.",
        predicate=_is_pipe_list,
    ),
    Rule(
        "breadcrumb",
        "Breadcrumb trails: 'Home > News > Local'.",
        predicate=_is_breadcrumb,
        max_chars=150,
    ),
    Rule(
        "symbols-only",
        "Lines without a letter or digit: separators, bullets, '* * *'.",
        predicate=_is_symbols_only,
    ),
)
SHORT_RUN = Rule(
    "short-line-run",
    "Runs of 4 or more lines of at most 3 words and 30 characters, without sentence "
    "punctuation (menus, tag lists).",
)
ORPHAN_HEADING = Rule(
    "orphan-heading",
    "Headings left with nothing under them once their section was dropped.",
)
ISOLATED_LINE = Rule(
    "isolated-line",
    "Lines of one or two words and at most 20 characters (not headings) between dropped "
    "lines: a user name in a poster box, a lone label.",
)
MENU_TEXT = Rule(
    "menu-text",
    "Lines of 10 words or more, 70% of them words of the page's link anchors: menus and "
    "link lists run together (main content found on the DOM only).",
)
