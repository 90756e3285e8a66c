"""Sites a corpus should label (issue 44): religious sites and multilingual shops.

Built only with `BuildOptions.site_labels` (`collie mininet build --site-labels`), so the
default world keeps its mix. Each host's kind and labels go into the world's site table
(`SiteTruth`), so a site labeller is measured against them.

- Religious sites, in the target, its relatives and the national language: Bible-like
  chapters with numbered verses (a verse a line, or superscript numbers in one
  paragraph), scripture references in the language's book names ("Johane 3:16"),
  sermons and a verse of the day, church words in the language and church menus in
  English. The first target ones sit on known religious domains (www.jw.org with
  wol.jw.org, www.bible.com, ebible.org), the others on church-like names.
- Multilingual shops: the same pages (a shop home, product pages with prices and an
  "Add to cart" button) under /xx/ for about 20 of the world's languages, the target
  among them, with hreflang alternates in the head and a language switcher; the
  non-target versions are the languages' own (parallel UDHR) paragraphs, the target's
  is machine-like: the words of each sentence shuffled. One shop in three puts its
  locales on subdomains instead (zu.shop.com, fr.shop.com).

The verse texts and sermons are the language's world text (human-written, from the UDHR
or --docs); the book names and the few church sentences below are the generator's own.
"""

from __future__ import annotations

import html
import random
import re
from collections.abc import Sequence

from collie.mininet.languages import PART1
from collie.mininet.records import SiteTruth, World
from collie.mininet.sites import Block, SiteBuilder, Style, WorldPage, slug
from collie.mininet.texts import LanguageText, ParagraphPool

RELIGIOUS, MULTILINGUAL = "religious", "multilingual"
LOCALES = 20  # languages a multilingual shop is served in (fewer when the world has fewer)
CHAPTER_PARAGRAPHS = 5  # of the world's text a Bible chapter's verses are cut from
DESCRIPTION = 80  # words of a shop page's text at least (in a language written with spaces)

