"""A recorded page's raw body read back, wherever the workspace keeps it: the record of
its answer in the WARC files (collie.store.warc; a response's payload has its
Content-Encoding undone as the fetch did, within `fetch.max_bytes`), or, for a workspace
that keeps no WARC files (warc.keep none), the body cache (bodycache.py). What comes
back is checked against the SHA-1 recorded when the page was fetched: a body that is
not the one the page was made from is not used.
"""

from __future__ import annotations

import hashlib
import logging
import zlib
from pathlib import Path

from collie.fetch.bodycache import CACHE_FOLDER, read_body
from collie.fetch.response import Decoder
from collie.models import CachedPage
from collie.store.warc import WARC_FOLDER, read_record

log = logging.getLogger(__name__)


def read_kept(root: Path, page: CachedPage, max_bytes: int) -> bytes | None:
    """The raw body `page` was made from (workspace `root`), or None when it is gone."""
    if page.warc_file is None or page.warc_offset is None:
        return read_body(root / CACHE_FOLDER, page.body_sha1)
    try:
        body = archived_body(root / WARC_FOLDER / page.warc_file, page.warc_offset, max_bytes)
    except (OSError, ValueError, zlib.error) as exc:
        log.warning("%s: its WARC record cannot be read (%s)", page.url, exc)
        return None
    if hashlib.sha1(body).hexdigest() != page.body_sha1:
        log.warning("%s: its WARC record is not the body it was made from", page.url)
        return None
    return body


def archived_body(path: Path, offset: int, max_bytes: int) -> bytes:
    """The body of the record at `offset` of a WARC file: a response's payload decoded
    (its Content-Encoding undone, at most `max_bytes`), a resource's as it is."""
    kind, http, payload = read_record(path, offset)
    if kind == "resource":
        return payload
    if kind != "response" or http is None:
        raise ValueError(f"a {kind} record holds no body")
    decoder = Decoder(http.get_header("Content-Encoding") or "")
    return decoder.feed(payload, max_bytes + 1)[:max_bytes]
