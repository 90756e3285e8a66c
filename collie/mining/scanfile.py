"""The worker half of `collie scan`: one archive file (Common Crawl's WARC or WET, or any
WARC) read as a stream, each page record through a cheap first filter and, when it
passes, through the same decode, main-text and page decision as a fetched page, with the
workspace's model. Nothing here touches the workspace: a file's result is plain data
(the pages that passed the filter, examined, each with where its record is), which the
driver (scan.py) records, one file at a time.

The first filter (`Prefilter`) looks at the start of a record's text for the target's
needles: the words only the target uses (scan.needle_words: its text against every
other language collie knows words of, by odds ratio), `min_needles` of them distinct
(one on a host of a target country's domain). The text is the page's from its <body> on,
tags, scripts and styles taken out. It rejects the bulk of
other-language records before any extraction; what it costs in recall is measured by
benchmarks/bench_scan.py against the full decision on every record.
"""

from __future__ import annotations

import hashlib
import io
import logging
import os
import re
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, cast
from urllib.parse import urlsplit

from collie.crawl.links import site_of
from collie.decide.classify import PageRules
from collie.fetch.response import Decoder
from collie.http import GENERIC_TYPES, HTML_TYPES
from collie.langid.model import LangModel
from collie.mining.examine import examine, examine_text
from collie.mining.scanread import RawRecord, fast_reader, from_fastwarc, from_warcio, read_fast
from collie.models import Examined, Exchange, FetchResult, QueuedPage

log = logging.getLogger(__name__)
SAMPLE_BYTES = 16_384  # of a record's body (or text), what the first filter reads
WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")
BODY = re.compile(rb"<body\b", re.I)
HEAD_BYTES = 256 * 1024  # where <body> is looked for
TAGS = re.compile(rb"<script\b.*?</script>|<style\b.*?</style>|<[^>]*>", re.S | re.I)
UNKNOWN_PAGE = -1  # the page id, until the driver queues the URL
IDENTITY_BYTES = 65_536  # a file's first bytes, hashed: its identity with its size
RETRY_SECONDS = (1.0, 4.0, 16.0)  # waits before a broken download is asked again
HEAD_CHECK = 4096  # what is read of a file to tell a WARC file from another


@dataclass(frozen=True)
class Prefilter:
    """The first filter (module docstring); `off` lets every page record through."""

    needles: frozenset[str]
    min_needles: int = 3
    domains: tuple[str, ...] = ()  # ".ke", ".co.ke": hosts ending so pass
    off: bool = False

    def passes(self, host: str, text: str) -> bool:
        if self.off:
            return True
        wanted = 1 if self.domains and host.endswith(self.domains) else self.min_needles
        return len(self.needles.intersection(WORD.findall(text.lower()))) >= wanted


@dataclass(frozen=True)
class ScanTask:
    """One archive file to scan: where it is (a path, or an http(s) URL), its name as
    recorded, and what examining a page needs."""

    source: str
    rules: PageRules
    prefilter: Prefilter
    loop: int
    start: int = 0  # where to begin: the end of the last whole record an earlier scan read
    reader: str = "auto"  # auto: FastWARC where installed (scanread.py); warcio: warcio only


@dataclass(frozen=True)
class ArchiveHit:
    """Where a page's record is in the archive (its provenance)."""

    file: str
    offset: int
    record_id: str
    captured_at: float
    kind: str  # response (WARC) or conversion (WET)


@dataclass
class FileResult:
    """What scanning one file found."""

    source: str
    records: int = 0  # every record read
    pages: int = 0  # page records: HTML responses, WET conversions
    candidates: int = 0  # page records that passed the first filter
    found: list[tuple[Examined, ArchiveHit]] = field(default_factory=list)
    seconds: float = 0.0
    error: str | None = None  # the file could not be read to its end (what was read counts)
    end: int = 0  # the offset after the last whole record read
    retries: int = 0  # a download broken off, asked again from `end` (a Range request)
    read: int = 0  # bytes of the file read whole (end - start: compressed, as stored)
    state: str = "whole"  # whole, partial (ends mid-record: resumable at `end`), failed


