"""Labelled web pages: realistic templates around a known main text (deterministic).

A `LabelledPage` is an HTML page built from one of seven site templates (a WordPress-like
blog, a news site with class-named divs, a legacy table layout, a portal of bare divs
without any class hints, a documentation page with <main>, a forum, a wiki), with navigation, sidebars,
breadcrumbs, post metadata, share bars, comment forms, cookie banners, footers, inline
scripts, styles and SVG icons around a main text whose words are known. The page is
encoded in a given charset and declared (or not, or wrongly) in the HTTP header and/or a
<meta> tag. Used by tests/test_extract.py and benchmarks/bench_process.py, and by the
closed-world web generator (`collie mininet build`). Same arguments, same page, byte for
byte. The site layouts and their blocks are in collie/mininet/layouts.py.
"""

# ruff: noqa: E501  (HTML templates read better unwrapped)
from __future__ import annotations

import html
import random
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from typing import Protocol

from collie.mininet.layouts import LAYOUTS, TEMPLATES, Site

DECLARATIONS = ("meta", "http", "both", "http-equiv", "none", "wrong-http")
MENU_EN = [
    "Home",
    "About us",
    "News",
    "Contact",
    "Blog",
    "Events",
    "Sport",
    "Culture",
    "Politics",
    "Business",
    "Opinion",
    "Video",
    "Photos",
    "Archive",
    "Jobs",
    "Health",
    "Education",
]
_WORD = re.compile(r"\w{4,12}")


@dataclass(frozen=True)
class LabelledPage:
    """A page and what a perfect extractor would return from it."""

    html: str
    body: bytes  # html encoded in `encoding` (unencodable characters as &#...; references)
    content_type: str  # the HTTP header to serve with it
    encoding: str  # the Python codec the body is written in
    declaration: str  # one of DECLARATIONS
    template: str  # one of TEMPLATES
    lang: str  # the <html lang> attribute
    title: str
    main_text: str  # heading and paragraphs, one per line
    url: str


def _words(paragraphs: list[str]) -> list[str]:
    return [w for p in paragraphs for w in _WORD.findall(p)] or ["Habari"]


def _make_site(rng: random.Random, lang: str, others: list[str]) -> Site:
    words = _words(others)
    local = [rng.choice(words).capitalize() for _ in range(8)]
    menu = rng.sample(MENU_EN, 5) + rng.sample(local, 4)
    rng.shuffle(menu)
    headlines = []
    for _ in range(10):
        start = rng.randrange(max(1, len(words) - 8))
        headlines.append(" ".join(words[start : start + rng.randint(3, 7)]).capitalize())
    name = rng.choice(words).capitalize() + rng.choice([" Times", " Online", " Daily", " Sauti"])
    ascii_name = re.sub(r"[^a-z]+", "", name.lower()) or f"site{rng.randint(1, 999)}"
    host = ascii_name + rng.choice([".co.ke", ".org", ".com", ".net"])
    return Site(rng, name, host, menu, headlines, lang)


def _styles(rng: random.Random, kilobytes: int) -> str:
    rules: list[str] = []
    while sum(map(len, rules)) < kilobytes * 1024:
        name = "".join(rng.choice("abcdefghijklmnop") for _ in range(rng.randint(4, 10)))
        rules.append(
            f".{name}-{rng.randint(1, 99)} > a:hover {{ color: #{rng.randrange(16**6):06x}; "
            f"margin: {rng.randint(0, 30)}px {rng.randint(0, 30)}px; font-size: {rng.randint(10, 24)}px; }}\n"
        )
    return "<style>\n" + "".join(rules) + "</style>\n"


def _script(rng: random.Random, kilobytes: int) -> str:
    parts = [
        "window.dataLayer = window.dataLayer || [];\nfunction gtag(){dataLayer.push(arguments);}\n"
    ]
    while sum(map(len, parts)) < kilobytes * 1024:
        key = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(8))
        parts.append(
            f'var {key} = {{"id": {rng.randint(1, 10**6)}, "html": "<div class=\\"x\\">{key}</div>", '
            f'"enabled": {str(rng.random() < 0.5).lower()}}}; if ({key}.enabled && a < b) {{ gtag("event", "{key}"); }}\n'
        )
    return "<script>\n" + "".join(parts) + "</script>\n"