# Book names as a language's Bible writes them (Genesis, Psalms, Matthew, Mark, Luke,
# John, Acts, Romans, Revelation); English names for a language not listed.
BOOKS = {
    code: tuple(names.split("|"))
    for code, names in {
        "zul": "uGenesise|AmaHubo|uMathewu|uMarku|uLuka|uJohane|IzEnzo|KwabaseRoma|IsAmbulo",
        "xho": "iGenesis|iNdumiso|uMateyu|uMarko|uLuka|uYohane|iZenzo|KwabaseRoma|iSityhilelo",
        "nbl": "uGenesisi|AmaRhubo|uMatewu|uMarkosi|uLukasi|uJwanisi|Izenzo|AbaseRoma|IsAmbulo",
        "ssw": "Genesisi|Tihlabelelo|Matewu|Makho|Lukha|Johane|Tento|KubaseRoma|Sembulo",
        "swh": "Mwanzo|Zaburi|Mathayo|Marko|Luka|Yohana|Matendo|Warumi|Ufunuo",
        "luo": "Chakruok|Zaburi|Mathayo|Mariko|Luka|Johana|Tich Joote|Jo-Rumi|Fweny",
        "eng": "Genesis|Psalms|Matthew|Mark|Luke|John|Acts|Romans|Revelation",
    }.items()
}
# A church site's words in a language: its sentences (welcome, daily prayer, Sunday
# service, then creed, Bible reading, praise, preaching), its sections' names (Bible,
# sermons, prayer, verse of the day) and how a chapter's verse opens a saying of the
# Lord. Written for the generator; English where a language is not listed.
CHURCH = {
    "zul": (
        "Siyakwamukela ebandleni lethu.|Sikhuleka kuNkulunkulu nsuku zonke.|Inkonzo "
        "yangeSonto iqala ngehora lesishiyagalolunye ekuseni.|UJesu Kristu uyiNkosi yethu. "
        "Amen.|Funda iBhayibheli nsuku zonke, ukhulekele umndeni wakho.|Haleluya! INkosi "
        "inathi.|Umfundisi uzoshumayela ngevangeli likaJesu.",
        "IBhayibheli|Izintshumayelo|Umthandazo|Ivesi losuku",
        "INkosi yathi:",
    ),
    "xho": (
        "Wamkelekile ecaweni yethu.|Sithandaza kuThixo yonke imihla.|Inkonzo yangeCawa "
        "iqala ngentsimbi yesithoba kusasa.|UYesu Krestu yiNkosi yethu. Amen.|Funda "
        "iBhayibhile yonke imihla.|Haleluya! INkosi inathi.|Umfundisi uza kushumayela "
        "iindaba ezilungileyo zikaYesu.",
        "IBhayibhile|Iintshumayelo|Umthandazo|Ivesi yosuku",
        "INkosi yathi:",
    ),
    "nbl": (
        "Wamukelekile ebandleni lethu.|Sithandaza kuZimu qobe langa.|Ikonzo yangeSondo "
        "ithoma ngesikhathi sesithandathu.|UJesu Kristu uyiKosi yethu. Amen.|Funda "
        "iBhayibheli qobe langa.|Haleluya! IKosi inathi.|Umfundisi uzokutjhumayela "
        "ngevangeli lakaJesu.",
        "IBhayibheli|Iintjumayelo|Umthandazo|Ivesi yelanga",
        "IKosi yathi:",
    ),
    "ssw": (
        "Wemukelekile ebandleni letfu.|Sithandaza kuNkulunkulu onkhe emalanga.|Inkonzo "
        "yangeSontfo icala ngelihora lesishiyagalolunye.|Jesu Khristu uyiNkhosi yetfu. "
        "Amen.|Fundza liBhayibheli onkhe emalanga.|Haleluya! INkhosi inatsi.|Umfundisi "
        "utawushumayela livangeli laJesu.",
        "LiBhayibheli|Tintjumayelo|Umthantazo|Livesi lelilanga",
        "INkhosi yatsi:",
    ),
    "swh": (
        "Karibu kanisani kwetu.|Tunaomba kwa Mungu kila siku.|Ibada ya Jumapili inaanza "
        "saa tatu asubuhi.|Yesu Kristo ni Bwana wetu. Amina.|Soma Biblia kila siku.|"
        "Haleluya! Bwana yu pamoja nasi.|Mchungaji atahubiri injili ya Yesu.",
        "Biblia|Mahubiri|Maombi|Mstari wa leo",
        "Bwana akasema:",
    ),
    "eng": (
        "Welcome to our church.|We pray to God every day.|Sunday service begins at nine "
        "in the morning.|Jesus Christ is our Lord. Amen.|Read the Bible every day.|"
        "Hallelujah! The Lord is with us.|The pastor will preach the gospel of Jesus.",
        "Bible|Sermons|Prayer|Verse of the day",
        "And the Lord said:",
    ),
}
CHURCH_MENU = ("Sermons", "Daily verse", "Prayer requests", "Ministries", "Give")
KNOWN_RELIGIOUS = (("www.jw.org", "wol.jw.org"), ("www.bible.com",), ("ebible.org",))
CHURCH_NAMES = ("{w}church.org", "www.{w}-ministries.org", "{w}chapel.co.za", "www.{w}gospel.org")
PRODUCTS = (
    "Solar lantern",
    "Steel kettle",
    "Cotton shirt",
    "Phone charger",
    "Water bottle",
    "Rice cooker",
    "School bag",
    "Wall clock",
    "Rain jacket",
)
SHOP_NAMES = ("shop", "store", "market", "mall")


def labelled_plan(
    sites: int, target: str, relatives: Sequence[str], national: str
) -> list[tuple[str, str]]:
    """(kind, language) of the religious sites and shops of a world of `sites` sites:
    the target's religious sites first (the first ones on known religious domains),
    then its relatives' and the national language's, then the shops."""
    plan = [(RELIGIOUS, target)] * max(4, round(sites * 0.02))
    plan += [(RELIGIOUS, c) for c in [*relatives[: max(2, round(sites * 0.01))], national]]
    return plan + [(MULTILINGUAL, target)] * max(3, round(sites * 0.01))


def religious_hosts(
    number: int, lang: str, target: str, word: str, rng: random.Random
) -> list[str]:
    """The hosts of the `number`th religious site in `lang`: known religious domains for
    the first target ones, church-like names otherwise (`word`: a name stem)."""
    if lang == target and number < len(KNOWN_RELIGIOUS):
        return list(KNOWN_RELIGIOUS[number])
    return [rng.choice(CHURCH_NAMES).format(w=word)]


def shop_hosts(number: int, word: str, rng: random.Random, tags: Sequence[str]) -> list[str]:
    """The hosts of the `number`th shop: one (locales under /xx/), or on subdomains for one
    shop in three (the first host serves the first locale)."""
    base = f"{word}{rng.choice(SHOP_NAMES)}.{rng.choice(('com', 'net', 'co.za'))}"
    if number % 3 != 1:
        return [f"www.{base}"]
    return [f"www.{base}", *(f"{tag}.{base}" for tag in tags[1:])]


