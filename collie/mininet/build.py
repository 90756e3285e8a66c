"""`collie mininet build`: a deterministic closed-world web, written to one SQLite file.

The mix is what a miner meets: target-language sites (most of them news sites: home,
section, tag and archive pages of teasers, articles with a paragraph in English or a
regional language, English contact and privacy pages: newsroom.py), mixed-language sites
(target and the national language paragraph by paragraph), bilingual sites with `/en/` and `/zu/`
trees, sites in close relatives and neighbours, and many sites in big languages. Planted
on purpose: legacy encodings with right, missing and wrong declarations, right, wrong and
missing `lang` attributes, short pages, mirrors, edited copies and printer versions,
PDFs and images, robots.txt folders (and a robots.txt that fails), redirects, 404s, 500s,
slow pages, endless calendars and a page over 5 MiB. Every URL's ground truth goes into
the file with it (see worldfile.py). Same options, same seed: the same bytes.
"""

from __future__ import annotations

import html
import random
import re
from pathlib import Path
from urllib.parse import urlsplit

from collie.errors import UsageProblem
from collie.mininet.labelled import (
    MULTILINGUAL,
    RELIGIOUS,
    add_religious_site,
    add_shop,
    labelled_plan,
)
from collie.mininet.languages import LEGACY, RELATIVES, TLDS
from collie.mininet.layouts import TEMPLATES
from collie.mininet.newsroom import (
    NewsSite,
    add_legal_pages,
    news_plan,
    plan_legal_pages,
    regional_language,
)
from collie.mininet.reach import mark_reachable
from collie.mininet.records import BuildOptions, SiteTruth, Trap, World
from collie.mininet.rights import plant_rights, plant_tdmrep
from collie.mininet.sites import SiteBuilder, Style, WorldPage, slug
from collie.mininet.texts import LanguageText, ParagraphPool, load_texts, split_seed
from collie.mininet.worldfile import write_world

DECLARED = ("meta", "http", "both", "http-equiv", "none", "wrong-http")
STEMS = ("daily", "news", "voice", "times", "online", "portal", "media", "press", "hub", "info")
PDF = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xd9"


def plan_sites(options: BuildOptions, others: list[str]) -> list[tuple[str, str]]:
    """(kind, language) of every site: target, mixed, bilingual, mirror, relative,
    religious and multilingual (with `site_labels`), other."""
    n, target = options.sites, options.target
    relatives = [c for c in RELATIVES.get(target, ()) if c in others]
    counts = {
        "target": max(7, round(n * 0.06)),
        "mixed": max(1, round(n * 0.03)),
        "bilingual": max(1, round(n * 0.015)),
        "mirror": 1,
        "hidden": max(3, round(n * 0.02)),  # target sites search does not index
    }
    plan = [(kind, target) for kind, k in counts.items() for _ in range(k)]
    plan += (
        [
            ("relative", relatives[i % len(relatives)])
            for i in range(round(n * options.relative_share))
        ]
        if relatives
        else []
    )
    if options.site_labels:
        plan += labelled_plan(n, target, relatives, "eng" if "eng" in others else others[0])
    rest = [c for c in others if c not in relatives] or others
    plan += [("other", rest[i % len(rest)]) for i in range(max(0, n - len(plan)))]
    return plan[: max(n, len(counts) + 2)]


