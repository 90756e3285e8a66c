"""Listing pages: a site's home, section, tag, archive or search-result page, whose main
text is a list of teasers (a headline, the first few dozen words of an article, "read
more") each leading to an article of the same site. Such a page is kept for crawling
(its links are the way into the site) but is not a document of the corpus: its text
repeats the openings of the articles it lists (extract.listings; reason `listing`).

`is_listing` decides from the page alone, over what extraction knows: the main text's
paragraphs and the page's links with their anchors. Headline links are usually dropped
from the main text by the line rules (link-only lines), so the evidence is:

- the page links to many of its own site's articles by headline-like anchors (at
  least HEADLINE_WORDS words) or by "read more" anchors;
- its main text is mostly teaser-like paragraphs: short (at most TEASER_WORDS words)
  and cut off (ending in an ellipsis, "read more", or mid-sentence, with no closing
  punctuation), or the headline text itself;
- and something says they were cut: "read more" links or paragraphs ending in an
  ellipsis (a poem's stanzas, a small site's home page with its latest post, are short
  and unpunctuated too).

A page of two or three teasers only (a new section) is a listing when every paragraph
of it ends in an ellipsis and "read more" and it links to as many of its site's
articles (`all_cut`).

A page of cards by its links (Page.cards: collie.page.maintext.link_share, words inside
links block by block) is evidence of the cut: most listings of the 2025 web show no
ellipsis and no "read more", their teasers are each a link. With it, a page whose main
text is CARDS_SHARE teaser-like paragraphs and that links to MIN_TEASERS of its site's
articles by headlines is a listing; the link share alone is none (22 of 403 articles of
benchmarks/bench_wcxb.py's development half reach it).

The URL's shape (the site's root, /category/, /tag/, /page/2, ?s=...) is weak evidence:
it lowers the bar (HINTED_TEASERS, HINTED_SHARE), never decides alone. A listing whose
teasers show no cut at all is left to the teaser pass (collie.decide.teasers), which
drops its paragraphs once the articles are in the corpus.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import urlsplit

from collie.decide.teasers import CUT_AND_MORE, CUT_MARK

HEADLINE_WORDS = 3  # an anchor this long is a headline, not a menu entry
TEASER_WORDS = 80  # a teaser paragraph is at most this long
MIN_TEASERS = 4  # teaser paragraphs (and headline links) a listing has at least
MIN_SHARE = 0.6  # of the main text's words in teaser paragraphs
HINTED_TEASERS, HINTED_SHARE = 3, 0.5  # the same with a listing-shaped URL
# A page of cards (Page.cards) whose teasers show no cut: this much of its main text's
# words in teaser paragraphs, the URL's shape aside (issue 56: on the development half
# of benchmarks/bench_wcxb.py, 0.6 took a product page, 0.5 a service's home page).
CARDS_SHARE = 0.7

MORE = re.compile(
    r"^\W*(?:read|continue|view|see)(?: the)? (?:more|full story|full article|reading|all)\W*$"
    r"|^\W*(?:more|zaidi|soma zaidi|endelea kusoma|funda kabanzi|funda okwengeziwe|"
    r"lire la suite|en savoir plus|weiterlesen|leer más|ler mais|leggi tutto)\W*$",
    re.I,
)
ELLIPSIS = re.compile(rf"{CUT_MARK}\s*$")
CLOSED = re.compile(r"""[.!?»"'”’)\]:;]\s*$""")
LISTING_PATH = re.compile(
    r"^/(?:[a-z]{2}/)?(?:$|index\.\w+$|(?:category|categories|section|sections|tag|tags|"
    r"topic|topics|archive|archives|author|label|search|news|latest|page|kategoria|"
    r"habari|makala)(?:/|$)|.*/page/\d+/?$|\d{4}/(?:\d{2}/?)?$)",
    re.I,
)


def _host(url: str) -> str:
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""
    return host[4:] if host.startswith("www.") else host


def listing_shaped(url: str) -> bool:
    """Does the URL look like a listing (the site's root, a section, tag, archive, page
    or search URL)? Weak evidence only."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    query = parts.query.lower()
    return bool(LISTING_PATH.match(parts.path or "/")) or any(
        query.startswith(k) or f"&{k}" in query for k in ("s=", "q=", "page=", "paged=")
    )


def headline_links(url: str, links: Sequence[tuple[str, str]]) -> tuple[set[str], set[str], int]:
    """(the anchors of the page's links to other pages of its own site that read like
    headlines, the URLs they lead to, the "read more" links among its links)."""
    host = _host(url)
    page = url.split("#", 1)[0].rstrip("/")
    anchors: set[str] = set()
    targets: set[str] = set()
    more = 0
    for link, anchor in links:
        if _host(link) != host or link.rstrip("/") == page or urlsplit(link).path in ("", "/"):
            continue
        text = " ".join(anchor.split())
        if MORE.match(text):
            more += 1
        elif len(text.split()) >= HEADLINE_WORDS:
            anchors.add(text.lower())
            targets.add(link)
    return anchors, targets, more


def teaser_like(paragraph: str, anchors: set[str]) -> bool:
    """A short paragraph cut off (an ellipsis, "read more", no closing punctuation), or a
    headline of the page's links."""
    text = " ".join(paragraph.split())
    words = len(text.split())
    if not words or words > TEASER_WORDS:
        return False
    if text.lower() in anchors or MORE.match(text):
        return True
    last = text.split()[-1]
    return bool(ELLIPSIS.search(text) or MORE.match(last) or not CLOSED.search(text))


def all_cut(paragraphs: Sequence[str]) -> bool:
    """Two or more paragraphs, each cut off with an ellipsis and a "read more" after it
    (a teaser block's paragraph with its link's anchor)."""
    return len(paragraphs) >= 2 and all(CUT_AND_MORE.search(p) for p in paragraphs)


def is_listing(
    url: str, paragraphs: Sequence[str], links: Sequence[tuple[str, str]], cards: bool = False
) -> bool:
    """Is the page a listing of its site's articles (see the module docstring)? `cards`:
    the page is a page of cards by its links (Page.cards), which says the teasers were
    cut as well as an ellipsis or "read more" does."""
    anchors, targets, more = headline_links(url, links)
    if all_cut(paragraphs) and max(len(targets), more) >= len(paragraphs):
        return True  # a short listing: every paragraph a teaser cut off, each linked
    hinted = listing_shaped(url)
    least, share = (HINTED_TEASERS, HINTED_SHARE) if hinted else (MIN_TEASERS, MIN_SHARE)
    if max(len(targets), more) < least:
        return False
    total = teasers = words_in = cut = 0
    for paragraph in paragraphs:
        words = len(paragraph.split())
        total += words
        if teaser_like(paragraph, anchors):
            teasers += 1
            words_in += words
            cut += bool(ELLIPSIS.search(paragraph))
    if teasers < least or words_in < share * max(total, 1):
        return False
    return cut >= 2 or more >= least or (cards and words_in >= CARDS_SHARE * total)
