"""`collie scan` on the files Common Crawl users meet (issue 45, part 3 and the remote half
of part 4): a partial download keeps the records read and is read on from there once
complete, to the corpus one scan of the whole file makes; a file that is no WARC file,
or a missing file of a paths list, is named and fails the run while the other files are
scanned; a remote file whose download breaks off is asked again from its last whole
record."""

from __future__ import annotations

import gzip
import shutil
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from ..clihelp import Run, rows, run_collie
from .test_scan_passes import SITE, write_archive


def offsets(path: Path) -> list[int]:
    """Where each record of a WARC file begins."""
    from warcio.archiveiterator import ArchiveIterator

    with path.open("rb") as stream:
        records = ArchiveIterator(stream)
        return [records.get_record_offset() for _ in records]


def provenance_is_exact(root: Path, path: Path) -> bool:
    """Whether each page found in `path` points at the start of its own record there."""
    from warcio.archiveiterator import ArchiveIterator

    found = rows(root, "SELECT offset, record_id FROM archive_pages")
    with path.open("rb") as stream:
        for offset, record_id in found:
            stream.seek(int(str(offset)))
            record = next(iter(ArchiveIterator(stream)))
            if record.rec_headers.get_header("WARC-Record-ID") != record_id:
                return False
    return len(found) > 0


def workspace(template_ws: Path, tmp_path: Path, name: str = "ws") -> Path:
    root = tmp_path / name
    shutil.copytree(template_ws, root)
    return root


def scan(capsys: pytest.CaptureFixture[str], root: Path, *files: Path | str) -> Run:
    return run_collie(capsys, "-w", str(root), "scan", "--no-prefilter", *map(str, files))


def corpus(root: Path) -> set[tuple[object, ...]]:
    """The pages of the archive's site, with their status and reason."""
    return set(rows(root, f"SELECT url, status, reason FROM pages WHERE url LIKE '{SITE}/%'"))


@pytest.fixture
def whole(tmp_path: Path) -> Path:
    path = tmp_path / "files" / "cc.warc.gz"
    path.parent.mkdir()
    write_archive(path)
    return path