def locale_tag(text: LanguageText) -> str:
    """The path or subdomain code of a language, as locale sites write it: its ISO 639-1
    code when it has one (`zu`, also for text from --docs), else the first part of its
    BCP 47 tag (`nso`)."""
    return PART1.get(text.code) or text.tag.split("-")[0].lower()


class ReligiousSite(SiteBuilder):
    """A church or Bible site in one language (the module docstring)."""

    says = ""  # how a verse opens a saying of the Lord (CHURCH)

    def build(self, others: Sequence[str]) -> None:
        """Lay out the site; `others`: more hosts of it (wol.jw.org beside www.jw.org),
        which hold its Bible chapters."""
        books = BOOKS.get(self.lang, BOOKS["eng"])
        said, named, self.says = CHURCH.get(self.lang, CHURCH["eng"])
        lines, words = said.split("|"), named.split("|")
        church = self.lang if self.lang in CHURCH else "eng"
        bible, sermons = words[0], words[1]
        self.sections = [bible, sermons, *CHURCH_MENU[:3]]
        self.paths.update({w: "/" for w in CHURCH_MENU})
        chapters = self._chapters(books, others[0] if others else "")
        self.paths[bible] = chapters[0][0]
        talks = []
        for k in range(2):
            heading = self.pool.words(3, 6)
            path = f"/sermons/{slug(heading, 24) or 'sermon'}-{k + 1}.html"
            blocks = []
            for i, block in enumerate(self._with_references(self.blocks(3), books)):
                blocks += [block, (church, lines[(3 + 2 * k + i) % len(lines)])]
            self.add_page(path, heading, blocks, [("/", "Home")], indexed=self.rng.random() < 0.8)
            talks.append((path, heading))
        self.paths[sermons] = talks[0][0]
        self.headlines = [h for _, h in talks] + [t for _, t in chapters]
        self.add_about()
        verse = self._reference(books)
        first = self.pool.deal(1)[0].split(". ")[0].rstrip(".")
        home = [
            *self.blocks(1),
            *((church, line) for line in lines[:3]),
            (self.lang, f"{words[3]}: {first}. ({verse})"),
            (church, lines[3]),
        ]
        links = [*chapters, *talks, ("/about", "About us")]
        self.add_page("/", self.name, home, links, indexed=True)

    def _chapters(self, books: Sequence[str], other: str) -> list[tuple[str, str]]:
        """Four chapters of two books, verse by verse; on `other` (a second host) when
        given, with a home page of its own. Returns (URL or path, heading) of each."""
        host: SiteBuilder = self
        if other:
            host = SiteBuilder(other, self.name, self.lang, self.style, self.pool, self.rng)
            host.sections, host.paths = list(self.sections), dict(self.paths)
        found = []
        for book in self.rng.sample(list(books), 2):
            for chapter in sorted(self.rng.sample(range(1, 13), 2)):
                path = f"/bible/{slug(book)}/{chapter}/"
                heading = f"{book} {chapter}"
                blocks, main = self._verses(heading)
                host.add_page(path, heading, blocks, main=main, indexed=self.rng.random() < 0.8)
                found.append((host.url(path) if other else path, heading))
        if other:
            host.add_page("/", self.name, host.blocks(1), found, indexed=True)
            self.pages.update(host.pages)
        return found

    def _verses(self, heading: str) -> tuple[list[Block], str]:
        """(the truth's blocks, the main column's HTML) of a chapter: a verse a paragraph
        ("1 ...", "2 ...") or all verses in one paragraph with superscript numbers."""
        sentences = [
            s.strip()
            for p in self.pool.deal(CHAPTER_PARAGRAPHS)
            for s in re.split(r"(?<=[.;:])\s+", p)
            if len(s.strip()) > 12
        ]
        sentences = [f"{self.says} {s}" if n % 4 == 3 else s for n, s in enumerate(sentences)]
        verses = [f"{n} {s}" for n, s in enumerate(sentences, 1)]
        out = [f"<h1>{html.escape(heading)}</h1>"]
        if self.rng.random() < 0.5:
            out += [f'<p class="verse">{html.escape(v)}</p>' for v in verses]
            return [(self.lang, v) for v in verses], "\n".join(out)
        sup = " ".join(f"<sup>{n}</sup>&nbsp;{html.escape(s)}" for n, s in enumerate(sentences, 1))
        out.append(f'<p class="chapter">{sup}</p>')
        text = " ".join(f"{n}\xa0{s}" for n, s in enumerate(sentences, 1))
        return [(self.lang, text)], "\n".join(out)

    def _reference(self, books: Sequence[str]) -> str:
        book, chapter, verse = (
            self.rng.choice(books),
            self.rng.randint(1, 20),
            self.rng.randint(1, 30),
        )
        span = f"-{verse + self.rng.randint(1, 6)}" if self.rng.random() < 0.4 else ""
        return f"{book} {chapter}:{verse}{span}"

    def _with_references(self, blocks: list[Block], books: Sequence[str]) -> list[Block]:
        """Paragraphs ending with a scripture reference in brackets."""
        return [(c, f"{t.rstrip('.')} ({self._reference(books)}).") for c, t in blocks]