def scan_file(task: ScanTask, model: LangModel) -> FileResult:
    """Read one archive file (module docstring) from `task.start`, to its end or to where
    it breaks off: a file that ends mid-record (a partial download) keeps the records
    read before it, and says where the last whole one ends; a file that is no WARC or
    WET file, or that cannot be opened, is `failed`."""
    started = time.perf_counter()
    result = FileResult(task.source, end=task.start)
    try:
        local = not task.source.startswith(("http://", "https://"))
        if task.start == 0 and local and Path(task.source).stat().st_size == 0:
            result.state, result.error = "failed", "an empty file (0 bytes), no WARC or WET file"
            result.seconds = time.perf_counter() - started
            return result
        if task.start == 0 and _foreign(task.source):
            result.state, result.error = "failed", "not a WARC or WET file (it begins otherwise)"
            result.seconds = time.perf_counter() - started
            return result
        broken = _read_source(task, model, result)
        if broken is None and not task.source.startswith(("http://", "https://")):
            size = Path(task.source).stat().st_size
            broken = f"the {size - result.end:,} bytes after it are no whole record"
            broken = broken if result.end < size else None
        if broken is not None:
            _file_broken(task, result, broken)
    except _stream_errors() as exc:
        why = f"cannot be read ({getattr(exc, 'strerror', None) or exc})"
        if result.end > task.start:
            _file_broken(task, result, why)
        else:
            result.state, result.error = "failed", why
    result.read = result.end - task.start
    result.seconds = time.perf_counter() - started
    return result


def _read_source(task: ScanTask, model: LangModel, result: FileResult) -> str | None:
    """The file read into `result` (a local file by FastWARC where installed, _read_fast,
    but its last record and what follows; the rest by warcio, _read_records: a download
    is read at the network's pace, and warcio says where it broke off to the record); a
    remote file whose download breaks
    off is asked again from the end of its last whole record (a Range request), after
    RETRY_SECONDS, before it is given up as partial."""
    from warcio.archiveiterator import ArchiveIterator

    remote = task.source.startswith(("http://", "https://"))
    for attempt in range(len(RETRY_SECONDS) + 1):
        try:
            if task.reader == "auto" and not remote and fast_reader() is not None:
                with open_source(task.source, result.end) as stream:
                    _read_fast(stream, task, model, result)
            with open_source(task.source, result.end) as stream:
                records = ArchiveIterator(stream, arc2warc=True)
                return _read_records(records, task, model, result)
        except _stream_errors() as exc:
            status = getattr(getattr(exc, "response", None), "status_code", None) or 500
            if not remote or status < 500 or attempt == len(RETRY_SECONDS):
                if result.end == task.start:  # nothing read: the file cannot be read
                    raise
                return f"the download broke off ({type(exc).__name__}), asked {attempt + 1} times"
            result.retries += 1
            time.sleep(RETRY_SECONDS[attempt])
    return None  # not reached: the last attempt returns


def _stream_errors() -> tuple[type[Exception], ...]:
    """What reading a file or a download raises when it breaks off (requests' errors
    are OSErrors; urllib3's ProtocolError, a connection broken mid-body, is not)."""
    from urllib3.exceptions import HTTPError

    return (OSError, HTTPError)


def _read_fast(stream: IO[bytes], task: ScanTask, model: LangModel, result: FileResult) -> None:
    """Each record of `stream` into `result` by FastWARC, but the last it reads: a
    record counts once the next one begins (where it ends), so that the last (whole,
    cut, or the start of what FastWARC cannot read) is left to warcio (_read_records),
    from `result.end`, as every record is without FastWARC."""
    held: tuple[int, _PageRecord | None] | None = None
    records = read_fast(stream, result.end)
    while True:
        try:
            start, record = next(records)
            page = _page_record(from_fastwarc(record), start, task)
        except StopIteration:
            return
        except _stream_errors():
            raise
        except Exception:  # whatever FastWARC cannot read, warcio reads on from there
            log.debug("FastWARC stopped in %s after offset %d", task.source, result.end)
            return
        if held is not None:
            _take(held[1], start, task, model, result)
        held = (start, page)


def _take(
    page: _PageRecord | None, end: int, task: ScanTask, model: LangModel, result: FileResult
) -> None:
    """A whole record, which ends at `end`, into `result`: counted, and a page record
    through the first filter and, past it, the full decision."""
    result.records += 1
    result.end = end
    if page is None:
        return
    result.pages += 1
    if task.prefilter.passes(page.host, page.sample()):
        result.candidates += 1
        result.found.append(page.read_all(model))


