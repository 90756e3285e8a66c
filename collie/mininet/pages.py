"""Labelled web pages: realistic templates around a known main text (deterministic).

A `LabelledPage` is an HTML page built from one of five site templates (a WordPress-like
blog, a news site with class-named divs, a legacy table layout, a portal of bare divs
without any class hints, a documentation page with <main>), with navigation, sidebars,
breadcrumbs, post metadata, share bars, comment forms, cookie banners, footers, inline
scripts, styles and SVG icons around a main text whose words are known. The page is
encoded in a given charset and declared (or not, or wrongly) in the HTTP header and/or a
<meta> tag. Used by tests/test_extract.py and benchmarks/bench_process.py, and by the
closed-world web generator to come (`collie mininet build`). Same arguments, same page,
byte for byte.
"""

# ruff: noqa: E501  (HTML templates read better unwrapped)
from __future__ import annotations

import html
import random
import re
import unicodedata
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

TEMPLATES = ("blog", "news", "legacy", "portal", "docs", "forum", "wiki")
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


@dataclass
class _Site:
    rng: random.Random
    name: str
    host: str
    menu: list[str]
    headlines: list[str]
    lang: str
    paths: dict[str, str] = field(default_factory=dict)  # link text -> href, when known
    fallback: str = ""  # href of texts without a path ("" = a slug of the text)

    def link(self, text: str, path: str = "") -> str:
        slug = "/" + re.sub(r"\W+", "-", text.lower()).strip("-")[:40]
        path = path or self.paths.get(text) or self.fallback or slug
        return f'<a href="{html.escape(path)}">{html.escape(text)}</a>'


def _words(paragraphs: list[str]) -> list[str]:
    return [w for p in paragraphs for w in _WORD.findall(p)] or ["Habari"]


def _make_site(rng: random.Random, lang: str, others: list[str]) -> _Site:
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
    return _Site(rng, name, host, menu, headlines, lang)


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


def _svg(rng: random.Random) -> str:
    points = " ".join(f"{rng.randint(0, 24)},{rng.randint(0, 24)}" for _ in range(30))
    return f'<svg viewBox="0 0 24 24" width="16"><path d="M{points}z"/></svg>'


def _main_html(site: _Site, heading: str, paragraphs: list[str]) -> str:
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


def _menu(site: _Site, cls: str = "menu", separator: str = "") -> str:
    if separator:
        return f'<div class="{cls}">' + separator.join(site.link(m) for m in site.menu) + "</div>"
    items = "".join(f"<li>{site.link(m)}</li>" for m in site.menu)
    return f'<ul class="{cls}">{items}</ul>' if cls else f"<ul>{items}</ul>"


def _headline_list(site: _Site, heading: str, count: int, with_meta: bool = False) -> str:
    items = []
    for headline in site.rng.sample(site.headlines, count):
        meta = f" <span>({site.rng.randint(2, 900)} views)</span>" if with_meta else ""
        items.append(f"<li>{site.link(headline)}{meta}</li>")
    return f"<h3>{heading}</h3><ul>{''.join(items)}</ul>"


def _cookie_banner() -> str:
    return (
        '<div id="cookie-notice" class="cookie-banner"><p>We use cookies to improve your '
        "experience on our website. By continuing to browse, you agree to our "
        '<a href="/cookies">Cookie Policy</a>.</p><button>Accept</button><button>Reject all'
        "</button></div>"
    )


def _comment_form() -> str:
    return (
        '<div id="respond"><h3>Leave a Reply</h3><form action="/comment" method="post">'
        "<p>Your email address will not be published. Required fields are marked *</p>"
        '<label>Comment</label><textarea name="c"></textarea><label>Name *</label>'
        '<input name="n"><input type="submit" value="Post Comment"></form></div>'
    )


def _footer_lines(site: _Site, year: int) -> list[str]:
    return [
        f"<p>&copy; {year} {html.escape(site.name)}. All rights reserved.</p>",
        "<p>"
        + " | ".join(site.link(x) for x in ("Privacy Policy", "Terms of Use", "Contact"))
        + "</p>",
        "<p>Proudly powered by <a href='https://wordpress.org/'>WordPress</a></p>",
    ]


