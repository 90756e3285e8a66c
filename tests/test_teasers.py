"""Listing pages and teasers as pure functions (collie.decide.listing, .teasers)."""

from __future__ import annotations

import itertools

from collie.decide.listing import is_listing, listing_shaped
from collie.decide.teasers import find_teasers

SITE = "http://habari.example.ke"
TEXT = (
    "Ji duto onyuol ka gin thuolo kendo gin gi luor machalre gi ratiro machalre "
    "Gin gi rieko kod chuny mar ng'eyo maber kendo onego gitim ne wadgi e yo mar owete"
)
WORDS = TEXT.split()


def sentence(start: int, n: int) -> str:
    return " ".join(WORDS[(start + i) % len(WORDS)] for i in range(n))


def articles(n: int) -> list[tuple[str, str]]:
    return [(f"{SITE}/2024/story-{i}", f"Wach maduong' mar piny {i}") for i in range(n)]


def test_a_page_of_teasers_is_a_listing_and_an_article_is_not() -> None:
    links = [(f"{SITE}/", "Dala"), (f"{SITE}/about", "Wan")]
    for url, title in articles(6):
        links += [(url, title), (url, "Read more")]
    teasers = [sentence(i, 25) + " …" for i in range(6)]
    assert is_listing(f"{SITE}/", teasers, links)
    assert is_listing(f"{SITE}/category/siasa/", teasers[:3], links)  # the URL helps
    assert not is_listing(f"{SITE}/2024/story-9", teasers[:3], links)
    body = [sentence(i, 60) + "." for i in range(8)]  # an article with a sidebar of headlines
    assert not is_listing(f"{SITE}/2024/story-9", body, [(u, t) for u, t in articles(12)])
    stanzas = [sentence(i, 12) for i in range(8)]  # a poem: short, unpunctuated, not cut
    assert not is_listing(f"{SITE}/wer/mar-hera", stanzas, articles(6))
    assert listing_shaped(f"{SITE}/tag/siasa/") and listing_shaped(f"{SITE}/?s=piny")
    assert not listing_shaped(f"{SITE}/2024/05/story-1")


def test_a_page_of_cards_is_a_listing_without_a_cut_and_an_article_never() -> None:
    """Most listings of the 2025 web show no ellipsis and no "read more": a page of cards
    (Page.cards) is the evidence of the cut, with its headline links and a main text of
    teaser paragraphs (issue 56). An article is never one, cards or not; nor is a page
    of cards whose text is mostly prose (a product page with its related products)."""
    links = [(f"{SITE}/", "Dala"), *articles(6)]
    teasers = [title for _, title in articles(6)] + [sentence(i, 12) for i in range(6)]
    assert not is_listing(f"{SITE}/weche", teasers, links)  # no cut: a poem, maybe
    assert is_listing(f"{SITE}/weche", teasers, links, cards=True)
    body = [sentence(i, 60) + "." for i in range(8)]
    assert not is_listing(f"{SITE}/2024/story-9", body, articles(12), cards=True)
    mixed = [*body[:3], *teasers]  # 180 words of prose, 78 of teasers
    assert not is_listing(f"{SITE}/duka/kikapu", mixed, links, cards=True)
    assert not is_listing(f"{SITE}/weche", teasers, articles(6)[:3], cards=True)  # 3 links


def test_teasers_whatever_the_order_the_documents_come_in() -> None:
    opening = sentence(0, 40) + "."
    article = (1, ["Wach maduong'", opening, sentence(5, 30) + "."])
    listing = (2, ["Weche manyien", sentence(0, 12) + " …", sentence(0, 20) + " Read more"])
    related = (3, [sentence(3, 50) + ".", sentence(0, 9)])  # an unmarked prefix of 9 words
    heading = (4, [sentence(0, 3), sentence(7, 40) + "."])  # a heading: too short to be a copy
    inside = (5, ["… " + sentence(4, 10) + " …", sentence(9, 40) + "."])
    expected = {2: {1, 2}, 3: {1}, 5: {0}}
    for docs in itertools.permutations([article, listing, related, heading, inside]):
        assert find_teasers(docs) == expected
    assert find_teasers([listing, (6, listing[1])]) == {}  # no full text: nothing to cut from
    assert find_teasers([article, (7, list(article[1]))]) == {}  # copies are not teasers


def test_a_teaser_that_runs_over_an_articles_first_paragraphs() -> None:
    """News text has a sentence a paragraph: a teaser of its first 30 words holds the
    whole first paragraph and the start of the second."""
    article = (1, [sentence(0, 12) + ".", sentence(12, 20) + ".", sentence(40, 15) + "."])
    teaser = sentence(0, 12) + ". " + " ".join(sentence(12, 20).split()[:10]) + " …"
    listing = (2, [teaser, sentence(50, 30) + " …"])
    assert find_teasers([article, listing]) == {2: {0}}
    unmarked = (3, [teaser.removesuffix(" …")])  # not marked as cut: no run over paragraphs
    assert 3 not in find_teasers([article, unmarked])


def test_a_section_of_two_teasers_is_a_listing() -> None:
    links = [(u, t) for u, t in articles(2)] + [(u, "Read more") for u, _ in articles(2)]
    teasers = [sentence(i, 20) + " … Read more" for i in range(2)]
    assert is_listing(f"{SITE}/section-1/", teasers, links)
    assert not is_listing(f"{SITE}/2024/story-1", teasers[:1], links)  # one alone
    whole = [teasers[0], sentence(3, 40) + "."]  # an article ending in a cut quote: no
    assert not is_listing(f"{SITE}/2024/story-1", whole, links)
