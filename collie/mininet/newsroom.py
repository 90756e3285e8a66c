"""The pages every news site has beside its articles (issue 30).

`NewsSite` is a site whose home, section, tag and archive pages are listings: for each
article its headline, a teaser (its first ~30 words, cut with an ellipsis: across its
paragraphs, as WordPress excerpts are, or within its first paragraph) and a "read more"
link in the site's language or in English. Some of its articles carry a paragraph in
English or in a regional language (a quote, a notice) and a "read also" box with another
article's teaser after their text. `add_legal_pages` gives a target-language site its
English contact and privacy pages (and, on some, an English about page): 20-60 words and
no target text, as on the real web.

Ground truth: a listing page is marked `listing` (not a document: all its text is
headlines and teasers); every page keeps the language of each main-text line
(`line_langs`), so a scorer knows which paragraphs of a mixed page are the target's.
"""

from __future__ import annotations

import html
import random
from collections.abc import Sequence

from collie.mininet.languages import NEIGHBOURS, RELATIVES
from collie.mininet.sites import Block, SiteBuilder, Style, WorldPage, slug
from collie.mininet.texts import ParagraphPool

READ_MORE = {"zul": "Funda kabanzi", "xho": "Funda kabanzi", "swh": "Soma zaidi"}
TEASER_WORDS = (24, 36)
HOME_TEASERS = 6
ENGLISH = "eng"

CONTACT = (
    "Do you have a story, a tip or a correction? Write to the newsroom at news@{host}.",
    "For advertising, call our office on +27 31 {n3} {n4}, Monday to Friday, 8am to 5pm.",
    "Letters to the editor may be shortened for length and clarity.",
    "You can also find us on Facebook and Twitter, or send us a message on WhatsApp.",
    "Our postal address is P.O. Box {n4}, and our offices are closed on public holidays.",
)
PRIVACY = (
    "We respect your privacy.",
    "{name} collects only the information you give us when you write to us or subscribe "
    "to our newsletter.",
    "We use cookies to count our visitors and to remember your settings; you can turn "
    "them off in your browser.",
    "We never sell your personal data to third parties.",
    "Questions about this policy can be sent to privacy@{host}.",
    "This policy was last updated in March {year}.",
)
ABOUT = (
    "{name} is an independent news website founded in {year}.",
    "We report on politics, business, sport, culture and the life of our communities.",
    "Our small team of journalists and photographers works with readers across the region.",
    "Advertise with us to reach thousands of readers every day.",
)


class NewsSite(SiteBuilder):
    """A news site: listing pages of teasers, articles with asides and read-also boxes.

    `asides`: the pools a foreign paragraph is dealt from (English, a regional language);
    `spanning`: teasers are the first words of the whole text (else of the first
    paragraph); `read_also`: articles end with another article's teaser."""

    def __init__(
        self,
        host: str,
        name: str,
        lang: str,
        style: Style,
        pool: ParagraphPool,
        rng: random.Random,
        asides: Sequence[ParagraphPool] = (),
    ):
        super().__init__(host, name, lang, style, pool, rng)
        self.asides = list(asides)
        self.spanning = rng.random() < 0.5
        self.read_also = rng.random() < 0.5
        self.read_more = READ_MORE.get(lang, "Read more") if rng.random() < 0.5 else "Read more"
        word = pool.words(1, 1)
        self.tags = [(f"/tag/{slug(word) or 'news'}/", word)]

    def add_article(
        self,
        path: str,
        headline: str,
        links: list[tuple[str, str]],
        indexed: bool,
        before: list[tuple[str, str]],
    ) -> WorldPage:
        """An article; one in three has a foreign paragraph (never its first), and on a
        site with read-also boxes every article but a section's first ends with one."""
        blocks = self.blocks(self.rng.randint(3, 5))
        if self.asides and self.rng.random() < 1 / 3:
            pool = self.rng.choice(self.asides)
            blocks.insert(self.rng.randint(1, len(blocks)), (pool.text.code, pool.deal(1)[0]))
        after = ""
        if self.read_also and before:
            href, title = self.rng.choice(before)
            box = _teaser_html(href, title, self.teaser(href), "", "div")
            after = f'\n<aside class="read-also"><h3>Read also</h3>{box}</aside>'
        links = [*links, *((h, t) for h, t in self.tags)]
        return self.add_page(path, headline, blocks, links, indexed=indexed, after=after)

    def add_section(
        self, base: str, title: str, articles: list[tuple[str, str]], indexed: bool
    ) -> WorldPage:
        return self.add_listing(base, title, articles, (), indexed)

    def add_home(
        self, heading: str, extra_links: Sequence[tuple[str, str]] = (), indexed: bool = True
    ) -> WorldPage:
        """The home page (the latest articles' teasers), after the tag page and, on one
        site in three, an archive of every article."""
        articles = [(self.paths[h], h) for h in self.headlines]
        links = [(self.paths[s], s) for s in self.sections] + list(extra_links)
        for path, word in self.tags:
            chosen = sorted(self.rng.sample(range(len(articles)), min(4, len(articles))))
            self.add_listing(path, word, [articles[i] for i in chosen], (), False)
            links.append((path, word))
        if self.rng.random() < 1 / 3:
            self.add_listing("/archive/", "Archive", articles, (), False, ENGLISH)
            links.append(("/archive/", "Archive"))
        return self.add_listing("/", heading, articles[-HOME_TEASERS:], links, indexed)

    def teaser(self, href: str) -> str:
        """An article's first words, cut with an ellipsis."""
        page = self.pages[self.url(href)]
        lines = page.main_text.split("\n")[1:]
        words = (" ".join(lines) if self.spanning else lines[0]).split()
        cut = self.rng.randint(*TEASER_WORDS)
        return " ".join(words[:cut]).rstrip(",;:.") + " …"

    def add_listing(
        self,
        path: str,
        heading: str,
        articles: Sequence[tuple[str, str]],
        links: Sequence[tuple[str, str]],
        indexed: bool,
        heading_lang: str = "",
    ) -> WorldPage:
        """A hub page: a teaser for each article, then `links`."""
        items, blocks = [], list[Block]()
        for href, title in articles:
            first = self.pages[self.url(href)].line_langs[1]
            text = self.teaser(href)
            items.append(_teaser_html(href, title, text, self.read_more))
            blocks += [(self.lang, title), (first, text)]
        more = "".join(
            f'<li><a href="{html.escape(h)}">{html.escape(t)}</a></li>' for h, t in links
        )
        main = "\n".join([f"<h1>{html.escape(heading)}</h1>", *items])
        main += f'\n<ul class="more">{more}</ul>' if more else ""
        return self.add_page(
            path,
            heading,
            blocks,
            indexed=indexed,
            main=main,
            listing=True,
            heading_lang=heading_lang,
        )