def build_world(options: BuildOptions) -> World:
    """The whole world in memory (deterministic for the same options)."""
    others = options.other_languages()
    if not others:
        raise UsageProblem("A world needs other languages than the target: give --langs.")
    national = "eng" if "eng" in others else others[0]
    optional = frozenset() if options.langs else frozenset(others)
    texts = load_texts([options.target, *others], options.docs, optional)
    others = [c for c in others if c in texts]
    texts[options.target], seed_docs = split_seed(
        texts[options.target], options.seed_every, options.seed_head
    )
    world = World(options, texts, seed_docs)
    pools = {
        c: ParagraphPool(t, random.Random(f"{options.seed}-pool-{c}")) for c, t in texts.items()
    }
    hosts: set[str] = set()
    plan = plan_sites(options, others)
    numbers, counters = [], dict[str, int]()
    for kind, _ in plan:
        numbers.append(counters.setdefault(kind, 0))
        counters[kind] += 1
    world.hidden_count = counters.get("hidden", 0)
    # Sites another site links to are built first (their home pages' URLs go into the
    # blogrolls): the hidden sites, the last one first (the one before links to it),
    # then the other-language sites.
    order = sorted(
        range(len(plan)),
        key=lambda i: (
            {"hidden": 0, "other": 1}.get(plan[i][0], 2),
            -numbers[i] if plan[i][0] == "hidden" else i,
        ),
    )
    regional = regional_language(options.target, others, national)
    asides = [pools[c] for c in (national, regional) if c and c != options.target]
    for index in order:
        kind, lang = plan[index]
        number = numbers[index]
        rng = random.Random(f"{options.seed}-site-{index}")
        if kind == RELIGIOUS:
            style = _style(rng, kind, texts[lang], number, texts[options.target].tag)
            add_religious_site(world, lang, number, rng, hosts, pools[lang], style)
            continue
        if kind == MULTILINGUAL:
            add_shop(world, number, rng, hosts, TEMPLATES[number % len(TEMPLATES)])
            continue
        host = _host_name(rng, lang, texts[lang], hosts)
        news, legal, about = news_plan(kind, number, options.target)
        name = _site_name(rng, pools[lang])
        style = _style(rng, kind, texts[lang], number, texts[options.target].tag)
        site = (
            NewsSite(host, name, lang, style, pools[lang], rng, asides)
            if news
            else SiteBuilder(host, name, lang, style, pools[lang], rng)
        )
        if legal:
            plan_legal_pages(site, about)
        _BUILD[kind](world, site, pools[national], number)
        if legal:
            add_legal_pages(site, about)
        _sprinkle(world, site, kind, index, number)
        world.pages.update(site.pages)
        world.sites[site.host] = SiteTruth(site.host, kind, lang)
        if kind in ("hidden", "other"):
            world.homes.setdefault(kind, {})[number] = (site.url("/"), site.name)
    world.rights = plant_rights(world.pages)
    plant_tdmrep(world.pages, world.sites, world.robots, world.rights)
    mark_reachable(world.pages, world.robots)
    return world


def build(options: BuildOptions, out: Path) -> World:
    """Build the world and write it to `out` (atomically)."""
    world = build_world(options)
    write_world(out, world)
    return world


def _host_name(rng: random.Random, lang: str, text: LanguageText, taken: set[str]) -> str:
    words = [
        w for w in (slug(w, 12) for w in " ".join(text.paragraphs[:20]).split()) if len(w) >= 4
    ]
    stem = rng.choice(words) if words and rng.random() < 0.8 else f"{rng.choice(STEMS)}-{lang}"
    tld = rng.choice(TLDS.get(lang, ("com", "org", "net", "info")))
    host = (
        f"{rng.choice(['www.', '', 'www.'])}{stem}{rng.choice(['', '-news', 'online', '24'])}.{tld}"
    )
    while host in taken:
        host = host.replace(".", f"{rng.randint(2, 99)}.", 1)
    taken.add(host)
    return host


def _site_name(rng: random.Random, pool: ParagraphPool) -> str:
    return f"{pool.words(1, 2)} {rng.choice(['Times', 'Online', 'News', 'Voice', 'Blog', 'Media'])}"


def _style(
    rng: random.Random, kind: str, text: LanguageText, number: int, target_tag: str
) -> Style:
    """Template, encoding, declaration and lang attribute of a site (a close relative's
    site claims the target's tag one time in four, as copied templates do)."""
    lang, tag = text.code, text.tag
    template = TEMPLATES[number % len(TEMPLATES)] if kind == "target" else rng.choice(TEMPLATES)
    declaration = DECLARED[number % len(DECLARED)] if kind == "target" else rng.choice(DECLARED)
    codec = label = "utf-8"
    legacy = LEGACY.get(lang) if kind != "target" else LEGACY["afr"] if number % 5 == 2 else None
    if legacy and rng.random() < 0.5:
        codec, label = legacy
        declaration = "both" if declaration == "wrong-http" else declaration
    lang_attr = (
        {3: "en", 4: ""}.get(number % 5, tag)
        if kind == "target"
        else rng.choice([tag, target_tag, "", "en"] if kind == "relative" else [tag, tag, "", "en"])
    )
    return Style(template, codec, label, declaration, lang_attr)


