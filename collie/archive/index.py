"""A CDXJ index of the workspace's WARC files (warc/index.cdxj), in the format of
webrecorder's cdxj-indexer and pywb: one line a record, `SURT-key timestamp {json}`,
sorted, the JSON naming the URL, MIME type, HTTP status, payload digest and where the
record is (length, offset, file). The records indexed are those a replay tool serves:
response, revisit, resource and metadata (not warcinfo, not request).

The key is the URL in SURT form as the web archives canonicalize it (the Internet
Archive's rules, which the `surt` package implements and pywb looks URLs up by): the
scheme, a fragment and user info dropped; the host unescaped, lowercased, a leading
"www" (or "www2"...) dropped, its labels reversed and joined by commas, a non-default
port kept, then ")"; the path's dot segments and doubled slashes resolved; everything
percent-escaped once (bytes outside printable ASCII, "#" and "%") and lowercased; the
trailing slash of a path other than "/" dropped; the query's common session ids
removed and its arguments sorted. tests/test_warc.py checks the keys against `surt`.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote_from_bytes, unquote_to_bytes, urlsplit

from collie.archive.reader import FileHead, whole_records
from collie.files import atomic_write

INDEX_FILE = "index.cdxj"  # in warc/
INDEXED = ("response", "revisit", "resource", "metadata")
FIELDS_TYPE = "application/warc-fields"  # a resource or metadata record of fields: not indexed
ESCAPE_SAFE = b"!\"$&'()*+,-./:;<=>?@[\\]^_`{|}~"
DEFAULT_PORTS = {"http": 80, "https": 443}
WWW = re.compile(rb"^www\d*\.")
SPACES = re.compile(r"[\t\r\n]")
SESSION_IDS = [  # query arguments that name a session, not a page (the IA's list)
    re.compile(rb"^(.*)(?:jsessionid=[0-9a-z]{32})(?:&(.*))?$", re.I),
    re.compile(rb"^(.*)(?:phpsessid=[0-9a-z]{32})(?:&(.*))?$", re.I),
    re.compile(rb"^(.*)(?:sid=[0-9a-z]{32})(?:&(.*))?$", re.I),
    re.compile(rb"^(.*)(?:aspsessionid[a-z]{8}=[a-z]{24})(?:&(.*))?$", re.I),
    re.compile(rb"^(.*)(?:cfid=[^&]+&cftoken=[^&]+)(?:&(.*))?$", re.I),
]


def surt_key(url: str) -> str:
    """The SURT form of `url` (module docstring): "ke,example,ramogi)/habari?a=1&b=2"."""
    text = SPACES.sub("", url.strip())
    parts = urlsplit(text if "://" in text else "http://" + text)
    host = _unescape((parts.hostname or "").encode("utf-8"))
    try:
        host.decode("ascii")
    except UnicodeDecodeError:
        host = host.decode("utf-8", "ignore").encode("idna")
    host = _escape(host.replace(b"..", b".").strip(b".").lower())
    host = WWW.sub(b"", host, count=1)
    key = b",".join(reversed(host.split(b".")))
    try:
        port = parts.port
    except ValueError:
        port = None
    if port is not None and port != DEFAULT_PORTS.get(parts.scheme.lower()):
        key += b":%d" % port
    path = _escape(_dot_segments(_unescape(parts.path.encode("utf-8")))).lower()
    if len(path) > 1 and path.endswith(b"/"):
        path = path[:-1]
    key += b")" + path
    query = _query(parts.query.encode("utf-8"))
    if query:
        key += b"?" + query
    return key.decode("utf-8")


def _unescape(data: bytes) -> bytes:
    while (once := unquote_to_bytes(data)) != data:
        data = once
    return data


def _escape(data: bytes) -> bytes:
    return quote_from_bytes(data, safe=ESCAPE_SAFE).encode("ascii")


def _dot_segments(path: bytes) -> bytes:
    """ "/a/./b/../c//d/" -> "/a/c/d/" (an empty path is "/")."""
    if not path:
        return b"/"
    kept: list[bytes] = []
    for segment in path.split(b"/")[1:]:
        if segment == b".":
            continue
        if segment == b".." and kept:
            kept.pop()
        else:
            kept.append(segment)
    if not kept:
        return b"/"
    return b"/" + b"".join(s + b"/" for s in kept[:-1] if s) + kept[-1]


def _query(query: bytes) -> bytes:
    if not query:
        return b""
    query = _escape(_unescape(query))
    for pattern in SESSION_IDS:
        found = pattern.match(query)
        if found:
            query = found.group(1) + (found.group(2) or b"")
    query = query.lower()
    if len(query) <= 1:
        return query
    arguments = sorted(tuple(a.split(b"=", 1)) for a in query.split(b"&"))
    return b"&".join(b"=".join(a) for a in arguments)


def timestamp(warc_date: str) -> str:
    """A WARC-Date as the 14 digits of a CDX timestamp."""
    return re.sub(r"\D", "", warc_date)[:14].ljust(14, "0")


def index_lines(path: Path, name: str | None = None, limit: int | None = None) -> Iterator[str]:
    """The index lines of one WARC file, in file order (the file named `name`); with
    `limit`, of its records in the first `limit` bytes (a damaged file's whole ones)."""
    from warcio.archiveiterator import ArchiveIterator

    name = name or path.name
    with path.open("rb") as file:
        records = ArchiveIterator(file if limit is None else FileHead(file, limit))
        for record in records:
            kind = record.rec_type
            headers = record.rec_headers
            if kind not in INDEXED or (
                kind in ("resource", "metadata")
                and headers.get_header("Content-Type") == FIELDS_TYPE
            ):
                continue
            offset = records.get_record_offset()
            payload = record.raw_stream.read()
            records.read_to_end(record)
            url = headers.get_header("WARC-Target-URI") or ""
            http = record.http_headers if kind in ("response", "revisit") else None
            fields: dict[str, Any] = {
                "url": url,
                "mime": _mime(kind, headers, http),
                "status": http.get_statuscode() if http is not None else None,
                "digest": headers.get_header("WARC-Payload-Digest") or _digest(payload),
                "length": str(records.get_record_length()),
                "offset": str(offset),
                "filename": name,
            }
            data = {k: v for k, v in fields.items() if v}
            date = headers.get_header("WARC-Date") or ""
            yield f"{surt_key(url)} {timestamp(date)} {json.dumps(data)}"


def _mime(kind: str, headers: Any, http: Any) -> str | None:
    if kind == "revisit":
        return "warc/revisit"
    value = http.get_header("Content-Type") if http is not None else None
    if kind not in ("response",):
        value = headers.get_header("Content-Type")
    return re.split(r"[;\s]", value, maxsplit=1)[0].strip() if value else None


def _digest(payload: bytes) -> str:
    return "sha1:" + base64.b32encode(hashlib.sha1(payload).digest()).decode("ascii")


def write_index(folder: Path, files: list[str]) -> tuple[Path, dict[str, tuple[str, int]]]:
    """The sorted index of the WARC files `files` of `folder`, written whole to
    folder/index.cdxj (a temporary file renamed); its path, and the damaged files
    (name -> (damage, whole records indexed): collie.archive.writer.damage), of which only
    the whole records before the damage are indexed. An index with damaged files is
    left older than they are, so the next use writes it again and names them again."""
    lines: list[str] = []
    damaged: dict[str, tuple[str, int]] = {}
    for name in files:
        what, records, end = whole_records(folder / name)
        if what is not None:
            damaged[name] = (what, records)
        lines.extend(index_lines(folder / name, limit=None if what is None else end))
    lines.sort()
    out = folder / INDEX_FILE
    with atomic_write(out, "w") as handle:
        handle.writelines(line + "\n" for line in lines)
    if damaged:
        there = [(folder / name).stat().st_mtime_ns for name in damaged if (folder / name).exists()]
        if there:
            older = min(there) - 1_000_000_000
            os.utime(out, ns=(older, older))
    return out, damaged


def index_is_current(folder: Path, files: list[str]) -> bool:
    """Is folder/index.cdxj newer than every WARC file in `files`?"""
    out = folder / INDEX_FILE
    if not out.exists():
        return False
    built = out.stat().st_mtime_ns
    return all((folder / name).stat().st_mtime_ns <= built for name in files)