def _blog(site: _Site, main: str, year: int) -> str:
    rng = site.rng
    return f"""<header id="masthead" class="site-header"><div class="site-branding">
<p class="site-title">{site.link(site.name, "/")}</p></div>
<nav id="site-navigation" class="main-navigation">{_menu(site)}</nav></header>
<div id="content" class="site-content"><div id="primary" class="content-area">
<main id="main" class="site-main"><article class="post type-post">
<header class="entry-header"><div class="entry-meta">Posted on <time>March {rng.randint(1, 28)}, {year}</time> by <a href="/author/admin">admin</a></div></header>
<div class="entry-content">{main}</div>
<footer class="entry-footer"><span class="cat-links">Posted in {site.link(site.menu[0])}</span>
<span class="tags-links">Tags: {", ".join(site.link(m) for m in site.menu[1:4])}</span></footer>
<div class="sharedaddy sd-sharing"><h3>Share this:</h3><ul><li>{site.link("Facebook")}</li><li>{site.link("Twitter")}</li><li>{site.link("WhatsApp")}</li></ul></div>
</article>
<nav class="post-navigation"><div>{site.link("« " + site.headlines[0])}</div><div>{site.link(site.headlines[1] + " »")}</div></nav>
{_comment_form()}</main></div>
<aside id="secondary" class="widget-area"><section class="widget">{_headline_list(site, "Recent Posts", 5)}</section>
<section class="widget"><h3>Archives</h3><ul><li>{site.link("March " + str(year))}</li><li>{site.link("February " + str(year))}</li></ul></section>
<section class="widget widget_search"><form role="search"><input type="search"><button>Search</button></form></section></aside></div>
<footer id="colophon" class="site-footer">{"".join(_footer_lines(site, year))}</footer>"""


def _news(site: _Site, main: str, year: int) -> str:
    rng = site.rng
    return f"""<div id="header"><div class="logo">{site.link(site.name, "/")}{_svg(rng)}</div>
<div class="topbar">{rng.randint(1, 28)}.{rng.randint(1, 12)}.{year} | {site.link("Login")} | {site.link("Subscribe")}</div>
{_menu(site, "navbar")}</div>
<div class="breadcrumbs">{site.link("Home", "/")} &raquo; {site.link(site.menu[1])} &raquo; {html.escape(site.headlines[2])}</div>
<div class="container"><div class="col-main"><div class="story">{main}
<div class="social-share">{_svg(rng)}{site.link("Facebook")}{_svg(rng)}{site.link("Twitter")}{_svg(rng)}{site.link("Email")}</div>
<div class="related-articles">{_headline_list(site, "Related", 4)}</div></div></div>
<div class="col-side"><div class="most-read">{_headline_list(site, "Most read", 5, True)}</div>
<div class="advert"><p>Advertisement</p><img src="/ad.gif" alt="ad"></div></div></div>
<div id="footer">{_menu(site, "footer-menu")}{"".join(_footer_lines(site, year)[:2])}</div>"""


def _legacy(site: _Site, main: str, year: int) -> str:
    rng = site.rng
    return f"""<table width="100%" border="0" cellpadding="0"><tr><td colspan="2" bgcolor="#003366">
<font color="white" size="5"><b>{html.escape(site.name)}</b></font></td></tr>
<tr><td width="180" valign="top" bgcolor="#eeeeee">{"<br>".join(site.link(m) for m in site.menu)}
<br><br>{"<br>".join(site.link(h) for h in rng.sample(site.headlines, 4))}</td>
<td valign="top">{main}
<p align="center">{" | ".join(site.link(m) for m in site.menu[:6])}</p>
<p><font size="1">Copyright (c) {year} {html.escape(site.name)}. All rights reserved.<br>
Last updated: {rng.randint(1, 28)}/{rng.randint(1, 12)}/{year}</font></p></td></tr></table>"""


def _portal(site: _Site, main: str, year: int) -> str:
    return f"""<div><div><b>{site.link(site.name, "/")}</b></div>
<div>{" ".join(f"<div>{site.link(m)}</div>" for m in site.menu)}</div></div>
<div><div>{site.link("Home", "/")} / {site.link(site.menu[2])}</div>{main}
<div>{site.link("Read more")}</div>
<div>Share: {site.link("Facebook")} {site.link("Twitter")} {site.link("WhatsApp")}</div></div>
<div>{_headline_list(site, "Popular", 5, True)}</div>
<div><p>{"&nbsp;&middot;&nbsp;".join(site.link(m) for m in site.menu[:5])}</p>
<p>&copy; {year} {html.escape(site.name)}</p>{_cookie_banner().replace(' id="cookie-notice" class="cookie-banner"', "")}</div>"""


def _docs(site: _Site, main: str, year: int) -> str:
    return f"""<div class="skip-link"><a href="#main">Skip to content</a></div>
<header>{site.link(site.name, "/")}<nav aria-label="Main">{_menu(site, "")}</nav></header>
<div class="layout"><div class="toc"><ul>{"".join(f"<li>{site.link(h)}</li>" for h in site.headlines[:6])}</ul></div>
<main id="main">{main}<div class="pager">{site.link("« Previous")} {site.link("Next »")}</div></main></div>
<footer><p>{" · ".join(site.link(m) for m in site.menu[:4])}</p><p>&copy; {year} {html.escape(site.name)}</p></footer>
{_cookie_banner()}"""


