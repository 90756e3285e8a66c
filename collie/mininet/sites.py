"""One site of the closed world: its pages, their HTML, links and ground truth.

`SiteBuilder` lays out a small interlinked site (home, section pages, articles, an about
page) in one template, encoding and `lang` policy, and records for every URL what a
perfect miner would know: the language shares of its main text, the main text itself,
its duplicate group, whether search indexes it. Planted oddities (redirects, errors,
copies, PDFs, a private folder...) are added by the world plan (build.py).
"""

from __future__ import annotations

import html
import random
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field

from collie.mininet.layouts import Site
from collie.mininet.pages import MENU_EN, render_page
from collie.mininet.texts import ParagraphPool

Block = tuple[str, str]  # (language code, paragraph)


@dataclass
class WorldPage:
    """One URL of the world as served, with its ground truth."""

    url: str
    site: str
    status: int = 200
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""
    delay: float = 0.0
    encoding: str = ""  # the codec the body is written in (pages)
    kind: str = "page"  # page, redirect, error, binary, robots, sitemap, feed
    lang: str = ""  # the language of most of the main text
    shares: dict[str, float] = field(default_factory=dict)  # language -> share of letters
    title: str = ""
    main_text: str = ""  # heading and paragraphs, one a line (what a perfect extractor keeps)
    dup_group: str = ""  # the URL of the original this page copies ("" = itself)
    indexed: bool = False  # whether the search engine has it
    links: list[str] = field(default_factory=list)  # hrefs as written
    disallowed: bool = False  # by the site's robots.txt
    reachable: bool = False  # by links (robots.txt obeyed) from a page search can return
    reach: str = ""  # how (mininet.reach.REACH): indexed, same-site, other-site, sitemap
    listed: list[str] = field(default_factory=list)  # a sitemap's or a feed's URLs
    listing: bool = False  # a hub page of teasers (home, section, tag...): not a document
    line_langs: list[str] = field(default_factory=list)  # the language of each main_text line

    def share(self, code: str) -> float:
        return self.shares.get(code, 0.0)


@dataclass(frozen=True)
class Style:
    """How a site writes its pages."""

    template: str
    codec: str
    label: str
    declaration: str  # pages.DECLARATIONS
    lang_attr: str  # "" = none


def letter_shares(blocks: Sequence[Block]) -> dict[str, float]:
    """Each language's share of the letters of `blocks`."""
    counts: dict[str, int] = {}
    for code, text in blocks:
        counts[code] = counts.get(code, 0) + sum(c.isalpha() for c in text)
    total = sum(counts.values()) or 1
    return {code: round(n / total, 4) for code, n in sorted(counts.items())}