class Shop:
    """A multilingual shop (the module docstring): the same pages in every locale."""

    def __init__(
        self,
        hosts: Sequence[str],
        name: str,
        style: Style,
        texts: Sequence[LanguageText],
        target: str,
        rng: random.Random,
    ):
        self.hosts, self.name, self.style, self.texts = list(hosts), name, style, list(texts)
        self.target, self.rng = target, rng
        self.tags = [locale_tag(t) for t in texts]
        self.products = rng.sample(PRODUCTS, 3)
        self.offset = rng.randrange(20)  # the UDHR paragraphs the pages say
        self.currency = rng.choice(("R", "KSh", "$", "€"))
        self.prices = [
            f"{self.currency} {rng.randint(49, 1999)}.{rng.choice(('00', '99'))}"
            for _ in self.products
        ]
        self.pages: dict[str, WorldPage] = {}

    def base(self, k: int) -> str:
        """Where locale `k`'s pages are: a host and a path prefix."""
        if len(self.hosts) > 1:
            return f"http://{self.hosts[k]}"
        return f"http://{self.hosts[0]}/{self.tags[k]}"

    def build(self) -> None:
        paths = ["/", *(f"/product/{slug(p)}.html" for p in self.products)]
        for k, text in enumerate(self.texts):
            host = self.hosts[k] if len(self.hosts) > 1 else self.hosts[0]
            style = Style(self.style.template, "utf-8", "utf-8", "meta", text.tag)
            pool = ParagraphPool(text, random.Random(0))  # the frame's; the pages say their own
            site = SiteBuilder(host, self.name, text.code, style, pool, self.rng)
            prefix = "" if len(self.hosts) > 1 else f"/{self.tags[k]}"
            pairs = zip(self.products, paths[1:], strict=True)
            site.paths = {"Home": f"{prefix}/", **{p: f"{prefix}{u}" for p, u in pairs}}
            site.sections = list(self.products)
            indexed = text.code == self.target or self.rng.random() < 0.3
            for j, path in enumerate(paths):
                self._page(site, k, j, prefix + path, indexed)
            self.pages.update(site.pages)
        if len(self.hosts) == 1:  # the shop's root sends a visitor to the first locale
            root = f"http://{self.hosts[0]}/"
            self.pages[root] = WorldPage(
                root,
                self.hosts[0],
                status=302,
                kind="redirect",
                headers=[("Location", f"/{self.tags[0]}/")],
            )

    def _page(self, site: SiteBuilder, k: int, j: int, path: str, indexed: bool) -> None:
        text = self.texts[k]
        paragraphs = self._description(text, j)
        if text.code == self.target:
            paragraphs = [self._machine_like(p) for p in paragraphs]
        blocks = [(text.code, p) for p in paragraphs]
        if j == 0:
            heading = self.name
            links = [(site.paths[p], p) for p in self.products]
            after = ""
        else:
            heading = self.products[j - 1]
            links = [(site.paths["Home"], self.name)]
            after = _buy_box(self.prices[j - 1], f"sku-{j}")
        page = site.add_page(
            path, heading, blocks, links, indexed=indexed, after=after, heading_lang="eng"
        )
        suffix = path.split("/", 2)[-1] if len(self.hosts) == 1 else path.lstrip("/")
        alternates = [(tag, f"{self.base(i)}/{suffix}") for i, tag in enumerate(self.tags)]
        _add_locale_links(page, alternates, text.tag)

    def _description(self, text: LanguageText, j: int) -> list[str]:
        """What page `j` says in `text`'s language: the paragraphs from the page's place
        in the text on until DESCRIPTION words (at most 6 paragraphs): the same place in
        every language, so UDHR translations say the same."""
        found: list[str] = []
        start = self.offset + 6 * j
        while len(found) < 6 and sum(len(p.split()) for p in found) < DESCRIPTION:
            found.append(text.paragraphs[(start + len(found)) % len(text.paragraphs)])
        return found

    def _machine_like(self, paragraph: str) -> str:
        """A target paragraph as a careless machine translation reads: each sentence's
        words shuffled."""
        out = []
        for sentence in re.split(r"(?<=[.;:])\s+", paragraph):
            words = sentence.rstrip(".;:").split()
            shuffled = self.rng.sample(words, len(words))
            if shuffled == words:  # never the sentence as written
                shuffled = words[1:] + words[:1]
            words = shuffled
            out.append(" ".join(words).capitalize() + ".")
        return " ".join(out)