def _forum(site: _Site, main: str, year: int) -> str:
    """phpBB-like thread: every post is content, the poster boxes and buttons are not."""
    rng, lines = site.rng, main.split("\n")
    posts, i = [lines[0]], 1
    while i < len(lines):
        size = rng.randint(1, 3)
        users = ["mzee_juma", "Akinyi", "otieno77", "Wanjiru", "admin"]
        body = "\n".join(lines[i : i + size])
        posts.append(
            f'<table class="tablebg" width="100%"><tr><td class="profile"><b class="postauthor">{rng.choice(users)}</b><br>'
            f"Joined: {rng.randint(1, 28)} Mar {year - 3}<br>Posts: {rng.randint(1, 4000)}<br>Location: Kisumu</td>"
            f'<td class="postbody"><div class="postdetails">Posted: {rng.randint(1, 28)}.{rng.randint(1, 12)}.{year} {rng.randint(0, 23)}:{rng.randint(10, 59)}'
            f"  Post subject: Re: {html.escape(site.headlines[0])}</div>{body}</td></tr>"
            f"<tr><td>{site.link('Back to top')}</td><td>{site.link('Profile')} {site.link('PM')} {site.link('Quote')}</td></tr></table>"
        )
        i += size
    return f"""<div id="wrap"><div id="page-header"><h2>{html.escape(site.name)} Forum</h2>
<p>{site.link("FAQ")} {site.link("Search")} {site.link("Register")} {site.link("Login")}</p></div>
<p class="breadcrumbs">{site.link("Board index")} » {site.link(site.menu[0])}</p>
{"".join(posts)}
<p>Display posts from previous: All posts | Sort by Post time | Ascending</p>
<p>Page <b>1</b> of <b>1</b> [ {len(posts) - 1} posts ]</p>
<p>Who is online: Users browsing this forum: No registered users and 3 guests</p>
<p>You cannot post new topics in this forum. You cannot reply to topics in this forum.</p>
<div id="page-footer">Powered by phpBB &copy; 2000, 2002, 2005, 2007 phpBB Group</div></div>"""


def _wiki(site: _Site, main: str, year: int) -> str:
    """MediaWiki-like article: edit links, infobox, references, categories, page tools."""
    rng, lines = site.rng, main.split("\n")
    body = [lines[0], '<div id="siteSub">From Wikipedia, the free encyclopedia</div>']
    for i, line in enumerate(lines[1:]):
        body.append(line)
        if i % 3 == 1:
            body.append(f'<sup class="reference"><a href="#cite_note-{i}">[{i}]</a></sup>')
    infobox = "".join(
        f"<tr><th>{html.escape(k)}</th><td>{rng.randint(10, 9000)}</td></tr>" for k in site.menu[:4]
    )
    refs = "".join(
        f'<li id="cite_note-{i}"><a href="#cite_ref-{i}">^</a> <a class="external" href="https://example.org/{i}">{html.escape(h)}</a>. Retrieved {rng.randint(1, 28)} May {year}.</li>'
        for i, h in enumerate(site.headlines[:4])
    )
    return f"""<div id="mw-page-base"></div><div id="content" class="mw-body" role="main">
<a id="top"></a><div class="mw-jump"><a href="#mw-head">Jump to navigation</a> <a href="#searchInput">Jump to search</a></div>
<table class="infobox"><caption>{html.escape(site.headlines[3])}</caption>{infobox}</table>
{"".join(body)}
<h2><span class="mw-headline">References</span><span class="mw-editsection">[<a href="/edit">edit</a>]</span></h2>
<ol class="references">{refs}</ol>
<div id="catlinks" class="catlinks">Categories: {" | ".join(site.link(m) for m in site.menu[:3])}</div></div>
<div id="mw-navigation"><h2>Navigation menu</h2><div id="p-personal"><ul><li>{site.link("Not logged in")}</li><li>{site.link("Talk")}</li><li>{site.link("Create account")}</li></ul></div></div>
<div id="footer"><ul id="footer-info"><li>This page was last edited on {rng.randint(1, 28)} May {year}, at 10:{rng.randint(10, 59)}.</li>
<li>Text is available under the Creative Commons Attribution-ShareAlike License; additional terms may apply.</li></ul>
<ul id="footer-places"><li>{site.link("Privacy policy")}</li><li>{site.link("About Wikipedia")}</li><li>{site.link("Disclaimers")}</li></ul></div>"""


_BUILDERS: dict[str, Callable[[_Site, str, int], str]] = {
    "blog": _blog,
    "news": _news,
    "legacy": _legacy,
    "portal": _portal,
    "docs": _docs,
    "forum": _forum,
    "wiki": _wiki,
}


def _head(site: _Site, title: str, charset_tag: str, kilobytes: int) -> str:
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
    body_html = _BUILDERS[template](site, main, year)
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


Site = _Site  # the closed-world generator builds its sites with real link targets


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
        + f'<body class="{template}">\n{_BUILDERS[template](site, main, year)}\n'
        + _script(site.rng, 1)
        + "</body></html>\n"
    )
    return page, _content_type(declaration, label)
