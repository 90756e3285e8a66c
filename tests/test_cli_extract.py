"""`collie extract` on files and on URLs served by the local web."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from collie.mininet.server import MiniWebServer, Response, World

from .clihelp import run_collie

MAIN = ("Ji duto onyuol ka gin thuolo kendo gin gi luor e bedo ng'ato ka ng'ato. Bende gin "
        "gi rieko kod paro maber, omiyo onego gitimne ng'ato ka ng'ato e yor owete.")  # fmt: skip
HTML = (
    "<!DOCTYPE html><html lang='luo'><head><meta charset='windows-1252'><title>Chike</title>"
    "</head><body><nav><a href='/'>Home</a> | <a href='/news'>News</a></nav>"
    f"<article><h1>Chike – mokwongo</h1><p>{MAIN}</p>"
    "<p><a href='/next'>Mar bang'e</a></p></article>"
    "<p>Share on Facebook | Share on Twitter</p>"
    "<footer>© 2024 Luo Media. All rights reserved.</footer></body></html>"
)


@pytest.fixture
def page(tmp_path: Path) -> Path:
    path = tmp_path / "page.html"
    path.write_bytes(HTML.encode("windows-1252"))
    return path


def test_text_of_a_file(capsys, page: Path) -> None:
    result = run_collie(capsys, "extract", str(page))
    assert result.code == 0, result.err
    assert MAIN in result.out and "Chike – mokwongo" in result.out
    assert "rights reserved" not in result.out and "Home" not in result.out


def test_json_of_a_file_with_base_url(capsys, page: Path) -> None:
    result = run_collie(
        capsys, "extract", str(page), "--base-url", "http://luo.example.ke/a/b", "--format", "json"
    )
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["outcome"] == "kept" and data["title"] == "Chike"
    assert data["lang"] == "luo" and data["encoding"] == "windows-1252"
    assert data["encoding_method"] == "meta"
    assert {"url": "http://luo.example.ke/next", "anchor": "Mar bang'e"} in data["links"]
    assert MAIN in data["paragraphs"]
    rules = {d["rule"] for d in data["dropped"]}
    assert rules and all(isinstance(r, str) and r for r in rules)


def test_markdown_and_no_boilerplate_removal(capsys, page: Path) -> None:
    markdown = run_collie(capsys, "extract", str(page), "--format", "markdown")
    assert markdown.code == 0 and "# Chike – mokwongo" in markdown.out
    kept_all = run_collie(capsys, "extract", str(page), "--boilerplate", "none")
    assert kept_all.code == 0 and "Share on Facebook" in kept_all.out
    with_rules = run_collie(capsys, "extract", str(page))
    assert "Share on Facebook" not in with_rules.out


def test_url_through_the_proxy(capsys, web: MiniWebServer, world: World) -> None:
    world.add("http://luo.example.ke/chike", Response.html(HTML.encode("windows-1252"), None))
    world.add("http://luo.example.ke/secret", Response.html(HTML.encode("windows-1252"), None))
    world.add("http://luo.example.ke/robots.txt", Response.text("User-agent: *\nDisallow: /secret"))
    result = run_collie(capsys, "--set", "fetch.delay=0", "extract", "http://luo.example.ke/chike")
    assert result.code == 0, result.err
    assert MAIN in result.out
    blocked = run_collie(capsys, "extract", "http://luo.example.ke/secret")
    assert blocked.code == 1 and "robots" in blocked.err
    as_json = run_collie(capsys, "extract", "http://luo.example.ke/secret", "--format", "json")
    assert as_json.code == 0 and json.loads(as_json.out)["reason"] == "robots"
    assert "/secret" not in [e.path for e in web.requests_for("luo.example.ke")]


def test_bad_input(capsys, tmp_path: Path) -> None:
    missing = run_collie(capsys, "extract", str(tmp_path / "nope.html"))
    assert missing.code == 1 and "Cannot read" in missing.err
    pdf = tmp_path / "doc.pdf"
    pdf.write_bytes(b"%PDF-1.4\n" + bytes(range(256)) * 20)
    dropped = run_collie(capsys, "extract", str(pdf))
    assert dropped.code == 1 and "would drop" in dropped.err
    menu = tmp_path / "menu.html"
    menu.write_text("<html><body><nav><a href='/'>Home</a></nav><p><a href='/a'>About</a></p>")
    empty = run_collie(capsys, "extract", str(menu))
    assert empty.code == 1 and "empty-text (every line of it was boilerplate: 1 link-only)" in (
        empty.err
    )


def _listing_html() -> str:
    words = MAIN.split()
    teasers = "".join(
        f"<article><h2><a href='/2024/story-{i}'>Wach maduong' mar piny {i}</a></h2>"
        f"<p>{' '.join(words[i : i + 22])} …</p><a href='/2024/story-{i}'>Read more</a></article>"
        for i in range(6)
    )
    return f"<html><head><title>Dala</title></head><body><main>{teasers}</main></body></html>"


def test_a_listing_page_is_printed_and_said_to_stay_out_of_the_corpus(
    capsys, tmp_path: Path
) -> None:
    path = tmp_path / "home.html"
    path.write_text(_listing_html(), encoding="utf-8")
    base = ("--base-url", "http://luo.example.ke/")
    result = run_collie(capsys, "extract", str(path), *base)
    assert result.code == 0, result.err
    assert "listing page" in result.err and "out of the corpus" in result.err
    as_json = run_collie(capsys, "extract", str(path), *base, "--format", "json")
    assert json.loads(as_json.out)["listing"] is True
    article = tmp_path / "article.html"
    article.write_bytes(HTML.encode("windows-1252"))
    not_listing = run_collie(capsys, "extract", str(article), "--format", "json")
    assert json.loads(not_listing.out)["listing"] is False
    kept = run_collie(capsys, "--set", "extract.listings=false", "extract", str(path), *base)
    assert kept.code == 0 and "listing page" not in kept.err


def test_code_blocks_apart_or_out(capsys, tmp_path: Path) -> None:
    code = "def main():\n    print('hello')\n    return 0"
    html = HTML.replace("</article>", f"<pre><code>{code}</code></pre></article>")
    path = tmp_path / "docs.html"
    path.write_bytes(html.encode("windows-1252"))
    apart = run_collie(capsys, "extract", str(path), "--format", "json")
    paragraphs = json.loads(apart.out)["paragraphs"]
    assert MAIN in paragraphs and any("print('hello')" in p for p in paragraphs)
    assert not any("print" in p and "Ji duto" in p for p in paragraphs)  # apart from the text
    out = run_collie(capsys, "--set", "extract.code=out", "extract", str(path))
    assert out.code == 0 and MAIN in out.out and "print(" not in out.out
