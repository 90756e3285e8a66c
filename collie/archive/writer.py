"""The workspace's WARC files (ISO 28500, WARC/1.1): every HTTP exchange of a run, as
the web archives keep what a crawler fetched (issue 33).

Each exchange (collie.models.Exchange: robots.txt, pages, listings, redirect hops,
error answers) becomes a request record and a response record that names it
(WARC-Concurrent-To), or, when a complete 200 answer carries a payload archived before,
a revisit record pointing at the first (identical-payload-digest profile). A body kept
by a workspace from before the WARC files (its body cache) comes in as a resource
record and a metadata record that says what was lost (the headers). Whatever record a
page points at, one companion record follows it. Records are
gzipped one by one (a reader can start at any record's offset), written by warcio, into
`warc/collie-YYYYMMDDHHMMSS-NNNNN.warc.gz` (names sort by time), a new file once one
passes `max_bytes`; each file starts with a warcinfo record.

The body is kept as it was received, its Content-Encoding included; an answer whose
body collie stopped reading is marked WARC-Truncated (length, time, disconnect,
unspecified: a type collie does not take is not downloaded). The transfer coding is not
the wire's: urllib3 undoes chunking before collie sees a byte, so a
`Transfer-Encoding` header is kept as `X-Collie-Orig-Transfer-Encoding`.

Crash safety: `write` returns where the response (or revisit) record is, and `flush`
puts everything written on disk (fsync); the caller flushes before committing the
database rows that point at records, so no row points past the end of a file. A process
killed in the middle of a record leaves a torn gzip member at the end of the newest file;
`repair` cuts it off (the archive repairs its newest file when it opens), so every file
is one that standard readers accept.
"""

from __future__ import annotations

import base64
import hashlib
import io
import mmap
import os
import time
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

from collie.archive.reader import PREFIX, SUFFIX, archive_files, member_end, whole_records
from collie.errors import WorkspaceError
from collie.models import Exchange, WarcLocation

REVISIT_PROFILE = "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"
HOP_BY_HOP = "transfer-encoding"


def payload_digest(body: bytes) -> str:
    """WARC-Payload-Digest of a body: "sha1:" and the base-32 SHA-1."""
    return "sha1:" + base64.b32encode(hashlib.sha1(body).digest()).decode("ascii")