def test_a_partial_download_is_read_on_once_complete(
    template_ws: Path, tmp_path: Path, whole: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file cut inside its third record keeps the two records before it, says where it
    ends, fails the run and is not marked scanned; scanned again once complete, it is
    read from there on, to the corpus one scan of the whole file makes."""
    data = whole.read_bytes()
    starts = offsets(whole)
    one = workspace(template_ws, tmp_path, "one")
    assert scan(capsys, one, whole).code == 0
    expected = corpus(one)
    assert len([row for row in expected if row[1] == "kept"]) == 4

    root = workspace(template_ws, tmp_path)
    downloading = tmp_path / "dl" / "cc.warc.gz"
    downloading.parent.mkdir()
    downloading.write_bytes(data[: starts[2] + 100])
    cut = scan(capsys, root, downloading)
    assert cut.code == 1, cut.err
    assert f"ends after 2 records at offset {starts[2]} (a partial download?)" in cut.err
    assert "unexpected" not in cut.err and "could not be scanned to their end" in cut.err
    assert len([row for row in corpus(root) if row[1] != "queued"]) == 2
    assert rows(root, "SELECT whole, end_offset FROM scanned_files") == [(0, starts[2])]
    shown = run_collie(capsys, "-w", str(root), "report")
    assert "(1 files partial: scan them again once complete)" in shown.out, shown.out

    downloading.write_bytes(data)
    done = scan(capsys, root, downloading)
    assert done.code == 0, done.err
    assert "1 files were read on from where an earlier scan stopped" in done.err
    assert "Scanned 1 files into loop 1: 3 records" in done.err
    assert "were in the workspace already" not in done.err  # the first two not read again
    assert corpus(root) == expected
    assert provenance_is_exact(root, downloading) and provenance_is_exact(one, whole)
    assert rows(root, "SELECT whole, records FROM scanned_files") == [(1, 5)]
    assert "files partial" not in run_collie(capsys, "-w", str(root), "report").out
    again = scan(capsys, root, downloading)
    assert again.code == 0 and "1 files were scanned before and skipped" in again.err


def test_a_file_cut_in_its_first_record_or_in_a_header_is_partial(
    template_ws: Path, tmp_path: Path, whole: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Cut anywhere (in a record's gzip member, its WARC header, its first record), a
    file is partial, never an unexpected error; another file named with it is scanned."""
    data = whole.read_bytes()
    starts = offsets(whole)
    root = workspace(template_ws, tmp_path)
    first = tmp_path / "first.warc.gz"
    first.write_bytes(data[:40])
    header = tmp_path / "header.warc.gz"
    header.write_bytes(data[: starts[1] + 12])
    done = scan(capsys, root, first, header)
    assert done.code == 1 and "unexpected" not in done.err, done.err
    assert f"{first}: ends after 0 records at offset 0 (a partial download?)" in done.err
    assert f"{header}: ends after 1 records at offset {starts[1]}" in done.err
    assert len([row for row in corpus(root) if row[1] != "queued"]) == 1


def test_foreign_and_missing_files_are_named_and_fail_the_run(
    template_ws: Path, tmp_path: Path, whole: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A gzip file of HTML and a paths list naming a file that is not there: each named,
    not marked scanned, the run's exit status 1; the good file of the list is scanned."""
    root = workspace(template_ws, tmp_path)
    garbage = whole.parent / "garbage.warc.gz"
    garbage.write_bytes(gzip.compress(b"<html>not a WARC file at all</html>\n" * 50))
    paths = whole.parent / "warc.paths.gz"
    paths.write_bytes(gzip.compress(b"cc.warc.gz\ngone.warc.gz\ngarbage.warc.gz\n"))
    done = scan(capsys, root, paths)
    assert done.code == 1 and "unexpected" not in done.err, done.err
    assert f"not scanned: {whole.parent / 'gone.warc.gz'}: cannot be read (No such" in done.err
    assert f"not scanned: {garbage}: not a WARC or WET file" in done.err
    assert "2 of the files named could not be scanned to their end (2 unreadable" in done.err
    assert "Scanned 1 files" in done.err
    assert len([row for row in corpus(root) if row[1] == "kept"]) == 4
    assert rows(root, "SELECT source FROM scanned_files") == [(str(whole),)]
    quiet = run_collie(capsys, "-w", str(root), "-q", "scan", str(paths))
    assert quiet.code == 1 and "not a WARC or WET file" in quiet.err


def test_a_different_file_under_a_scanned_name_is_scanned(
    template_ws: Path, tmp_path: Path, whole: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file is known by its size and first bytes too: another file put in its place
    is scanned from its start."""
    root = workspace(template_ws, tmp_path)
    assert scan(capsys, root, whole).code == 0
    write_archive(whole, wet=True)
    again = scan(capsys, root, whole)
    assert again.code == 0 and "Scanned 1 files into loop 1: 5 records" in again.err
    wet = workspace(template_ws, tmp_path, "wet")
    assert scan(capsys, wet, whole).code == 0 and provenance_is_exact(wet, whole)


class BreakingHandler(BaseHTTPRequestHandler):
    """Serves one archive file, with Range requests; the first `breaks` answers stop
    half-way (the connection closed before the Content-Length said)."""

    data: ClassVar[bytes] = b""
    breaks: ClassVar[list[int]] = [0]
    ranges: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        asked = self.headers.get("Range") or ""
        self.ranges.append(asked)
        start = int(asked.removeprefix("bytes=").rstrip("-") or 0)
        body = self.data[start:]
        self.send_response(206 if start else 200)
        self.send_header("Content-Length", str(len(body)))
        if start:
            self.send_header(
                "Content-Range", f"bytes {start}-{len(self.data) - 1}/{len(self.data)}"
            )
        self.end_headers()
        if self.breaks[0] > 0:
            self.breaks[0] -= 1
            body = body[: len(body) // 2]
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def breaking(whole: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[type[BreakingHandler]]:
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    monkeypatch.setattr("collie.mining.scanfile.RETRY_SECONDS", (0.01, 0.01, 0.01))
    handler = type(
        "Handler", (BreakingHandler,), {"data": whole.read_bytes(), "breaks": [0], "ranges": []}
    )
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    handler.url = f"http://127.0.0.1:{server.server_address[1]}/cc.warc.gz"  # type: ignore[attr-defined]
    yield handler
    server.shutdown()
    server.server_close()


def test_a_broken_download_is_asked_again_from_the_last_whole_record(
    template_ws: Path,
    tmp_path: Path,
    whole: Path,
    breaking: Any,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A remote file whose connection breaks off half-way is asked again with a Range
    request from the end of its last whole record: the same corpus as the local file's;
    broken every time, it is partial (exit status 1), and a later scan reads on."""
    one = workspace(template_ws, tmp_path, "one")
    assert scan(capsys, one, whole).code == 0
    root = workspace(template_ws, tmp_path)
    breaking.breaks[0] = 1
    done = scan(capsys, root, breaking.url)
    assert done.code == 0, done.err
    assert "the download broke off 1 times and was asked again" in done.err
    assert breaking.ranges[0] == "" and breaking.ranges[1] == f"bytes={offsets(whole)[2]}-"
    assert corpus(root) == corpus(one)

    again = workspace(template_ws, tmp_path, "again")
    breaking.breaks[0] = 4
    cut = scan(capsys, again, breaking.url)
    assert cut.code == 1 and "unexpected" not in cut.err, cut.err
    assert "(a partial download?): the download broke off (ProtocolError), asked 4 times" in cut.err
    assert scan(capsys, again, breaking.url).code == 0
    assert corpus(again) == corpus(one)
