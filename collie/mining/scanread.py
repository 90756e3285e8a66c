"""The records of an archive file as `collie scan` reads them (scanfile.py), from either
reader: for a local file, FastWARC where it is installed (the `fast` extra: a compiled
reader, about twice warcio's speed on Common Crawl's files), warcio otherwise, and always
for a file's last record and whatever follows it (a cut record, a file that ends
mid-record, an ARC file: warcio's handling of a damaged file is the one the scan's resume
relies on); a download (http/https) by warcio, which reads it as it comes at the
network's pace and says to the record where a broken one stopped. Either way a
record is a `RawRecord`, the same fields read from the same bytes
(tests/mining/test_scan_read.py reads one file with both).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import IO, Any

FAST_MAJOR = 2  # FastWARC's version with the API used here (2.0, the Rust rewrite)


@dataclass
class RawRecord:
    """One record's fields that a scan reads, whichever reader read them."""

    kind: str  # response, conversion, request, metadata...
    url: str
    record_id: str
    date: str  # WARC-Date as written
    status: str = ""  # the HTTP status code ("" for a record without HTTP headers)
    reason: str = ""
    protocol: str = ""
    headers: tuple[tuple[str, str], ...] = ()  # the HTTP headers, in order
    read: Callable[[int], bytes] = lambda size: b""  # the payload (a WET block), size or -1

    def header(self, name: str) -> str:
        """An HTTP header's first value ("" when absent)."""
        wanted = name.lower()
        return next((value for key, value in self.headers if key.lower() == wanted), "")


def from_warcio(record: Any) -> RawRecord:
    """A warcio record's fields; its payload read when asked (the raw payload of a
    response, its Content-Encoding left on; a WET block decoded of nothing)."""
    headers = record.rec_headers
    raw = RawRecord(
        str(record.rec_type),
        headers.get_header("WARC-Target-URI") or "",
        headers.get_header("WARC-Record-ID") or "",
        headers.get_header("WARC-Date") or "",
    )
    if record.rec_type == "conversion":
        raw.read = lambda size: record.content_stream().read()
        return raw
    http = record.http_headers
    if http is not None and record.rec_type == "response":
        raw.status = str(http.get_statuscode() or "")
        raw.reason = http.statusline.partition(" ")[2]
        raw.protocol = http.protocol or ""
        raw.headers = tuple((str(k), str(v)) for k, v in http.headers)
        raw.read = lambda size: record.raw_stream.read(size)
    return raw


def from_fastwarc(record: Any) -> RawRecord:
    """A FastWARC record's fields, as from_warcio gives them."""
    headers = record.headers
    kind = str(record.record_type)  # "response", as warcio says it
    raw = RawRecord(
        kind,
        headers.get("WARC-Target-URI") or "",
        headers.get("WARC-Record-ID") or "",
        headers.get("WARC-Date") or "",
    )
    if kind == "conversion":
        raw.read = lambda size: record.reader.read()
        return raw
    if record.is_http and kind == "response":
        http = record.http_headers
        protocol, _, rest = (http.status_line or "").partition(" ")
        raw.status = str(http.status_code or "")
        raw.reason = rest.partition(" ")[2]
        raw.protocol = protocol
        raw.headers = tuple((str(k), str(v)) for k, v in http.items())
        raw.read = lambda size: record.reader.read(size)
    return raw


@lru_cache(maxsize=1)
def fast_reader() -> Any:
    """FastWARC's ArchiveIterator when FastWARC (2.x) is installed, else None."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        major = version("fastwarc").split(".")[0]
        from fastwarc.warc import ArchiveIterator
    except (ImportError, PackageNotFoundError):
        return None
    return ArchiveIterator if major.isdigit() and int(major) >= FAST_MAJOR else None


def read_fast(stream: IO[bytes], start: int) -> Iterator[tuple[int, Any]]:
    """Each record of `stream` (opened at `start`, where a record begins) with where it
    begins in the file, by FastWARC: (offset, its record). Call only with fast_reader()."""
    iterator = fast_reader()
    first: int | None = None
    for record in iterator(stream, parse_http=True):
        if first is None:
            first = int(record.stream_pos)
        yield start + int(record.stream_pos) - first, record
