"""A news site with a generated calendar, the crawler trap of issue 58: its home lists
its articles and links to a day of /calendar/YYYY/MM/DD/; every day is a listing page
(teasers of the same articles, "read more") linking to the day before, the day after
and its month; every month, a listing page too, links to each of its days and to the
months beside it. The server makes the days up as it goes (here: every day of two
years), so a crawler that follows listing pages on without asking what they lead to
spends its requests there. The articles are target documents; no day or month page is."""

from __future__ import annotations

import html
from collections.abc import Sequence
from datetime import date, timedelta

from collie.mininet.server import Request, Response, World

START = date(2024, 5, 6)  # the day the home page links to
DAYS = 2 * 366  # days served, from a year before START to a year after
READ_MORE = "Funda kabanzi"
PREFIX = "/calendar/"


def add_calendar_site(world: World, host: str, paragraphs: Sequence[str]) -> list[str]:
    """Serve the site on `host` from target-language `paragraphs` (24 or more: four
    articles of six); the articles' URLs. Its calendar lies under PREFIX."""
    site = f"http://{host}"
    articles = []
    for k in range(4):
        text = list(paragraphs[6 * k : 6 * k + 6])
        title = " ".join(text[0].split()[:5])
        path = f"/izindaba/indaba-{k + 1}.html"
        articles.append((path, title, text))
        world.add(f"{site}{path}", Response.html(_page(title, text, [("/", "Ikhaya")])))
    teasers = "".join(_teaser(path, title, text[0]) for path, title, text in articles)
    day = START.strftime("%Y/%m/%d/")
    home = f"<h1>Izindaba</h1>{teasers}<ul><li><a href='{PREFIX}{day}'>Ikhalenda</a></li></ul>"
    world.add(f"{site}/", Response.html(_html("Izindaba", home)))

    def day_page(request: Request) -> Response:
        y, m, d = (int(x) for x in request.path.removeprefix(PREFIX).strip("/").split("/"))
        when = date(y, m, d)
        links = [
            (_day(when - timedelta(days=1)), "Izolo"),
            (_day(when + timedelta(days=1)), "Kusasa"),
            (f"{PREFIX}{when:%Y/%m}/", "Inyanga"),
        ]
        return Response.html(_html(f"Ikhalenda {when:%Y-%m-%d}", teasers + _links(links)))

    def month_page(request: Request) -> Response:
        y, m = (int(x) for x in request.path.removeprefix(PREFIX).strip("/").split("/"))
        first = date(y, m, 1)
        days = [first + timedelta(days=n) for n in range(31)]
        links = [(_day(d), f"{d:%d}") for d in days if d.month == m]
        links += [(f"{PREFIX}{first - timedelta(days=1):%Y/%m}/", "Inyanga edlule")]
        links += [(f"{PREFIX}{first + timedelta(days=31):%Y/%m}/", "Inyanga ezayo")]
        return Response.html(_html(f"Ikhalenda {first:%Y-%m}", teasers + _links(links)))

    for n in range(DAYS):
        when = START + timedelta(days=n - DAYS // 2)
        world.add(f"{site}{_day(when)}", day_page)
        world.add(f"{site}{PREFIX}{when:%Y/%m}/", month_page)
    return [f"{site}{path}" for path, _title, _text in articles]


def _day(when: date) -> str:
    return f"{PREFIX}{when:%Y/%m/%d}/"


def _teaser(path: str, title: str, first: str) -> str:
    cut = " ".join(first.split()[:14]).rstrip(",;:.") + " …"
    return (
        f"<article class='teaser'><h2><a href='{path}'>{html.escape(title)}</a></h2>"
        f"<p class='excerpt'>{html.escape(cut)}</p>"
        f"<p><a class='more-link' href='{path}'>{READ_MORE}</a></p></article>"
    )


def _links(links: Sequence[tuple[str, str]]) -> str:
    items = "".join(f"<li><a href='{href}'>{html.escape(text)}</a></li>" for href, text in links)
    return f"<ul>{items}</ul>"


def _page(title: str, paragraphs: Sequence[str], links: Sequence[tuple[str, str]]) -> str:
    body = "".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)
    return _html(title, f"<h1>{html.escape(title)}</h1>{body}{_links(links)}")


def _html(title: str, main: str) -> str:
    return (
        f"<!DOCTYPE html><html><head><title>{html.escape(title)}</title></head><body>"
        f"<nav><a href='/'>Ikhaya</a></nav><main>{main}</main>"
        "<footer>© 2024 Izindaba. All rights reserved.</footer></body></html>"
    )