def warc_date(seconds: float) -> str:
    """A WARC-Date (ISO 8601, UTC, microseconds as WARC/1.1 allows)."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
    return f"{stamp}.{int(seconds % 1 * 1_000_000):06d}Z"


class WarcArchive:
    """Appends exchanges to the WARC files of a folder (module docstring). One writer at
    a time: the process that owns the workspace."""

    def __init__(self, folder: Path, max_bytes: int, software: str = "collie") -> None:
        self.folder = folder
        self.max_bytes = max_bytes
        self.software = software
        self.digests: dict[str, tuple[str, str, str]] = {}  # digest -> (uri, date, record id)
        self.written = 0  # bytes appended since opened (compressed, as stored)
        self._file: IO[bytes] | None = None
        self._name = ""
        self._serial = 0
        folder.mkdir(parents=True, exist_ok=True)
        files = self.files()
        if files:
            newest = folder / files[-1]
            _cut_torn_tail(newest)
            if not newest.stat().st_size:  # killed while its warcinfo was written
                newest.unlink()
            self._serial = max(_serial_of(name) for name in files)

    def files(self) -> list[str]:
        """The archive's WARC file names, oldest first."""
        return archive_files(self.folder)

    def remember(self, digests: Iterable[tuple[str, str, float, str]]) -> None:
        """Payloads archived before (digest, uri, fetched at, record id): their next copy
        is a revisit record."""
        for digest, uri, fetched_at, record_id in digests:
            self.digests.setdefault(digest, (uri, warc_date(fetched_at), record_id))

    def write(self, exchange: Exchange, revisit: bool = True) -> WarcLocation:
        """Write an exchange (request and response, or request and revisit: never with
        `revisit` False); where the response or revisit record is."""
        from warcio.statusandheaders import StatusAndHeaders
        from warcio.warcwriter import WARCWriter

        out = self._current()
        writer = WARCWriter(out, gzip=True, warc_version="WARC/1.1")
        date = warc_date(exchange.fetched_at)
        http = StatusAndHeaders(
            f"{exchange.status} {exchange.reason}".strip(),
            _stored_headers(exchange.headers),
            protocol=exchange.http_version,
        )
        digest = payload_digest(exchange.body)
        seen = self.digests.get(digest) if revisit else None
        headers: dict[str, str] = {"WARC-Date": date}
        if seen and exchange.status == 200 and not exchange.truncated:
            uri, first_date, first_id = seen
            record = writer.create_revisit_record(
                exchange.url, digest, uri, first_date, http_headers=http, warc_headers_dict=headers
            )
            record.rec_headers.replace_header("WARC-Profile", REVISIT_PROFILE)
            record.rec_headers.add_header("WARC-Refers-To", first_id)
        else:
            if exchange.truncated:
                headers["WARC-Truncated"] = exchange.truncated
            record = writer.create_warc_record(
                exchange.url,
                "response",
                payload=io.BytesIO(exchange.body),
                length=len(exchange.body),
                http_headers=http,
                warc_headers_dict=headers,
            )
        response_id = record.rec_headers.get_header("WARC-Record-ID")
        request = writer.create_warc_record(
            exchange.url,
            "request",
            payload=io.BytesIO(b""),
            length=0,
            http_headers=_request_headers(exchange),
            warc_headers_dict={"WARC-Date": date, "WARC-Concurrent-To": response_id},
        )
        offset, length = self._write_pair(writer, out, record, request)
        if not seen and exchange.status == 200 and not exchange.truncated:
            self.digests[digest] = (exchange.url, date, response_id)
        return WarcLocation(self._name, offset, length, response_id, digest)

    def write_resource(
        self, url: str, content_type: str, body: bytes, fetched_at: float, note: str
    ) -> WarcLocation:
        """A body known without its HTTP answer (the body cache of a workspace from before
        the WARC files, collie.archive.keeping) as a resource record, followed by a
        metadata record that says so (`note`); where the resource record is."""
        from warcio.warcwriter import WARCWriter

        out = self._current()
        writer = WARCWriter(out, gzip=True, warc_version="WARC/1.1")
        date = warc_date(fetched_at)
        digest = payload_digest(body)
        record = writer.create_warc_record(
            url,
            "resource",
            payload=io.BytesIO(body),
            length=len(body),
            warc_content_type=content_type or "application/octet-stream",
            warc_headers_dict={"WARC-Date": date, "WARC-Payload-Digest": digest},
        )
        resource_id = record.rec_headers.get_header("WARC-Record-ID")
        text = note.encode("utf-8")
        metadata = writer.create_warc_record(
            url,
            "metadata",
            payload=io.BytesIO(text),
            length=len(text),
            warc_content_type="text/plain; charset=utf-8",
            warc_headers_dict={"WARC-Date": date, "WARC-Concurrent-To": resource_id},
        )
        offset, length = self._write_pair(writer, out, record, metadata)
        self.digests.setdefault(digest, (url, date, resource_id))
        return WarcLocation(self._name, offset, length, resource_id, digest)

    def _write_pair(
        self, writer: Any, out: IO[bytes], record: Any, companion: Any
    ) -> tuple[int, int]:
        """A page's record and its companion (request or metadata) written together, as
        readers copy them; where the record starts and its length."""
        offset = out.tell()
        writer.write_record(record)
        length = out.tell() - offset
        writer.write_record(companion)
        out.flush()
        self.written += out.tell() - offset
        return offset, length

    def flush(self) -> None:
        """Everything written, on disk."""
        if self._file is not None:
            self._file.flush()
            os.fsync(self._file.fileno())

    def close(self) -> None:
        if self._file is not None:
            self.flush()
            self._file.close()
            self._file = None

    def __enter__(self) -> WarcArchive:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _current(self) -> IO[bytes]:
        """The file to append to: a new one when there is none or it is full."""
        if self._file is not None and self._file.tell() < self.max_bytes:
            return self._file
        self.close()
        self._serial += 1
        stamp = time.strftime("%Y%m%d%H%M%S", time.gmtime())
        self._name = f"{PREFIX}{stamp}-{self._serial:05d}{SUFFIX}"
        self._file = (self.folder / self._name).open("ab")
        self._write_info()
        return self._file

    def _write_info(self) -> None:
        from warcio.warcwriter import WARCWriter

        assert self._file is not None
        writer = WARCWriter(self._file, gzip=True, warc_version="WARC/1.1")
        info = {"software": self.software, "format": "WARC File Format 1.1"}
        start = self._file.tell()
        writer.write_record(writer.create_warcinfo_record(self._name, info))
        self._file.flush()
        self.written += self._file.tell() - start