def _read_records(records: Any, task: ScanTask, model: LangModel, result: FileResult) -> str | None:
    """Each whole record of `records` (warcio's) into `result`; why the file broke off,
    or None."""
    iterator = iter(records)
    while True:
        try:
            record = next(iterator)
            page = _page_record(from_warcio(record), result.end, task)
            records.get_record_length()  # read to its end (and its blank lines)
        except StopIteration:
            return None
        except _read_errors() as exc:  # warcio on a cut file
            return f"the record after it is cut short ({type(exc).__name__})"
        if not _whole(record, records):
            return "the record after it is cut short"
        _take(page, _record_end(records), task, model, result)


def _read_errors() -> tuple[type[Exception], ...]:
    """What warcio raises reading a file that is cut or is no WARC file (its header
    parser meets a cut header as None: AttributeError)."""
    from warcio.exceptions import ArchiveLoadFailed
    from warcio.statusandheaders import StatusAndHeadersParserException

    return (
        ArchiveLoadFailed,
        StatusAndHeadersParserException,
        AttributeError,
        EOFError,
        ValueError,
        zlib.error,
    )


def _whole(record: Any, records: Any) -> bool:
    """Whether the record just read was there to its end (its Content-Length, and in a
    .gz file its gzip member's end)."""
    if getattr(record.raw_stream, "limit", 0) > 0:
        return False
    decompressor = getattr(records.reader, "decompressor", None)
    return decompressor is None or bool(getattr(decompressor, "eof", True))


def _record_end(records: Any) -> int:
    """Where the record just read ends and the next begins. In a .gz file, the bytes read
    from the file but for those of the next gzip member (warcio's own offset counts the
    member's decompressed bytes left in its buffer too, so it can be a byte or two off)."""
    decompressor = getattr(records.reader, "decompressor", None)
    if decompressor is None:
        return int(records.offset)
    return int(records.fh.tell()) - len(decompressor.unused_data)


def _file_broken(task: ScanTask, result: FileResult, why: str) -> None:
    """A file that broke off: partial, the records before where it broke kept."""
    result.state = "partial"
    result.error = (
        f"ends after {'another ' if task.start else ''}{result.records} records at offset "
        f"{result.end} (a partial download?): {why}"
    )


def _foreign(source: str) -> bool:
    """Whether a local file begins otherwise than a WARC (or ARC) file does, gzipped or
    not (a file too short to tell is not foreign: a download cut very early)."""
    if source.startswith(("http://", "https://")):
        return False  # a stream: not read twice
    with open(source, "rb") as raw:
        head = raw.read(HEAD_CHECK)
    if head[:2] == b"\x1f\x8b":
        try:
            head = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(head)
        except zlib.error:
            return True
    if len(head) < len(b"filedesc://"):
        return False
    return not head.startswith((b"WARC/", b"filedesc://"))


def file_identity(source: str, length: int | None = None) -> tuple[int, str] | None:
    """A local file's size and the SHA-1 of its first IDENTITY_BYTES bytes (of its first
    `length` bytes, to compare with a shorter file's); None for a URL or a missing file."""
    if source.startswith(("http://", "https://")):
        return None
    try:
        with open(source, "rb") as raw:
            size = os.fstat(raw.fileno()).st_size
            head = raw.read(min(IDENTITY_BYTES, size if length is None else length))
    except OSError:
        return None
    return size, hashlib.sha1(head).hexdigest()


def open_source(source: str, start: int = 0) -> IO[bytes]:
    """A local file, or an http(s) URL streamed (Common Crawl serves its files over
    HTTPS: https://data.commoncrawl.org/crawl-data/...), from `start` (a Range request;
    the bytes before it skipped when the server ignores it), telling offsets in the
    file."""
    if source.startswith(("http://", "https://")):
        import requests

        headers = {"Range": f"bytes={start}-"} if start else {}
        response = requests.get(source, stream=True, timeout=(10, 120), headers=headers)
        if response.status_code == 416:  # nothing after `start`
            response.close()
            return cast(IO[bytes], _Offset(io.BytesIO(b""), start))
        response.raise_for_status()
        response.raw.decode_content = False
        stream = _Offset(response.raw, start)
        if start and response.status_code == 200:  # the whole file: skip to `start`
            stream.skip(start)
        return cast(IO[bytes], stream)
    local = open(source, "rb")  # noqa: SIM115 (the caller closes it)
    local.seek(start)
    return local