def _target_site(world: World, site: SiteBuilder, national: ParagraphPool, number: int) -> None:
    extra: list[tuple[str, str]] = []
    site.lay_out(site.rng.randint(2, 3), (2, 4))
    if number == 0:  # an endless calendar: a crawler trap
        extra.append(("/calendar/1", "Calendar"))
        world.traps.append(_calendar(site, "/calendar/"))
    if number == 1:  # a folder robots.txt forbids
        extra.append(("/private/notes.html", "Private"))
        site.add_page("/private/notes.html", site.pool.words(3, 6), site.blocks(3), indexed=False)
        world.robots[site.host] = "User-agent: *\nDisallow: /private/\n"
    if number == 2:  # a redirect, a broken link, a server error
        first = site.headlines[0]
        extra += [
            ("/old/story.html", first),
            ("/deleted.html", "Deleted"),
            ("/broken.html", "Broken"),
        ]
        site.add_raw("/old/story.html", _redirect(site.paths[first]))
        site.add_raw("/broken.html", WorldPage("", "", status=500, kind="error"))
    if number == 3:  # printer-friendly copies of every article
        for url, page in list(site.pages.items()):
            if re.search(r"-\d+\.html$", url):
                _copy(site, page, url + "?print=1", "docs", indexed=False)
    if number == 4:  # an edited copy in the archive
        original = next(p for u, p in site.pages.items() if u.endswith("-1.html"))
        edited = original.main_text.split("\n")
        edited[-1] = " ".join(edited[-1].split()[:-3]) or edited[-1]
        copy = site.add_page(
            "/archive/copy-1.html",
            edited[0],
            list(zip(original.line_langs[1:], edited[1:], strict=True)),
            indexed=True,
            dup_group=original.url,
        )
        extra.append(("/archive/copy-1.html", copy.title))
    if number == 5:  # a slow article
        next(p for u, p in site.pages.items() if u.endswith(".html")).delay = 1.5
    extra += _blogroll(world, number)
    if number % 4 == 3:  # old posts only its sitemap lists (named in robots.txt)
        _listing(world, site, "sitemap")
    elif number % 4 == 1:  # old posts only its RSS feed lists (linked from the home page)
        extra.append(_listing(world, site, "feed"))
    if number == 6:  # a PDF and an image
        extra += [("/files/report.pdf", "Report (PDF)"), ("/img/photo.jpg", "Photo")]
        site.add_raw(
            "/files/report.pdf",
            WorldPage(
                "", "", headers=[("Content-Type", "application/pdf")], body=PDF, kind="binary"
            ),
        )
        site.add_raw(
            "/img/photo.jpg",
            WorldPage("", "", headers=[("Content-Type", "image/jpeg")], body=JPEG, kind="binary"),
        )
    site.add_about()
    site.add_home(site.name, [*extra, ("/about", "About us")])


def _hidden_site(world: World, site: SiteBuilder, national: ParagraphPool, number: int) -> None:
    """A target site search does not index: only links from other sites lead to it (the
    last hidden site only from the one before it: two hops from search)."""
    site.lay_out(2, (2, 3), index_share=0.0)
    site.add_about()
    links = [("/about", "About us")]
    if number == world.hidden_count - 2:
        links += [world.homes["hidden"][number + 1]]
    site.add_home(site.name, links, indexed=False)
    for page in site.pages.values():  # section pages too: search has none of it
        page.indexed = False


def _blogroll(world: World, number: int) -> list[tuple[str, str]]:
    """A target home page's links to other sites: a hidden target site (each but the last
    from a few target sites) and two sites in other languages (links a miner should
    mostly leave alone)."""
    links = []
    linked = world.hidden_count - 1  # the last one is linked from the one before only
    if linked > 0 and number % (linked + 1) < linked:
        links.append(world.homes["hidden"][number % (linked + 1)])
    others = world.homes.get("other", {})
    if others:
        keys = sorted(others)
        links += [others[keys[(3 * number + k) % len(keys)]] for k in (0, 1)]
    return links


def _listing(world: World, site: SiteBuilder, kind: str) -> tuple[str, str]:
    """Two old posts nothing links to and a sitemap (robots.txt names it) or an RSS feed
    listing them with the site's articles; returns the link to put on the home page."""
    for k in (1, 2):
        site.add_page(
            f"/archive/old-{k}.html", site.pool.words(3, 6), site.blocks(3), indexed=False
        )
    urls = sorted(u for u, p in site.pages.items() if p.kind == "page")
    if kind == "sitemap":
        path, ctype = "/sitemap.xml", "application/xml"
        body = (
            '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/'
            'schemas/sitemap/0.9">\n'
            + "".join(f"  <url><loc>{html.escape(u)}</loc></url>\n" for u in urls)
            + "</urlset>\n"
        )
        world.robots[site.host] = (
            "User-agent: *\nDisallow: /cgi-bin/\n\nSitemap: " + site.url(path) + "\n"
        )
    else:
        path, ctype = "/feed.xml", "application/rss+xml"
        items = "".join(
            f"<item><title>{k}</title><link>{html.escape(u)}</link></item>"
            for k, u in enumerate(urls)
        )
        body = (
            '<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"><channel><title>'
            f"{html.escape(site.name)}</title>{items}</channel></rss>\n"
        )
    page = WorldPage("", "", headers=[("Content-Type", ctype)], body=body.encode(), kind=kind)
    site.add_raw(path, page).listed = urls
    return path, "RSS"


def _mixed_site(world: World, site: SiteBuilder, national: ParagraphPool, number: int) -> None:
    """Every page mixes the target and the national language paragraph by paragraph."""
    site.mix = national
    site.lay_out(2, (2, 3))
    site.add_about()
    site.add_home(site.name, [("/about", "About us")])


