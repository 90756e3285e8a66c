"""The worker half of `collie scan`: one archive file (Common Crawl's WARC or WET, or any
WARC) read as a stream, each page record through a cheap first filter and, when it
passes, through the same decode, main-text and page decision as a fetched page, with the
workspace's model. Nothing here touches the workspace: a file's result is plain data
(the pages that passed the filter, examined, each with where its record is), which the
driver (scan.py) records, one file at a time.

The first filter (`Prefilter`) looks at the start of a record's text for the target's
needles: the words most frequent in the workspace's target text but for the frequent
words of the web's big languages (scan.needle_words), `min_needles` of them distinct (one
on a host of a target country's domain). The text is the page's from its <body> on,
tags, scripts and styles taken out. It rejects the bulk of
other-language records before any extraction; what it costs in recall is measured by
benchmarks/bench_scan.py against the full decision on every record.
"""

from __future__ import annotations

import re
import time
import zlib
from dataclasses import dataclass, field
from typing import IO, Any
from urllib.parse import urlsplit

from collie.crawl.links import site_of
from collie.decide.classify import PageRules
from collie.fetch.response import Decoder
from collie.http import GENERIC_TYPES, HTML_TYPES
from collie.langid.model import LangModel
from collie.mining.examine import examine, examine_text
from collie.models import Examined, Exchange, FetchResult, QueuedPage

SAMPLE_BYTES = 16_384  # of a record's body (or text), what the first filter reads
WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")
BODY = re.compile(rb"<body\b", re.I)
HEAD_BYTES = 256 * 1024  # where <body> is looked for
TAGS = re.compile(rb"<script\b.*?</script>|<style\b.*?</style>|<[^>]*>", re.S | re.I)
UNKNOWN_PAGE = -1  # the page id, until the driver queues the URL


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
        hits = 0
        seen: set[str] = set()
        for match in WORD.finditer(text):
            word = match.group(0).lower()
            if word in self.needles and word not in seen:
                seen.add(word)
                hits += 1
                if hits >= wanted:
                    return True
        return False


@dataclass(frozen=True)
class ScanTask:
    """One archive file to scan: where it is (a path, or an http(s) URL), its name as
    recorded, and what examining a page needs."""

    source: str
    rules: PageRules
    prefilter: Prefilter
    loop: int


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


def scan_file(task: ScanTask, model: LangModel) -> FileResult:
    """Read one archive file (module docstring)."""
    from warcio.archiveiterator import ArchiveIterator
    from warcio.exceptions import ArchiveLoadFailed

    started = time.perf_counter()
    result = FileResult(task.source)
    try:
        with open_source(task.source) as stream:
            records = ArchiveIterator(stream, arc2warc=True)
            for record in records:
                result.records += 1
                page = _page_record(record, records, task)
                if page is None:
                    continue
                result.pages += 1
                host, sample, read_all = page.host, page.sample(), page.read_all
                if not task.prefilter.passes(host, sample):
                    continue
                result.candidates += 1
                result.found.append(read_all(model))
    except (OSError, ArchiveLoadFailed, zlib.error, EOFError, ValueError) as exc:
        result.error = f"{type(exc).__name__}: {exc}"
    result.seconds = time.perf_counter() - started
    return result


def open_source(source: str) -> IO[bytes]:
    """A local file, or an http(s) URL streamed (Common Crawl serves its files over
    HTTPS: https://data.commoncrawl.org/crawl-data/...)."""
    if source.startswith(("http://", "https://")):
        import requests

        response = requests.get(source, stream=True, timeout=(10, 120))
        response.raise_for_status()
        response.raw.decode_content = False
        return response.raw
    return open(source, "rb")


@dataclass
class _PageRecord:
    host: str
    sample: Any  # () -> str: the text the first filter reads
    read_all: Any  # (model) -> (Examined, ArchiveHit): the full decision


def _page_record(record: Any, records: Any, task: ScanTask) -> _PageRecord | None:
    """A page record of the file (a 200 HTML response, or a WET conversion), or None."""
    kind = record.rec_type
    if kind not in ("response", "conversion"):
        return None
    headers = record.rec_headers
    url = headers.get_header("WARC-Target-URI") or ""
    host = (urlsplit(url).hostname or "").lower()
    if not host:
        return None
    queued = QueuedPage(UNKNOWN_PAGE, url, site_of(url), task.loop, "crawl", 0)
    if kind == "conversion":
        body = record.content_stream().read()
        hit = _hit(record, records, task, kind)
        return _PageRecord(
            host,
            lambda: body[: SAMPLE_BYTES * 2].decode("utf-8", "replace")[:SAMPLE_BYTES],
            lambda model: (examine_text(queued, body, hit.captured_at, model, task.rules), hit),
        )
    http = record.http_headers
    if http is None or http.get_statuscode() != "200":
        return None
    media = (http.get_header("Content-Type") or "").split(";")[0].strip().lower()
    if media not in HTML_TYPES and media not in GENERIC_TYPES:
        return None
    raw = record.raw_stream.read(task.rules.max_bytes + 1)
    hit = _hit(record, records, task, kind)
    try:
        body = Decoder(http.get_header("Content-Encoding") or "").feed(raw, task.rules.max_bytes)
    except (ValueError, zlib.error):
        return None
    pairs = [(str(k), str(v)) for k, v in http.headers]

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
                reason=http.statusline.partition(" ")[2] or "OK",
                http_version=http.protocol or "HTTP/1.1",
                headers=tuple(pairs),
                body=raw[: task.rules.max_bytes],
                fetched_at=hit.captured_at,
                truncated="length" if len(raw) > task.rules.max_bytes else "",
            ),
        )
        return examined, hit

    return _PageRecord(host, lambda: _html_text(body), full)


def _hit(record: Any, records: Any, task: ScanTask, kind: str) -> ArchiveHit:
    """Where the record is (asked after its payload is read: warcio's offset lookup
    must not come between the record's headers and its payload)."""
    headers = record.rec_headers
    return ArchiveHit(
        task.source,
        records.get_record_offset(),
        headers.get_header("WARC-Record-ID") or "",
        _seconds(headers.get_header("WARC-Date") or ""),
        kind,
    )


def _html_text(body: bytes) -> str:
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