def slug(text: str, limit: int = 30) -> str:
    """An ASCII path segment for `text` ("" if it has no ASCII letters)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")[:limit].strip("-")


def main_html(
    heading: str, blocks: Sequence[Block], links: Sequence[tuple[str, str]], rng: random.Random
) -> str:
    """The main column: heading, paragraphs (one maybe with an in-text link), a link list."""
    lines = [f"<h1>{html.escape(heading)}</h1>"]
    for i, (_code, text) in enumerate(blocks):
        words = html.escape(text).split(" ")
        if links and i == 0 and len(words) > 8 and rng.random() < 0.5:
            k = rng.randrange(len(words) - 1)
            href, _ = rng.choice(list(links))
            words[k] = f'<a href="{html.escape(href)}">{words[k]}</a>'
        lines.append(f"<p>{' '.join(words)}</p>")
    if links:
        items = "".join(
            f'<li><a href="{html.escape(h)}">{html.escape(t)}</a></li>' for h, t in links
        )
        lines.append(f'<ul class="related">{items}</ul>')
    return "\n".join(lines)


class SiteBuilder:
    """Pages of one site; `add_page` renders and records one HTML page."""

    def __init__(
        self, host: str, name: str, lang: str, style: Style, pool: ParagraphPool, rng: random.Random
    ):
        self.host, self.name, self.lang, self.style = host, name, lang, style
        self.pool, self.rng = pool, rng
        self.mix: ParagraphPool | None = None  # a second language, paragraph by paragraph
        self.pages: dict[str, WorldPage] = {}
        self.paths: dict[str, str] = {"Home": "/", "About us": "/about", "Contact": "/about"}
        self.sections: list[str] = []
        self.headlines: list[str] = []

    def url(self, path: str) -> str:
        return f"http://{self.host}{path}"

    def frame(self, seed: str) -> Site:
        """The template's view of the site for one page (menus and headlines link to real pages)."""
        extra = [m for m in MENU_EN if m not in self.paths][:4]
        menu = ["Home", *self.sections, "About us", "Contact", *extra][:9]
        headlines = (self.headlines or self.sections or [self.name]) * 6
        return Site(
            random.Random(seed),
            self.name,
            self.host,
            menu,
            headlines[:10],
            self.lang,
            dict(self.paths),
            fallback="/",
        )

    def add_page(
        self,
        path: str,
        heading: str,
        blocks: Sequence[Block],
        links: Sequence[tuple[str, str]] = (),
        *,
        indexed: bool,
        dup_group: str = "",
        style: Style | None = None,
        main: str = "",
        after: str = "",
        listing: bool = False,
        heading_lang: str = "",
    ) -> WorldPage:
        """Render `blocks` as the main text of a page at `path` and record it. `main`: the
        main column's HTML as given instead; `after`: HTML after the main text, not part
        of it (a "read also" box); `listing`: a hub page, not a document."""
        style = style or self.style
        url = self.url(path)
        frame = self.frame(f"{url}-{style.template}")
        main = (main or main_html(heading, blocks, links, frame.rng)) + after
        text, ctype = render_page(
            frame,
            style.template,
            heading,
            main,
            lang=style.lang_attr,
            declaration=style.declaration,
            label=style.label,
            padding_kb=self.rng.randint(2, 8),
        )
        shares = letter_shares(blocks)
        page = WorldPage(
            url=url,
            site=self.host,
            headers=[("Content-Type", ctype)],
            encoding=style.codec,
            body=text.encode(style.codec, errors="xmlcharrefreplace"),
            lang=max(shares, key=lambda c: shares[c]) if shares else "",
            shares=shares,
            title=heading,
            main_text="\n".join([heading, *(t for _, t in blocks)]),
            dup_group=dup_group,
            indexed=indexed,
            links=re.findall(r'href="([^"#]+)"', text),
            listing=listing,
            line_langs=[heading_lang or self.lang, *(c for c, _ in blocks)],
        )
        self.pages[url] = page
        return page

    def add_raw(self, path: str, page: WorldPage) -> WorldPage:
        """Record a non-HTML answer (redirect, error, binary, robots.txt)."""
        page.url, page.site = self.url(path), self.host
        self.pages[page.url] = page
        return page

    def blocks(self, count: int) -> list[Block]:
        """`count` paragraphs of the site's language, or of both with `mix` (shuffled)."""
        if self.mix is None:
            return [(self.lang, p) for p in self.pool.deal(count)]
        mine = self.rng.randint(1, max(1, count - 1))
        merged = [(self.lang, p) for p in self.pool.deal(mine)]
        merged += [(self.mix.text.code, p) for p in self.mix.deal(max(1, count - mine))]
        self.rng.shuffle(merged)
        return merged

    def lay_out(
        self, sections: int, articles: tuple[int, int], prefix: str = "", index_share: float = 0.7
    ) -> list[str]:
        """Section pages and their articles under `prefix`; returns the article paths."""
        rng, done = self.rng, []
        for _ in range(sections):
            title = self.pool.words(1, 2)
            base = f"{prefix}/{slug(title) or f'section-{len(self.sections) + 1}'}/"
            if base in self.paths.values():
                base = f"{prefix}/section-{len(self.sections) + 1}/"
            self.sections.append(title)
            self.paths[title] = base
            paths = []
            for k in range(rng.randint(*articles)):
                headline = self.pool.words(3, 7)
                path = f"{base}{slug(headline, 24) or 'story'}-{k + 1}.html"
                self.headlines.append(headline)
                self.paths[headline] = path
                paths.append((path, headline))
            for i, (path, headline) in enumerate(paths):
                nxt = paths[(i + 1) % len(paths)]
                links = [(nxt[0], nxt[1]), (base, title)]
                self.add_article(path, headline, links, rng.random() < index_share, paths[:i])
            self.add_section(base, title, paths, rng.random() < 0.5)
            done += [p for p, _ in paths]
        return done

    def add_article(
        self,
        path: str,
        headline: str,
        links: list[tuple[str, str]],
        indexed: bool,
        before: list[tuple[str, str]],
    ) -> WorldPage:
        """An article (`before`: the (path, headline) of the section's earlier articles)."""
        blocks = self.blocks(self.rng.randint(3, 5))
        return self.add_page(path, headline, blocks, links, indexed=indexed)

    def add_section(
        self, base: str, title: str, articles: list[tuple[str, str]], indexed: bool
    ) -> WorldPage:
        """A section's page: a few paragraphs and a list of its articles."""
        blocks = self.blocks(self.rng.randint(2, 3))
        return self.add_page(base, title, blocks, articles, indexed=indexed)

    def add_home(
        self, heading: str, extra_links: Sequence[tuple[str, str]] = (), indexed: bool = True
    ) -> WorldPage:
        links = [(self.paths[s], s) for s in self.sections]
        links += [(self.paths[h], h) for h in self.headlines[:3]] + list(extra_links)
        return self.add_page("/", heading, self.blocks(3), links, indexed=indexed)

    def add_about(self) -> WorldPage:
        """A short page (under 200 characters of text): language by the pages linking to it."""
        words = self.pool.words(6, 12)
        return self.add_page(
            "/about", self.name, [(self.lang, words + ".")], [("/", "Home")], indexed=False
        )