def _cut_torn_tail(path: Path) -> None:
    """Before appending to `path`: cut off a torn last record (a process killed while
    writing it); refuse to append after a garbled one, which only `collie check
    --repair` may set aside (cutting there would lose the whole records after it)."""
    what, _, end = whole_records(path)
    if what is None:
        return
    if not what.startswith("truncated"):
        raise WorkspaceError(
            f"warc/{path.name}, the newest WARC file, is damaged ({what}); nothing was "
            "written after it.",
            "Run `collie check --repair` (it moves the file to warc/damaged/ and keeps its "
            "whole records), then run the same command again.",
        )
    _truncate(path, end)  # whole_records found where the torn record starts: no second pass


def repair(path: Path) -> int:
    """Cut a torn record off the end of a WARC file (a process killed while writing it);
    the bytes cut. Every record is one gzip member, so a member whose stream ends before
    its trailer is the torn one; every complete member before it is kept. (warcio's own
    reader reads a torn member's beginning without complaint, so it cannot tell.)"""
    size = path.stat().st_size
    good = 0
    if size:
        with path.open("rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data:
            view = memoryview(data)
            try:
                while good < size and (end := member_end(view, good)) is not None:
                    good = end
            finally:
                view.release()
    if size > good:
        _truncate(path, good)
    return size - good


def _truncate(path: Path, size: int) -> None:
    """Cut `path` to `size` bytes, on disk before this returns."""
    with path.open("r+b") as torn:
        torn.truncate(size)
        torn.flush()
        os.fsync(torn.fileno())


def write_warcinfo(out: IO[bytes], filename: str, info: dict[str, str]) -> None:
    """A warcinfo record at the head of a WARC file written elsewhere (an export)."""
    from warcio.warcwriter import WARCWriter

    writer = WARCWriter(out, gzip=True, warc_version="WARC/1.1")
    writer.write_record(writer.create_warcinfo_record(filename, info))


def _serial_of(name: str) -> int:
    try:
        return int(name.removesuffix(SUFFIX).rsplit("-", 1)[1])
    except (IndexError, ValueError):
        return 0


def _stored_headers(headers: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """The response headers as stored: a transfer coding urllib3 undid is renamed."""
    return [
        (f"X-Collie-Orig-{name}" if name.lower() == HOP_BY_HOP else name, value)
        for name, value in headers
    ]


def _request_headers(exchange: Exchange) -> Any:
    """The request line and headers (Host first, as http.client sends it)."""
    from warcio.statusandheaders import StatusAndHeaders

    parts = urlsplit(exchange.url)
    target = parts.path or "/"
    if parts.query:
        target += f"?{parts.query}"
    host = parts.netloc.rsplit("@", 1)[-1]
    headers = [("Host", host), *exchange.request_headers]
    return StatusAndHeaders(
        f"{exchange.method} {target} {exchange.http_version}", headers, is_http_request=True
    )