def _bilingual_site(world: World, site: SiteBuilder, national: ParagraphPool, number: int) -> None:
    """A target tree under /zu/ and a national-language tree under /en/."""
    site.lay_out(1, (2, 3), prefix=f"/{site.pool.text.tag.split('-')[0]}")
    english = SiteBuilder(site.host, site.name, national.text.code, site.style, national, site.rng)
    english.lay_out(1, (2, 3), prefix=f"/{national.text.tag.split('-')[0]}")
    site.pages.update(english.pages)
    site.sections += english.sections
    site.paths.update({k: v for k, v in english.paths.items() if k not in site.paths})
    site.add_about()
    site.add_home(site.name, [("/about", "About us")])


def _mirror_site(world: World, site: SiteBuilder, national: ParagraphPool, number: int) -> None:
    """An aggregator that copies articles of the first target sites under its own template."""
    hidden = {urlsplit(url).hostname for url, _ in world.homes.get("hidden", {}).values()}
    originals = [
        p
        for u, p in sorted(world.pages.items())
        if re.search(r"-1\.html$", u)
        and p.lang == site.lang
        and not p.dup_group
        and p.site not in hidden
    ][:3]
    links = []
    for k, page in enumerate(originals):
        path = f"/copies/{k + 1}.html"
        _copy(site, page, site.url(path), site.style.template, indexed=True)
        links.append((path, page.title))
    site.add_home(site.name, links)


def _plain_site(world: World, site: SiteBuilder, national: ParagraphPool, number: int) -> None:
    site.lay_out(site.rng.randint(1, 3), (1, 3))
    site.add_about()
    site.add_home(site.name, [("/about", "About us")])


_BUILD = {
    "target": _target_site,
    "hidden": _hidden_site,
    "mixed": _mixed_site,
    "bilingual": _bilingual_site,
    "mirror": _mirror_site,
    "relative": _plain_site,
    "other": _plain_site,
}


def _copy(site: SiteBuilder, page: WorldPage, url: str, template: str, indexed: bool) -> None:
    lines = page.main_text.split("\n")
    style = Style(template, "utf-8", "utf-8", "meta", site.style.lang_attr)
    copy = site.add_page(
        url.split(site.host, 1)[-1],
        lines[0],
        list(zip(page.line_langs[1:], lines[1:], strict=True)),
        indexed=indexed,
        dup_group=page.dup_group or page.url,
        style=style,
    )
    copy.shares = dict(page.shares)


def _redirect(location: str) -> WorldPage:
    return WorldPage("", "", status=301, kind="redirect", headers=[("Location", location)])


def _calendar(site: SiteBuilder, prefix: str) -> Trap:
    """An endless calendar: every month links to the next; the body has @@N@@ placeholders."""
    words = site.pool.words(3, 6)
    page = site.add_page(
        f"{prefix}@@N@@",
        f"{words} @@N@@",
        site.blocks(1),
        [(f"{prefix}@@NEXT@@", "Next month"), ("/", "Home")],
        indexed=False,
    )
    del site.pages[page.url]
    return Trap(site.host, prefix, page.body, page.headers, site.lang, page.main_text)


def _sprinkle(world: World, site: SiteBuilder, kind: str, index: int, number: int) -> None:
    """The oddities of other sites: robots.txt rules, slow and huge pages, a trap."""
    if kind in ("target", "mixed", "bilingual", "mirror", "hidden"):
        world.robots.setdefault(site.host, "User-agent: *\nDisallow: /cgi-bin/\n")
        return
    rng = random.Random(f"{world.options.seed}-sprinkle-{index}")
    roll = rng.random()
    if roll < 0.1:
        world.robots[site.host] = "User-agent: *\nDisallow: /private/\n"
        site.add_page("/private/index.html", site.pool.words(2, 4), site.blocks(2), indexed=False)
    elif roll < 0.6:
        world.robots[site.host] = "User-agent: *\nAllow: /\n"
    if number % 40 == 7:
        next(iter(site.pages.values())).delay = 2.0
    if kind != "other":
        return
    if number == 0:
        _huge_page(site)
    elif number == 1:
        world.robots[site.host] = ""  # robots.txt answers 500: the whole site is off limits
    elif number == 2:
        world.robots[site.host] = "User-agent: *\nCrawl-delay: 2\n"
    elif number % 80 == 3:
        world.traps.append(_calendar(site, "/events/"))


def _huge_page(site: SiteBuilder) -> None:
    """An article followed by over 5 MiB of comments."""
    page = site.add_page(
        "/forum/all-comments.html", site.pool.words(3, 5), site.blocks(3), indexed=True
    )
    comments = "".join(f"<p>Comment {i}: {site.pool.words(8, 16)}</p>\n" for i in range(70_000))
    page.body = page.body.replace(b"</body>", comments.encode() + b"</body>", 1)