def _teaser_html(href: str, title: str, text: str, more: str, tag: str = "article") -> str:
    link = html.escape(href)
    more_html = f'\n<p><a class="more-link" href="{link}">{html.escape(more)}</a></p>'
    return (
        f'<{tag} class="teaser"><h2><a href="{link}">{html.escape(title)}</a></h2>\n'
        f'<p class="excerpt">{html.escape(text)}</p>{more_html if more else ""}</{tag}>'
    )


def plan_legal_pages(site: SiteBuilder, about: bool) -> None:
    """Point the menus' Contact and Privacy Policy (and with `about` About us) links at
    the English pages `add_legal_pages` makes: call before laying the site out."""
    site.paths.update({"Contact": "/contact", "Privacy Policy": "/privacy"})
    if about:
        site.paths["About us"] = "/about"


def add_legal_pages(site: SiteBuilder, about: bool) -> list[WorldPage]:
    """English contact and privacy pages (and with `about` an English about page)."""
    rng, year = site.rng, site.rng.randint(2005, 2024)
    values = {
        "host": site.host.removeprefix("www."),
        "name": site.name,
        "year": year,
        "n3": rng.randint(100, 999),
        "n4": rng.randint(1000, 9999),
    }
    made = []
    for path, heading, sentences, count in (
        ("/contact", "Contact us", CONTACT, (2, 3)),
        ("/privacy", "Privacy policy", PRIVACY, (3, 5)),
        *((("/about", "About us", ABOUT, (2, 3)),) if about else ()),
    ):
        chosen = sorted(rng.sample(range(len(sentences)), rng.randint(*count)))
        text = " ".join(sentences[i].format(**values) for i in chosen)
        blocks, links = [(ENGLISH, text)], [("/", "Home")]
        made.append(
            site.add_page(path, heading, blocks, links, indexed=False, heading_lang=ENGLISH)
        )
    return made


def news_plan(kind: str, number: int, target: str) -> tuple[bool, bool, bool]:
    """(a news site, English contact and privacy pages, an English about page) for the
    `number`th site of `kind`: two target sites in three and every other hidden one are
    news sites; every target, hidden and mixed site has the English pages, one target
    site in three an English about page too."""
    news = (kind == "target" and number % 3 != 2) or (kind == "hidden" and number % 2 == 0)
    legal = kind in ("target", "hidden", "mixed") and target != ENGLISH
    return news, legal, legal and kind == "target" and number % 3 == 1


def regional_language(target: str, others: Sequence[str], national: str) -> str | None:
    """The language of a news site's regional paragraphs: the target's first neighbour in
    the world, else its first language that is neither a relative nor the national one."""
    relatives = RELATIVES.get(target, ())
    found = [c for c in NEIGHBOURS.get(target, ()) if c in others and c != national]
    found += [c for c in others if c not in relatives and c != national]
    return found[0] if found else None
