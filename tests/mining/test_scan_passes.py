"""A scan's pages judged again as a loop's are at its end (collie.mining.passes): a short
page that came before the pages linking to it is decided by their vote, a page of
teasers of the site's articles is dropped as `teaser`; without the passes the scan's
corpus keeps what a run would set aside (issue 43)."""

from __future__ import annotations

import html
import io
from collections.abc import Sequence
from pathlib import Path

from collie.langid.model import LangModel
from collie.mining.config import RunConfig
from collie.mining.executor import LocalExecutor
from collie.mining.scan import ScanReport, scan
from collie.store import CorpusStore

from .conftest import Lines, open_copy
from .pages import paragraphs

SITE = "http://izindaba.example.za"


def _page(title: str, texts: Sequence[str], links: Sequence[str] = ()) -> bytes:
    body = "".join(f"<p>{html.escape(t)}</p>" for t in texts)
    anchors = "".join(f"<li><a href='{u}'>{html.escape(u)}</a></li>" for u in links)
    return (
        f"<!DOCTYPE html><html><head><title>{title}</title></head><body><main>"
        f"<h1>{title}</h1>{body}<ul>{anchors}</ul></main></body></html>"
    ).encode()


def write_archive(path: Path, wet: bool = False) -> None:
    """One WARC file: a short page (first, before the articles linking to it), three
    articles of three paragraphs each, and a page of teasers of the articles (the first
    words of each one's opening paragraph, cut off); with `wet`, their text as a WET
    file's conversion records."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    from collie.mininet.ccarchive import plain_text

    zulu = paragraphs("zul")
    articles = [zulu[3 * i : 3 * i + 3] for i in range(3)]
    short = f"{SITE}/mayelana"
    sentence = next(p for p in zulu[9:] if len(p.split()) >= 8)  # a sentence, not a title
    pages = [(short, _page("Mayelana", [sentence[:120]]))]
    pages += [
        (f"{SITE}/a{i}", _page(f"Udaba {i}", texts, [short])) for i, texts in enumerate(articles)
    ]
    teasers = [" ".join(texts[0].split()[:14]) + " …" for texts in articles]
    pages.append((f"{SITE}/izihloko", _page("Izihloko", teasers)))
    with path.open("wb") as out:
        writer = WARCWriter(out, gzip=True)
        for url, body in pages:
            if wet:
                text = plain_text(body).encode()
                record = writer.create_warc_record(url, "conversion", payload=io.BytesIO(text))
            else:
                headers = [("Content-Type", "text/html; charset=utf-8")]
                http = StatusAndHeaders("200 OK", headers, protocol="HTTP/1.1")
                record = writer.create_warc_record(
                    url, "response", payload=io.BytesIO(body), http_headers=http
                )
            writer.write_record(record)


def scanned(
    template: Path, tmp_path: Path, model: LangModel, passes: bool
) -> tuple[ScanReport, dict[str, tuple[str, str | None]], set[str], list[str]]:
    """(the report, each page's status and reason, the corpus's URLs, the lines printed)."""
    archive = tmp_path / "cc.warc.gz"
    write_archive(archive)
    events = Lines()
    with open_copy(template, tmp_path) as ws, LocalExecutor() as local:
        report = scan(ws, model, local, [str(archive)], RunConfig.of(ws), events, False, passes)
        rows = ws.conn.execute(
            "SELECT url, status, reason FROM pages WHERE url LIKE ?", (f"{SITE}/%",)
        )
        pages = {url: (status, reason) for url, status, reason in rows}
        corpus = {row.url for row in CorpusStore(ws.db).export_rows()}
    return report, pages, corpus, events.lines


def test_a_scan_keeps_what_a_loop_sets_aside_without_the_passes(
    template_ws: Path, tmp_path: Path, model: LangModel
) -> None:
    report, pages, corpus, _ = scanned(template_ws, tmp_path, model, passes=False)
    assert report.passes is None
    assert pages[f"{SITE}/mayelana"] == ("dropped", "too-short")
    assert f"{SITE}/izihloko" in corpus and len(corpus) == 4


def test_a_scan_decides_its_pages_again_as_a_loop_does_at_its_end(
    template_ws: Path, tmp_path: Path, model: LangModel
) -> None:
    """The short page is decided by the articles' vote; the page of teasers is left with
    nothing of its own and dropped as `teaser`, as the loop's teaser pass drops it; a
    line for each pass."""
    report, pages, corpus, lines = scanned(template_ws, tmp_path, model, passes=True)
    assert report.passes is not None
    assert (report.passes.voted, report.passes.teasers) == (1, 1)
    assert pages[f"{SITE}/mayelana"] == ("kept", None), pages[f"{SITE}/mayelana"]
    assert pages[f"{SITE}/izihloko"] == ("dropped", "teaser")
    assert corpus == {f"{SITE}/mayelana", *(f"{SITE}/a{i}" for i in range(3))}
    assert report.kept == 4
    assert "loop 1: short pages decided by the vote after the scan: 1" in lines
    assert "loop 1: the teaser pass after the scan: 1 pages left with nothing of their own" in lines


def test_a_scanned_pages_body_is_read_back_from_the_archive_file(
    template_ws: Path, tmp_path: Path, model: LangModel
) -> None:
    """A page found in a WET file is kept nowhere in the workspace: the passes (and
    reprocess) read its text back from its record in the archive file, and examine it
    to the outcome recorded; a file that moved leaves it missing, not wrong."""
    from collie.mining.config import RunConfig
    from collie.mining.examine import MISSING, examine_cached
    from collie.store import Store

    archive = tmp_path / "cc.warc.wet.gz"
    write_archive(archive, wet=True)
    with open_copy(template_ws, tmp_path) as ws, LocalExecutor() as local:
        scan(ws, model, local, [str(archive)], RunConfig.of(ws), prefilter=False)
        rules = RunConfig.of(ws, model).rules
        pages = Store(ws.db).pages.kept_pages()
        assert len(pages) == 5 and {p.archive_kind for p in pages} == {"conversion"}
        for page in pages:
            again = examine_cached(page, ws.root, model, rules).outcome
            if page.status == "kept":
                assert again.status == "kept", page.url
            assert again.reason != MISSING
        archive.rename(tmp_path / "moved.warc.wet.gz")
        assert examine_cached(pages[0], ws.root, model, rules).outcome.reason == MISSING
