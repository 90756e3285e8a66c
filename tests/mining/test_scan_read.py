"""`collie scan` reads an archive file with FastWARC where it is installed and warcio
otherwise (collie.mining.scanread): the same records either way, at the same offsets,
and the same scan of a whole file and of a cut one (issue 54)."""

from __future__ import annotations

import gzip
import random
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
from warcio.archiveiterator import ArchiveIterator

from collie.decide.classify import PageRules
from collie.langid.learn import base_model
from collie.mininet.ccarchive import Capture, write_captures
from collie.mining.scanfile import FileResult, Prefilter, ScanTask, scan_file
from collie.mining.scanread import fast_reader, from_fastwarc, from_warcio, read_fast

ZULU = (
    "Umongameli wezwe uthe uhulumeni uzoqhubeka nokusiza abantu abahlala ezindaweni "
    "zasemakhaya ngoba bayadinga usizo olukhulu ngalesi sikhathi esinzima. "
)


def captures() -> list[Capture]:
    """Pages as a crawl meets them: HTML in UTF-8 and Latin-1, gzip-encoded, with a
    header twice, a 404, an image, and pages in the target."""
    html = "text/html; charset=utf-8"
    pages = []
    for number in range(12):
        text = ZULU * 3 if number % 4 == 0 else "The council met on Tuesday. " * 20
        body = f"<html><body><h1>Page {number}</h1><p>{text}</p></body></html>".encode()
        headers = [("Content-Type", html), ("Set-Cookie", "a=1"), ("Set-Cookie", "b=2")]
        if number == 5:
            body, headers = gzip.compress(body, mtime=0), [*headers, ("Content-Encoding", "gzip")]
        pages.append(Capture(f"https://site{number}.example/p/{number}", 200, headers, body, "x",
                             number % 4 == 0))  # fmt: skip
    latin = "<html><body><p>Caf\xe9 cr\xe8me</p></body></html>".encode("latin-1")
    pages.append(Capture("https://latin.example/", 200, [("Content-Type", "text/html")], latin,
                         "fra", False))  # fmt: skip
    pages.append(Capture("https://gone.example/", 404, [("Content-Type", html)], b"<p>no</p>",
                         "eng", False))  # fmt: skip
    pages.append(Capture("https://img.example/a.png", 200, [("Content-Type", "image/png")],
                         b"\x89PNG\r\n", "", False))  # fmt: skip
    return pages


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("cc-read")
    warc, wet = write_captures(out, captures(), 1, random.Random(3))
    return {"warc": out / warc[0], "wet": out / wet[0]}


needs_fastwarc = pytest.mark.skipif(fast_reader() is None, reason="FastWARC 2 not installed")


def warcio_records(path: Path) -> list[tuple[int, dict[str, Any], bytes]]:
    found = []
    with open(path, "rb") as stream:
        records = ArchiveIterator(stream)
        for record in records:
            raw = from_warcio(record)
            payload = raw.read(1 << 30)
            found.append((records.offset, _fields(raw), payload))
    return found


def fastwarc_records(path: Path) -> list[tuple[int, dict[str, Any], bytes]]:
    found = []
    with open(path, "rb") as stream:
        for offset, record in read_fast(stream, 0):
            raw = from_fastwarc(record)
            found.append((offset, _fields(raw), raw.read(1 << 30)))
    return found


def _fields(raw: Any) -> dict[str, Any]:
    fields = asdict(raw)
    fields.pop("read")
    return fields


@needs_fastwarc
@pytest.mark.parametrize("kind", ["warc", "wet"])
def test_both_readers_give_the_same_records(files: dict[str, Path], kind: str) -> None:
    slow, fast = warcio_records(files[kind]), fastwarc_records(files[kind])
    assert len(slow) == len(fast) > 10
    for (offset, fields, payload), (f_offset, f_fields, f_payload) in zip(slow, fast, strict=True):
        assert (offset, fields) == (f_offset, f_fields)
        assert payload == f_payload, fields["url"]
    if kind == "warc":
        pages = [fields for _, fields, _ in slow if fields["status"] == "200"]
        assert all(("Set-Cookie", "b=2") in page["headers"] for page in pages[:12])
        assert {page["reason"] for page in pages} == {"OK"}


def scan_with(path: Path, reader: str) -> FileResult:
    needles = Prefilter(frozenset({"umongameli", "uhulumeni", "abantu"}), 2)
    task = ScanTask(str(path), PageRules(target="zul"), needles, 1, reader=reader)
    return scan_file(task, base_model())


def _same(result: FileResult) -> tuple[Any, ...]:
    found = [(e.queued.url, e.outcome.status, hit) for e, hit in result.found]
    counts = (result.records, result.pages, result.candidates, result.end, result.state)
    return counts, result.error, found


@needs_fastwarc
@pytest.mark.parametrize("kind", ["warc", "wet"])
def test_a_scan_finds_the_same_with_either_reader(files: dict[str, Path], kind: str) -> None:
    fast, slow = scan_with(files[kind], "auto"), scan_with(files[kind], "warcio")
    assert _same(fast) == _same(slow)
    assert fast.state == "whole" and fast.candidates == 3 and fast.end == files[kind].stat().st_size


@needs_fastwarc
def test_a_cut_file_is_partial_at_the_same_record_with_either_reader(
    files: dict[str, Path], tmp_path: Path
) -> None:
    data = files["warc"].read_bytes()
    for cut in (len(data) - 40, len(data) // 2, 700):
        path = tmp_path / f"cut-{cut}.warc.gz"
        path.write_bytes(data[:cut])
        fast, slow = scan_with(path, "auto"), scan_with(path, "warcio")
        assert _same(fast) == _same(slow), cut
        assert fast.state == "partial" and fast.end < cut