def _buy_box(price: str, sku: str) -> str:
    return (
        '<div class="product-buy" itemscope itemtype="https://schema.org/Product">'
        f'<meta itemprop="sku" content="{sku}"><span class="price" itemprop="price">'
        f"{html.escape(price)}</span>"
        '<form action="/cart/add" method="post"><input type="hidden" name="sku" '
        f'value="{sku}"><button class="add-to-cart" type="submit">Add to cart</button></form>'
        '<p class="stock">In stock. Free delivery on orders over 500.</p></div>'
    )


def _add_locale_links(page: WorldPage, alternates: Sequence[tuple[str, str]], lang: str) -> None:
    """hreflang alternates in the head and a language switcher at the top of the body."""
    head = "".join(
        f'<link rel="alternate" hreflang="{t}" href="{html.escape(u)}">\n' for t, u in alternates
    )
    head += f'<link rel="alternate" hreflang="x-default" href="{html.escape(alternates[0][1])}">\n'
    switcher = "".join(
        f'<li><a href="{html.escape(u)}" lang="{t}"{" aria-current" if t == lang else ""}>'
        f"{t.upper()}</a></li>"
        for t, u in alternates
    )
    nav = f'<nav class="language-switcher"><ul>{switcher}</ul></nav>\n'
    body = page.body.replace(b"</head>", head.encode() + b"</head>", 1)
    page.body = re.sub(rb"(<body[^>]*>\n?)", lambda m: m.group(1) + nav.encode(), body, count=1)
    page.links = re.findall(r'href="([^"#]+)"', page.body.decode(page.encoding or "utf-8"))


def add_religious_site(
    world: World,
    lang: str,
    number: int,
    rng: random.Random,
    taken: set[str],
    pool: ParagraphPool,
    style: Style,
) -> None:
    """The `number`th religious site (in `lang`), its pages, robots.txt and site truth."""
    word = slug(pool.words(1, 1), 10) or "grace"
    hosts = [
        _free(h, taken) for h in religious_hosts(number, lang, world.options.target, word, rng)
    ]
    words = re.sub(r"[^\w ]+", "", pool.words(1, 2)) or "Grace"
    name = f"{words} {rng.choice(['Church', 'Bible', 'Ministries', 'Chapel'])}"
    site = ReligiousSite(hosts[0], name, lang, style, pool, rng)
    site.build(hosts[1:])
    world.pages.update(site.pages)
    for host in hosts:
        world.robots.setdefault(host, "User-agent: *\nDisallow: /cgi-bin/\n")
        world.sites[host] = SiteTruth(host, RELIGIOUS, lang, (RELIGIOUS,))


def add_shop(world: World, number: int, rng: random.Random, taken: set[str], template: str) -> None:
    """The `number`th multilingual shop: the national language first, the target, its
    relatives, then the world's other languages, LOCALES in all."""
    target = world.options.target
    first = "eng" if "eng" in world.texts else sorted(world.texts)[0]
    order = [first, target, *world.relatives, *sorted(world.texts)]
    codes = [c for c in dict.fromkeys(order) if c in world.texts][:LOCALES]
    texts = [world.texts[c] for c in codes]
    word = slug(ParagraphPool(texts[0], rng).words(1, 1), 10) or "duka"
    hosts = [_free(h, taken) for h in shop_hosts(number, word, rng, [locale_tag(t) for t in texts])]
    name = f"{word.capitalize()} {rng.choice(['Shop', 'Store', 'Market'])}"
    shop = Shop(hosts, name, Style(template, "utf-8", "utf-8", "meta", ""), texts, target, rng)
    shop.build()
    world.pages.update(shop.pages)
    for k, host in enumerate(hosts):
        world.robots.setdefault(host, "User-agent: *\nDisallow: /cart/\n")
        lang = codes[k] if len(hosts) > 1 else "mul"
        world.sites[host] = SiteTruth(host, MULTILINGUAL, lang, (MULTILINGUAL,))


def _free(host: str, taken: set[str]) -> str:
    """`host`, or a numbered variant of it when the world has it already."""
    found, k = host, 2
    while found in taken:
        found = (
            host.replace(".", f"{k}.", 1) if not host.startswith("www.") else f"www.{k}{host[4:]}"
        )
        k += 1
    taken.add(found)
    return found
