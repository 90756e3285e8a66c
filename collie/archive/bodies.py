"""A recorded page's raw body read back, wherever the workspace keeps it: the record of
its answer in the WARC files (collie.archive.writer; a response's payload has its
Content-Encoding undone as the fetch did, within `fetch.max_bytes`), or, for a workspace
that keeps no WARC files (warc.keep none), the body cache (bodycache.py); for a page
`collie scan` found that the workspace did not keep (a WET record's text, or warc.keep
and the cache lost), the record the page row points at in the scanned archive file,
when that file is still where it was read (a file streamed over HTTP is not fetched
again). What comes back is checked against the SHA-1 recorded when the page was
fetched: a body that is not the one the page was made from is not used.
"""

from __future__ import annotations

import hashlib
import logging
import zlib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from collie.archive.bodycache import CACHE_FOLDER, read_body
from collie.archive.reader import WARC_FOLDER, read_record
from collie.fetch.response import Decoder
from collie.models import CachedPage

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class KeptAnswer:
    """A recorded page's raw body and, when its WARC record keeps them, the headers of
    the answer (lower-case names; None: the body cache or a WET record keeps none)."""

    body: bytes
    headers: dict[str, str] | None = None


def read_kept(root: Path, page: CachedPage, max_bytes: int) -> bytes | None:
    """The raw body `page` was made from (workspace `root`), or None when it is gone."""
    answer = read_kept_answer(root, page, max_bytes)
    return answer.body if answer is not None else None


def read_kept_answer(root: Path, page: CachedPage, max_bytes: int) -> KeptAnswer | None:
    """`read_kept`, with the answer's HTTP headers where its record keeps them."""
    answer = None
    if page.warc_file is None or page.warc_offset is None:
        body = read_body(root / CACHE_FOLDER, page.body_sha1)
        answer = KeptAnswer(body) if body is not None else None
    else:
        answer = _read_checked(
            root / WARC_FOLDER / page.warc_file, page.warc_offset, page, max_bytes
        )
    scanned, offset = page.archive_file, page.archive_offset
    if answer is None and scanned and offset is not None and not scanned.startswith("http"):
        answer = _read_checked(Path(scanned), offset, page, max_bytes)
    return answer


def _read_checked(path: Path, offset: int, page: CachedPage, max_bytes: int) -> KeptAnswer | None:
    """The body (and headers) of the record at `offset` of a WARC file if it is the one
    `page` was made from, else None (and a warning)."""
    try:
        answer = archived_answer(path, offset, max_bytes)
    except (OSError, ValueError, zlib.error) as exc:  # the caller counts (note_unread)
        log.debug("%s: its WARC record cannot be read (%s)", page.url, exc)
        return None
    if hashlib.sha1(answer.body).hexdigest() != page.body_sha1:
        log.debug("%s: its WARC record is not the body it was made from", page.url)
        return None
    return answer


def note_unread(task: str, pages: Iterable[CachedPage]) -> int:
    """One warning for the pages whose kept body `task` could not read back (a damaged
    or missing WARC file), naming the files; how many there were."""
    files = Counter(page.warc_file or "the body cache" for page in pages)
    if files:
        named = ", ".join(f"{_place(name)} ({n})" for name, n in sorted(files.items()))
        log.warning(
            "%s: %d pages' kept bodies could not be read and were left as they were: %s. "
            "`collie check` names the damage; `collie check --repair` then `collie run` "
            "fetches them again.",
            task,
            files.total(),
            named,
        )
    return files.total()


def archived_body(path: Path, offset: int, max_bytes: int) -> bytes:
    """The body of the record at `offset` of a WARC file: a response's payload decoded
    (its Content-Encoding undone, at most `max_bytes`), a resource's or a WET
    conversion's (a page's text) as it is."""
    return archived_answer(path, offset, max_bytes).body


def archived_answer(path: Path, offset: int, max_bytes: int) -> KeptAnswer:
    """`archived_body`, with a response's HTTP headers (lower-case names; a header
    repeated keeps its last value)."""
    kind, http, payload = read_record(path, offset)
    if kind in ("resource", "conversion"):
        return KeptAnswer(payload)
    if kind != "response" or http is None:
        raise ValueError(f"a {kind} record holds no body")
    decoder = Decoder(http.get_header("Content-Encoding") or "")
    headers = {name.lower(): value for name, value in http.headers}
    return KeptAnswer(decoder.feed(payload, max_bytes + 1)[:max_bytes], headers)


def _place(name: str) -> str:
    """Where a body was kept, as the user finds it: warc/NAME, or the body cache."""
    return f"warc/{name}" if name.endswith(".gz") else name