def _main_html(site: Site, heading: str, paragraphs: list[str]) -> str:
    rng, out = site.rng, [f"<h1>{html.escape(heading)}</h1>"]
    in_list = False
    for i, paragraph in enumerate(paragraphs):
        words = html.escape(paragraph).split(" ")
        if len(words) > 6 and rng.random() < 0.4:  # inline link or emphasis inside the text
            k = rng.randrange(len(words) - 2)
            tag = rng.choice(['a href="/wiki/' + str(k) + '"', "strong", "em"])
            words[k] = f"<{tag}>{words[k]} {words[k + 1]}</{tag.split()[0]}>"
            del words[k + 1]
        text = " ".join(words)
        if i > 1 and rng.random() < 0.15 and not in_list:
            out.append("<ul>")
            in_list = True
        if in_list:
            out.append(f"<li>{text}</li>")
            if rng.random() < 0.5 or i == len(paragraphs) - 1:
                out.append("</ul>")
                in_list = False
        else:
            out.append(f"<p>{text}</p>")
    if in_list:
        out.append("</ul>")
    return "\n".join(out)


def _head(site: Site, title: str, charset_tag: str, kilobytes: int) -> str:
    rng = site.rng
    return (
        f"<head>{charset_tag}<title>{html.escape(title)} | {html.escape(site.name)}</title>\n"
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<link rel="stylesheet" href="/style.css?v={rng.randint(1, 99)}">\n'
        + _styles(rng, kilobytes // 2)
        + _script(rng, kilobytes - kilobytes // 2)
        + '<script type="application/ld+json">{"@context": "https://schema.org", '
        f'"@type": "NewsArticle", "headline": "{html.escape(title)}"}}</script></head>\n'
    )


def _charset_tag(declaration: str, label: str) -> str:
    if declaration in ("meta", "both"):
        return f'<meta charset="{label}">'
    if declaration == "http-equiv":
        return f'<meta http-equiv="Content-Type" content="text/html; charset={label}">'
    return ""


def _content_type(declaration: str, label: str) -> str:
    if declaration in ("http", "both"):
        return f"text/html; charset={label}"
    if declaration == "wrong-http":
        return "text/html; charset=iso-8859-1"
    return "text/html"


def build_page(
    seed: int,
    heading: str,
    paragraphs: list[str],
    *,
    lang: str,
    template: str = "blog",
    encoding: str = "utf-8",
    label: str | None = None,
    declaration: str = "meta",
    others: list[str] | None = None,
    padding_kb: int = 20,
    site_seed: int | None = None,
) -> LabelledPage:
    """One labelled page; `others` gives the words of menus and headlines (same language).

    Pages with the same `site_seed` (and template and lang) share their site: name, host,
    menus and headlines, as the pages of one site do; the rest varies per page."""
    site_rng = random.Random(f"{seed if site_seed is None else site_seed}-{template}-{lang}")
    site = _make_site(site_rng, lang, others or paragraphs)
    rng = site.rng = random.Random(f"page-{seed}-{template}-{lang}")
    year = rng.randint(2005, 2026)
    main = _main_html(site, heading, paragraphs)
    label = label or encoding
    body_html = LAYOUTS[template](site, main, year)
    page = (
        f'<!DOCTYPE html>\n<html lang="{lang}">\n'
        + _head(site, heading, _charset_tag(declaration, label), padding_kb)
        + f'<body class="{template} has-sidebar">\n{body_html}\n'
        + _script(rng, 2)
        + "</body></html>\n"
    )
    return LabelledPage(
        html=page,
        body=page.encode(encoding, errors="xmlcharrefreplace"),
        content_type=_content_type(declaration, label),
        encoding=encoding,
        declaration=declaration,
        template=template,
        lang=lang,
        title=f"{heading} | {site.name}",
        main_text=unicodedata.normalize("NFC", "\n".join([heading, *paragraphs])),
        url=f"http://www.{site.host}/{year}/{rng.randint(1, 12):02d}/story-{rng.randint(1, 9999)}.html",
    )


# (UDHR translation, codec the page is written in, charset label it declares)
LANGUAGE_ENCODINGS = (
    ("eng", "utf-8", "utf-8"),
    ("swh", "utf-8", "utf-8"),
    ("zul", "utf-8", "UTF-8"),
    ("yor", "utf-8", "utf-8"),
    ("vie", "utf-8", "utf-8"),
    ("fra", "cp1252", "windows-1252"),
    ("spa", "cp1252", "iso-8859-1"),
    ("ita", "iso8859-15", "iso-8859-15"),
    ("pol", "iso8859-2", "iso-8859-2"),
    ("ces", "cp1250", "windows-1250"),
    ("rus", "cp1251", "windows-1251"),
    ("rus", "koi8-r", "koi8-r"),
    ("bul", "cp1251", "windows-1251"),
    ("jpn", "shift_jis", "shift_jis"),
    ("cmn_hans", "gb18030", "gb2312"),
    ("kor", "euc-kr", "euc-kr"),
)


class _Translation(Protocol):  # what build_corpus needs of collie.udhr.Declaration
    lang: str
    heading: str

    def training_paragraphs(self) -> list[str]: ...


def build_corpus(
    translations: dict[str, _Translation],
    count: int,
    seed: int = 0,
    languages: tuple[tuple[str, str, str], ...] = LANGUAGE_ENCODINGS,
    declarations: tuple[str, ...] = DECLARATIONS,
    pages_per_site: int = 1,
) -> list[LabelledPage]:
    """`count` pages cycling through languages/encodings, templates and declarations,
    `pages_per_site` pages per site (one language, template, encoding and declaration
    each, shared menus and headlines), as crawling out of a site gives.

    A wrong declaration ("wrong-http": the header says iso-8859-1) is only made for UTF-8
    bodies, where it is recoverable; legacy bodies get "both" instead.
    """
    rng = random.Random(seed)
    pages: list[LabelledPage] = []
    for i in range(count):
        site_index = i // pages_per_site
        name, codec, label = languages[site_index % len(languages)]
        translation = translations[name]
        paragraphs = [p for p in translation.training_paragraphs() if p]
        size = rng.randint(4, 14)
        start = rng.randrange(max(1, len(paragraphs) - size))
        chosen = paragraphs[start : start + size]
        rest = paragraphs[:start] + paragraphs[start + size :]
        heading = " ".join(rng.choice(rest or chosen).split()[:6])
        turn = site_index // len(languages)
        declaration = declarations[(turn + site_index) % len(declarations)]
        if declaration == "wrong-http" and codec != "utf-8":
            declaration = "both"
        pages.append(
            build_page(
                seed * 100_000 + i,
                heading,
                chosen,
                lang=translation.lang,
                template=TEMPLATES[(site_index + turn) % len(TEMPLATES)],
                encoding=codec,
                label=label,
                declaration=declaration,
                others=paragraphs if pages_per_site > 1 else rest,
                padding_kb=rng.randint(16, 50),
                site_seed=seed * 100_000 + site_index if pages_per_site > 1 else None,
            )
        )
    return pages


# Han and kana are written without spaces: each character is a token there.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN = re.compile(rf"[{_CJK}]|[^\W{_CJK}]+")


def tokens(text: str) -> Counter[str]:
    """Lower-cased word tokens (single characters for Han and kana)."""
    return Counter(_TOKEN.findall(text.lower()))


def token_f1(extracted: str, truth: str) -> float:
    """Bag-of-tokens F1 of an extracted text against the known main text."""
    got, want = tokens(extracted), tokens(truth)
    common = sum((got & want).values())
    if not common:
        return 0.0
    precision, recall = common / sum(got.values()), common / sum(want.values())
    return 2 * precision * recall / (precision + recall)


def render_page(
    site: Site,
    template: str,
    title: str,
    main: str,
    *,
    lang: str,
    declaration: str,
    label: str,
    padding_kb: int,
) -> tuple[str, str]:
    """(html, Content-Type) of a page of `site` around an already-rendered `main` (one
    element a line); `lang` is the <html lang> attribute ("" for none)."""
    year = site.rng.randint(2005, 2026)
    attr = f' lang="{lang}"' if lang else ""
    page = (
        f"<!DOCTYPE html>\n<html{attr}>\n"
        + _head(site, title, _charset_tag(declaration, label), padding_kb)
        + f'<body class="{template}">\n{LAYOUTS[template](site, main, year)}\n'
        + _script(site.rng, 1)
        + "</body></html>\n"
    )
    return page, _content_type(declaration, label)
