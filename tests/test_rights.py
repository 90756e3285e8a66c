"""The rights a page states (issue 57): its Creative Commons licence and its reservation
of text and data mining, read by collie.page.rights, planted in the closed worlds by
collie.mininet.rights, kept with the page (migration page-rights), shown in status and
report, written by the JSON-lines export and chosen by `export --rights open` and
`--exclude tdm-reserved`."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from pathlib import Path
from urllib.parse import urlsplit

import pytest

import collie
from collie.errors import UsageProblem
from collie.mininet.messages import Response
from collie.mininet.rights import SIGNALS, plant_rights
from collie.mininet.server import MiniWebServer, World
from collie.mininet.sites import WorldPage
from collie.models import FetchResult
from collie.page.process import process
from collie.page.rights import detect_rights, is_open, licence_of_name, licence_of_url

from .clihelp import run_collie
from .zuluworld import zulu_workspace

CC = "https://creativecommons.org"


@pytest.mark.parametrize(
    ("html", "headers", "licence", "source", "tdm"),
    [
        (f'<a rel="license" href="{CC}/licenses/by-sa/4.0/deed.de">CC</a>', {}, "CC-BY-SA-4.0",
         "rel-license", None),
        (f"<link rel='license' href='{CC}/licenses/by-nc-nd/3.0/de/'>", {}, "CC-BY-NC-ND-3.0-DE",
         "rel-license", None),
        ('<meta name="DC.rights" content="CC BY-SA 4.0">', {}, "CC-BY-SA-4.0", "meta", None),
        (f'<meta property="dcterms:license" content="{CC}/licenses/by/4.0/">'
         f'<meta name="dcterms.license" content="{CC}/licenses/by/4.0/">', {}, "CC-BY-4.0",
         "meta", None),
        ('<meta name="dc.rights" content="CC0">', {}, "CC0-1.0", "meta", None),
        (f'<a rel="license" href="{CC}/publicdomain/mark/1.0/">PD</a>', {}, "CC-PDM-1.0",
         "rel-license", None),
        # a plain link is often an image's credit, not the page's licence
        (f'<a href="{CC}/licenses/by-sa/2.0/">CC BY-SA</a>', {}, None, None, None),
        (f'<a href="{CC}/licenses/by/4.0/">x</a><link rel="license" href="{CC}/licenses/by-sa/'
         '3.0/">', {}, "CC-BY-SA-3.0", "rel-license", None),
        ("<p>", {"TDM-Reservation": "1"}, None, None, "tdmrep-header"),
        ('<meta name="tdm-reservation" content="1">', {}, None, None, "tdmrep-meta"),
        ("<meta name='robots' content='noindex, noai'>", {}, None, None, "robots-noai"),
        ('<meta name="CCBot" content="noimageai">', {}, None, None, "robots-noai"),
        ("<p>", {"X-Robots-Tag": "noai"}, None, None, "x-robots-noai"),
        # what states neither
        ("<p>creativecommons.org/licenses/by/4.0 is a licence</p>", {}, None, None, None),
        ('<meta name="description" content="CC BY 4.0 explained">', {}, None, None, None),
        ('<meta name="tdm-reservation" content="0">', {"tdm-reservation": "0"}, None, None,
         None),
        ('<meta name="robots" content="index, follow">', {}, None, None, None),
        ('<a href="https://example.org/licenses/by/4.0/">x</a>', {}, None, None, None),
    ],
)  # fmt: skip
def test_detect_rights(
    html: str, headers: dict[str, str], licence: str | None, source: str | None, tdm: str | None
) -> None:
    rights = detect_rights(f"<html><head>{html}</head><body></body></html>", headers)
    assert (rights.licence, rights.licence_source, rights.tdm) == (licence, source, tdm)


def test_open_licences_and_names() -> None:
    assert [is_open(x) for x in ("CC-BY-4.0", "CC-BY-SA-3.0-DE", "CC0-1.0", "CC-PDM-1.0")] == [
        True
    ] * 4
    assert [is_open(x) for x in ("CC-BY-NC-4.0", "CC-BY-ND-4.0", "CC-BY-NC-SA-4.0", None)] == [
        False
    ] * 4
    assert licence_of_name("Licensed CC-BY-NC-SA 2.0") == "CC-BY-NC-SA-2.0"
    assert licence_of_url(f"{CC}/licenses/by/3.0/legalcode") == "CC-BY-3.0"


def test_every_planted_signal_is_found_and_no_decoy_invents_one() -> None:
    """The signals the worlds get, each on a page, read back by the page processing a
    fetched answer goes through."""
    pages = {}
    for number in range(400):
        url = f"http://site{number}.example.ke/a.html"
        body = (
            "<!DOCTYPE html><html><head><title>T</title></head><body><main><h1>Habari</h1>"
            "<p>Habari za leo ni nzuri sana kwa watu wote wa mji huu.</p></main></body></html>"
        )
        pages[url] = WorldPage(url, urlsplit(url).netloc, body=body.encode(),
                               headers=[("Content-Type", "text/html; charset=utf-8")])  # fmt: skip
    truth = plant_rights(pages)
    assert {truth[url] for url in truth} == {s[2] for s in SIGNALS}  # each kind planted
    for url, page in pages.items():
        headers = {k.lower(): v for k, v in page.headers}
        got = process(url, FetchResult(url, url, 200, headers, page.body)).rights
        assert (got.licence, got.tdm) == truth.get(url, (None, None)), url


def _plant(world: World, url: str, head: str, headers: tuple[tuple[str, str], ...] = ()) -> None:
    parts = urlsplit(url)
    served = world.lookup(parts.netloc, parts.path)
    assert isinstance(served, Response)
    body = served.body.replace(b"</head>", head.encode() + b"</head>", 1)
    world.add(url, dataclasses.replace(served, body=body, headers=[*served.headers, *headers]))


@pytest.mark.slow
def test_rights_are_kept_shown_and_exported(
    tmp_path: Path, capsys, web: MiniWebServer, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, made = zulu_workspace(tmp_path, capsys, web, world)
    served = [
        url
        for url in sorted(made.target_urls - made.crawl_only)
        if isinstance(world.lookup(urlsplit(url).netloc, urlsplit(url).path), Response)
    ]
    bysa, nc, reserved, noai = served[:4]
    _plant(world, bysa, f'<link rel="license" href="{CC}/licenses/by-sa/4.0/">')
    _plant(world, nc, '<meta name="dc.rights" content="CC BY-NC 4.0">')
    _plant(world, reserved, f'<link rel="license" href="{CC}/licenses/by/4.0/">',
           (("tdm-reservation", "1"),))  # fmt: skip
    _plant(world, noai, '<meta name="robots" content="noai">')
    monkeypatch.chdir(root)
    assert run_collie(capsys, "run", "--loops", "1").code == 0

    assert run_collie(capsys, "export", "all.jsonl", "--format", "jsonl").code == 0
    rows = [json.loads(line) for line in Path("all.jsonl").read_text().splitlines()]
    stated = {r["url"]: (r["licence"], r["tdm_reserved"]) for r in rows if r["licence"] or
              r["tdm_reserved"]}  # fmt: skip
    assert stated == {
        bysa: ("CC-BY-SA-4.0", None),
        nc: ("CC-BY-NC-4.0", None),
        reserved: ("CC-BY-4.0", "tdmrep-header"),
        noai: (None, "robots-noai"),
    }
    opened = run_collie(capsys, "export", "open.jsonl", "--format", "jsonl", "--rights", "open")
    assert opened.code == 0
    assert f"{len(rows) - 2} documents left out (no open licence: --rights open)" in opened.err
    assert {json.loads(x)["url"] for x in Path("open.jsonl").read_text().splitlines()} == {
        bysa,
        reserved,
    }
    both = run_collie(capsys, "export", "both.txt", "--rights", "open", "--exclude",
                      "tdm-reserved")  # fmt: skip
    assert both.code == 0 and "1 documents, " in both.err
    assert f"{len(rows) - 1} documents left out (no open licence: --rights open; text" in both.err
    free = run_collie(capsys, "export", "free.jsonl", "--format", "jsonl", "--exclude",
                      "tdm-reserved,religious")  # fmt: skip
    assert free.code == 0
    left = {json.loads(x)["url"] for x in Path("free.jsonl").read_text().splitlines()}
    assert left == {r["url"] for r in rows} - {reserved, noai}
    bad = run_collie(capsys, "export", "x.txt", "--exclude", "tdm")
    assert bad.code == 2 and "tdm-reserved" in bad.err

    status = json.loads(run_collie(capsys, "status", "--json").out)["rights"]
    assert status["documents"] == len(rows)
    assert (status["licensed"], status["open"], status["tdm_reserved"]) == (3, 2, 2)
    assert status["licences"] == {"CC-BY-4.0": 1, "CC-BY-NC-4.0": 1, "CC-BY-SA-4.0": 1}
    assert status["tdm_sources"] == {"robots-noai": 1, "tdmrep-header": 1}
    text = run_collie(capsys, "status").out
    assert f"rights      3 of {len(rows)} documents state a licence" in text
    report = run_collie(capsys, "report").out
    assert "2 reserve text and data mining" in report


@pytest.mark.slow
def test_tdmrep_file_reprocess_and_the_api(
    tmp_path: Path, capsys, web: MiniWebServer, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A site's /.well-known/tdmrep.json reserves its articles but one whose header says
    0; another site's page reserves by its header. The run keeps both reservations, a
    reprocess of pages whose rights and provenance were never kept (a workspace from
    before them) finds them again from the WARC records, and the Python API's documents
    and export choose by them."""
    root, _ = zulu_workspace(tmp_path, capsys, web, world)
    news, blog = "http://www.izindaba.co.za", "http://zulu-blog.example.za"
    rules = [
        {"location": "/indaba/*", "tdm-reservation": 1},
        {"location": "/", "tdm-reservation": 0},
    ]
    world.add(f"{news}/.well-known/tdmrep.json",
              Response.text(json.dumps(rules), "application/json"))  # fmt: skip
    _plant(world, f"{news}/indaba/2", "", (("tdm-reservation", "0"),))  # its own choice
    _plant(world, f"{blog}/", "", (("tdm-reservation", "1"),))
    monkeypatch.chdir(root)
    assert run_collie(capsys, "run", "--loops", "1").code == 0
    assert run_collie(capsys, "export", "a.jsonl", "--format", "jsonl").code == 0
    rows = {r["url"]: r for r in map(json.loads, Path("a.jsonl").read_text().splitlines())}
    reserved = {url: r["tdm_reserved"] for url, r in rows.items() if r["tdm_reserved"]}
    articles = {u for u in rows if u.startswith(f"{news}/indaba/") and u != f"{news}/indaba/2"}
    assert len(articles) >= 2 and f"{news}/indaba/2" in rows and f"{blog}/" in rows
    assert reserved == {**dict.fromkeys(articles, "tdmrep-file"), f"{blog}/": "tdmrep-header"}
    assert all(r["langid"]["chars"] > 0 for r in rows.values())
    status = json.loads(run_collie(capsys, "status", "--json").out)["rights"]
    assert status["tdm_sources"] == {"tdmrep-file": len(articles), "tdmrep-header": 1}

    conn = sqlite3.connect(root / "collie.db")
    with conn:  # as a workspace from before rights and provenance were kept
        conn.execute("UPDATE pages SET licence = NULL, tdm = NULL, lid_model = NULL, "
                     "lid_sha256 = NULL, lid_threshold = NULL, lid_margin = NULL, "
                     "lid_chars = NULL")  # fmt: skip
    conn.close()
    assert all(r["langid"] is None and r["tdm_reserved"] is None
               for r in collie.Workspace(root).documents())  # fmt: skip
    done = run_collie(capsys, "reprocess")
    assert done.code == 0, done.err
    again = {r["url"]: r for r in collie.Workspace(root).documents()}
    assert {u: (r["tdm_reserved"], r["langid"]) for u, r in again.items()} == {
        u: (r["tdm_reserved"], r["langid"]) for u, r in rows.items()
    }

    ws = collie.Workspace(root)
    free = {r["url"] for r in ws.documents(exclude=["tdm-reserved"])}
    assert free == set(rows) - set(reserved)
    assert list(ws.documents(rights="open")) == []  # no page states a licence
    count = ws.export(tmp_path / "free.txt", exclude=("tdm-reserved",))
    assert (count.documents, count.rights_left_out) == (len(free), len(reserved))
    with pytest.raises(UsageProblem, match="tdm-reserved"):
        list(ws.documents(exclude=["tdm"]))