class _Offset:
    """A stream read from `start` of a file: tell() says where in the file."""

    def __init__(self, raw: Any, start: int) -> None:
        self.raw, self.position = raw, start

    def read(self, size: int = -1) -> bytes:
        data = self.raw.read(size) if size is not None and size >= 0 else self.raw.read()
        self.position += len(data)
        return bytes(data)

    def skip(self, count: int) -> None:
        """Read past `count` bytes (the stream's own start was 0)."""
        self.position -= count
        while count > 0:
            data = self.read(min(count, 1 << 20))
            if not data:
                break
            count -= len(data)

    def tell(self) -> int:
        return self.position

    def close(self) -> None:
        self.raw.close()

    def __enter__(self) -> _Offset:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


@dataclass
class _PageRecord:
    host: str
    sample: Any  # () -> str: the text the first filter reads
    read_all: Any  # (model) -> (Examined, ArchiveHit): the full decision


def _page_record(record: RawRecord, start: int, task: ScanTask) -> _PageRecord | None:
    """A page record of the file (a 200 HTML response, or a WET conversion), or None;
    `start` is where the record begins (where the record before it ended)."""
    kind, url = record.kind, record.url
    if kind not in ("response", "conversion"):
        return None
    host = (urlsplit(url).hostname or "").lower()
    if not host:
        return None
    queued = QueuedPage(UNKNOWN_PAGE, url, site_of(url), task.loop, "crawl", 0)
    hit = ArchiveHit(task.source, start, record.record_id, _seconds(record.date), kind)
    if kind == "conversion":
        text = record.read(-1)
        return _PageRecord(
            host,
            lambda: text[: SAMPLE_BYTES * 2].decode("utf-8", "replace")[:SAMPLE_BYTES],
            lambda model: (examine_text(queued, text, hit.captured_at, model, task.rules), hit),
        )
    if record.status != "200":
        return None
    media = record.header("Content-Type").split(";")[0].strip().lower()
    if media not in HTML_TYPES and media not in GENERIC_TYPES:
        return None
    raw = record.read(task.rules.max_bytes + 1)
    try:
        body = Decoder(record.header("Content-Encoding")).feed(raw, task.rules.max_bytes)
    except (ValueError, zlib.error):
        return None
    pairs = record.headers

    def full(model: LangModel) -> tuple[Examined, ArchiveHit]:
        result = FetchResult(
            url,
            url,
            200,
            {k.lower(): v for k, v in pairs},
            body,
            fetched_at=hit.captured_at,
        )
        examined = examine(queued, result, model, task.rules)
        examined.exchanges = (
            Exchange(
                url=url,
                request_headers=(),
                status=200,
                reason=record.reason or "OK",
                http_version=record.protocol or "HTTP/1.1",
                headers=pairs,
                body=raw[: task.rules.max_bytes],
                fetched_at=hit.captured_at,
                truncated="length" if len(raw) > task.rules.max_bytes else "",
            ),
        )
        return examined, hit

    return _PageRecord(host, lambda: html_sample(body), full)


def html_sample(body: bytes) -> str:
    """SAMPLE_BYTES of a page from its <body> on (a head of styles and scripts skipped),
    tags, scripts and styles taken out (fast, rough)."""
    start = BODY.search(body, 0, HEAD_BYTES)
    sample = body[start.start() if start else 0 :][:SAMPLE_BYTES]
    return TAGS.sub(b" ", sample).decode("utf-8", "replace")


def _seconds(warc_date: str) -> float:
    """A WARC-Date as seconds since the epoch (0.0 when it cannot be read)."""
    import calendar

    digits = re.sub(r"\D", "", warc_date)[:14]
    if len(digits) < 14:
        return 0.0
    fields = [int(digits[i:j]) for i, j in ((0, 4), (4, 6), (6, 8), (8, 10), (10, 12), (12, 14))]
    return float(calendar.timegm((*fields, 0, 0, 0)))
