"""The seven site layouts of the labelled pages (a WordPress-like blog, a news site with
class-named divs, a legacy table layout, a portal of bare divs, a documentation page
with <main>, a phpBB-like forum, a MediaWiki-like article) and the blocks they are made
of: menus, headline lists, share bars, comment forms, cookie banners, footers. Each
layout wraps a page's rendered main text in its site's navigation (collie/mininet/pages.py
adds the <head> and the encoding)."""

# ruff: noqa: E501  (HTML templates read better unwrapped)
from __future__ import annotations

import html
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field

TEMPLATES = ("blog", "news", "legacy", "portal", "docs", "forum", "wiki")


@dataclass
class Site:
    """A site's name, host, menus and headlines, which its pages share."""

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


def _svg(rng: random.Random) -> str:
    points = " ".join(f"{rng.randint(0, 24)},{rng.randint(0, 24)}" for _ in range(30))
    return f'<svg viewBox="0 0 24 24" width="16"><path d="M{points}z"/></svg>'


def _menu(site: Site, cls: str = "menu", separator: str = "") -> str:
    if separator:
        return f'<div class="{cls}">' + separator.join(site.link(m) for m in site.menu) + "</div>"
    items = "".join(f"<li>{site.link(m)}</li>" for m in site.menu)
    return f'<ul class="{cls}">{items}</ul>' if cls else f"<ul>{items}</ul>"


def _headline_list(site: Site, heading: str, count: int, with_meta: bool = False) -> str:
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


def _footer_lines(site: Site, year: int) -> list[str]:
    return [
        f"<p>&copy; {year} {html.escape(site.name)}. All rights reserved.</p>",
        "<p>"
        + " | ".join(site.link(x) for x in ("Privacy Policy", "Terms of Use", "Contact"))
        + "</p>",
        "<p>Proudly powered by <a href='https://wordpress.org/'>WordPress</a></p>",
    ]


def _blog(site: Site, main: str, year: int) -> str:
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


def _news(site: Site, main: str, year: int) -> str:
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


def _legacy(site: Site, main: str, year: int) -> str:
    rng = site.rng
    return f"""<table width="100%" border="0" cellpadding="0"><tr><td colspan="2" bgcolor="#003366">
<font color="white" size="5"><b>{html.escape(site.name)}</b></font></td></tr>
<tr><td width="180" valign="top" bgcolor="#eeeeee">{"<br>".join(site.link(m) for m in site.menu)}
<br><br>{"<br>".join(site.link(h) for h in rng.sample(site.headlines, 4))}</td>
<td valign="top">{main}
<p align="center">{" | ".join(site.link(m) for m in site.menu[:6])}</p>
<p><font size="1">Copyright (c) {year} {html.escape(site.name)}. All rights reserved.<br>
Last updated: {rng.randint(1, 28)}/{rng.randint(1, 12)}/{year}</font></p></td></tr></table>"""


def _portal(site: Site, main: str, year: int) -> str:
    return f"""<div><div><b>{site.link(site.name, "/")}</b></div>
<div>{" ".join(f"<div>{site.link(m)}</div>" for m in site.menu)}</div></div>
<div><div>{site.link("Home", "/")} / {site.link(site.menu[2])}</div>{main}
<div>{site.link("Read more")}</div>
<div>Share: {site.link("Facebook")} {site.link("Twitter")} {site.link("WhatsApp")}</div></div>
<div>{_headline_list(site, "Popular", 5, True)}</div>
<div><p>{"&nbsp;&middot;&nbsp;".join(site.link(m) for m in site.menu[:5])}</p>
<p>&copy; {year} {html.escape(site.name)}</p>{_cookie_banner().replace(' id="cookie-notice" class="cookie-banner"', "")}</div>"""


def _docs(site: Site, main: str, year: int) -> str:
    return f"""<div class="skip-link"><a href="#main">Skip to content</a></div>
<header>{site.link(site.name, "/")}<nav aria-label="Main">{_menu(site, "")}</nav></header>
<div class="layout"><div class="toc"><ul>{"".join(f"<li>{site.link(h)}</li>" for h in site.headlines[:6])}</ul></div>
<main id="main">{main}<div class="pager">{site.link("« Previous")} {site.link("Next »")}</div></main></div>
<footer><p>{" · ".join(site.link(m) for m in site.menu[:4])}</p><p>&copy; {year} {html.escape(site.name)}</p></footer>
{_cookie_banner()}"""


def _forum(site: Site, main: str, year: int) -> str:
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


def _wiki(site: Site, main: str, year: int) -> str:
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


LAYOUTS: dict[str, Callable[[Site, str, int], str]] = {
    "blog": _blog,
    "news": _news,
    "legacy": _legacy,
    "portal": _portal,
    "docs": _docs,
    "forum": _forum,
    "wiki": _wiki,
}
