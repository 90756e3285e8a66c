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
