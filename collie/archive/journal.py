"""The fetch journal: every answer the run's fetch pool brings, on disk the moment it is
in, until its page is recorded (issue 58).

The loop examines and records pages a little after they were fetched: answers wait in the
pool's queue, and a batch is examined whole before its one transaction. A kill -9 in
between used to lose every answer fetched and not yet recorded (their pages are still
queued), so the next run fetched them again. Now the fetching thread appends each answer
here (`write`) before the loop can take it; the next run reads back the answers of the
pages still queued (`read_back`) and examines them as if they had just come, with no
request. Only the requests on the wire when the process died are asked again.

The journal is `journal/` in the workspace: segment files (`fetched-000001.journal`),
each a sequence of entries (a fixed header: the lengths of a JSON head and of the bodies
that follow, and their CRC-32; the head: the key and the FetchResult's fields with its
exchanges; then the bodies), appended with one write each, so a kill leaves at most a
torn last entry, which reading stops at. A segment is replaced by the next at
SEGMENT_BYTES and deleted once every answer in it is recorded (`done`); whatever a run
left is read back by the next one, which keeps only the answers still wanted in a new
segment and deletes the old ones. Nothing here is fsync'd: a kill -9 loses nothing the
operating system holds, and an answer lost to a power cut is only fetched again.

Not the WARC files: those keep what warc.keep says, written when a page is recorded;
the journal keeps every answer, briefly.
"""

from __future__ import annotations

import json
import logging
import os
import struct
import threading
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import suppress
from dataclasses import fields
from pathlib import Path
from typing import Any

from collie.models import Exchange, FetchResult

JOURNAL_FOLDER = "journal"  # in the workspace
SEGMENT_BYTES = 16 * 1024 * 1024  # a segment is closed past this size
_HEADER = struct.Struct(">III")  # head length, bodies length, CRC-32 of head and bodies
_PREFIX, _SUFFIX = "fetched-", ".journal"

log = logging.getLogger(__name__)


def encode_entry(key: str, result: FetchResult) -> bytes:
    """One journal entry: the header, the JSON head, the bodies."""
    exchanges = [
        {f.name: getattr(e, f.name) for f in fields(Exchange) if f.name != "body"}
        for e in result.exchanges
    ]
    head = {
        "key": key,
        "result": {
            f.name: getattr(result, f.name)
            for f in fields(FetchResult)
            if f.name not in ("body", "exchanges")
        },
        "body": len(result.body),
        "exchanges": [{**e, "body": len(x.body)} for e, x in zip(exchanges, result.exchanges)],  # noqa: B905
    }
    encoded = json.dumps(head, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    bodies = b"".join([result.body, *(x.body for x in result.exchanges)])
    crc = zlib.crc32(bodies, zlib.crc32(encoded))
    return _HEADER.pack(len(encoded), len(bodies), crc) + encoded + bodies


def decode_entry(head: dict[str, Any], bodies: bytes) -> tuple[str, FetchResult]:
    """(key, answer) of an entry's head and bodies."""
    fields_of = head["result"]
    at = head["body"]
    body = bodies[:at]
    exchanges = []
    for one in head["exchanges"]:
        size = one.pop("body")
        one["request_headers"] = tuple(tuple(h) for h in one["request_headers"])
        one["headers"] = tuple(tuple(h) for h in one["headers"])
        exchanges.append(Exchange(**one, body=bodies[at : at + size]))
        at += size
    fields_of["redirects"] = tuple(fields_of["redirects"])
    return head["key"], FetchResult(**fields_of, body=body, exchanges=tuple(exchanges))


def read_segment(path: Path) -> Iterator[tuple[str, FetchResult]]:
    """The whole entries of a segment, in order (reading stops at a torn or damaged one)."""
    data = path.read_bytes()
    at = 0
    while at + _HEADER.size <= len(data):
        head_size, bodies_size, crc = _HEADER.unpack_from(data, at)
        start = at + _HEADER.size
        end = start + head_size + bodies_size
        if end > len(data):
            return  # torn by a kill
        encoded, bodies = data[start : start + head_size], data[start + head_size : end]
        if zlib.crc32(bodies, zlib.crc32(encoded)) != crc:
            return
        try:
            yield decode_entry(json.loads(encoded), bodies)
        except (ValueError, KeyError, TypeError):
            return  # another version's entry: fetched again
        at = end


class FetchJournal:
    """See the module docstring. `write` is thread-safe (the pool's threads call it);
    `read_back`, `done` and `close` are the loop's."""

    def __init__(self, root: Path) -> None:
        self.folder = root / JOURNAL_FOLDER
        self._lock = threading.Lock()
        self._file: int | None = None  # the open segment's descriptor
        self._number = 0  # the open segment's
        self._size = 0
        self._pending: dict[int, set[str]] = {}  # segment -> keys not recorded yet
        self._where: dict[str, int] = {}  # key -> its segment
        self._broken = False  # a write failed (a full disk): journal no more

    def read_back(self, wanted: Callable[[list[str]], set[str]]) -> dict[str, FetchResult]:
        """The answers an earlier run journalled and never recorded, by key, those
        `wanted` keeps (given every key read, it returns the keys still wanted: a page
        still queued, a listing not read). They are written to a new segment and the old
        segments deleted, so nothing stale is kept."""
        old = segments(self.folder)
        self._number = old[-1][0] if old else 0
        answers: dict[str, FetchResult] = {}
        for _, path in old:
            try:
                answers.update(read_segment(path))
            except OSError:
                continue
        keep = wanted(list(answers)) if answers else set()
        kept = {key: result for key, result in answers.items() if key in keep}
        for key, result in kept.items():
            self.write(key, result)
        for _, path in old:
            path.unlink(missing_ok=True)
        return kept

    def write(self, key: str, result: FetchResult) -> None:
        """Append an answer (in the fetching thread, before the loop takes it)."""
        entry = encode_entry(key, result)
        with self._lock:
            if self._broken:
                return
            try:
                if self._file is None or self._size >= SEGMENT_BYTES:
                    self._next_segment()
                assert self._file is not None
                view = memoryview(entry)
                while view:
                    view = view[os.write(self._file, view) :]
                self._size += len(entry)
            except OSError as exc:
                self._broken = True
                log.warning("the fetch journal stopped (%s): a kill -9 now costs refetches", exc)
                return
            self._pending.setdefault(self._number, set()).add(key)
            self._where[key] = self._number

    def done(self, keys: Iterable[str]) -> None:
        """These answers are recorded (or will be fetched again): a segment whose answers
        are all recorded is deleted, unless it is the one being written."""
        with self._lock:
            for key in keys:
                number = self._where.pop(key, None)
                if number is None:
                    continue
                pending = self._pending.get(number)
                if pending is None:
                    continue
                pending.discard(key)
                if not pending and number != self._number:
                    del self._pending[number]
                    self._path(number).unlink(missing_ok=True)

    def close(self) -> None:
        """Close the open segment; delete it when every answer in it is recorded."""
        with self._lock:
            if self._file is not None:
                os.close(self._file)
                self._file = None
            for number, pending in list(self._pending.items()):
                if not pending:
                    del self._pending[number]
                    self._path(number).unlink(missing_ok=True)
            with suppress(OSError):  # empty: no journal/ left in the workspace
                self.folder.rmdir()

    def _path(self, number: int) -> Path:
        return self.folder / f"{_PREFIX}{number:06d}{_SUFFIX}"

    def _next_segment(self) -> None:
        """Close the open segment (deleted if all recorded) and open the next (lock held)."""
        if self._file is not None:
            os.close(self._file)
            if not self._pending.get(self._number, True):
                del self._pending[self._number]
                self._path(self._number).unlink(missing_ok=True)
        self.folder.mkdir(exist_ok=True)
        self._number += 1
        self._size = 0
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_BINARY", 0)
        self._file = os.open(self._path(self._number), flags, 0o644)


def segments(folder: Path) -> list[tuple[int, Path]]:
    """The journal's segment files, by number."""
    if not folder.is_dir():
        return []
    found = []
    for path in folder.iterdir():
        name = path.name
        if name.startswith(_PREFIX) and name.endswith(_SUFFIX):
            digits = name[len(_PREFIX) : -len(_SUFFIX)]
            if digits.isdigit():
                found.append((int(digits), path))
    return sorted(found)


def journal_keys(root: Path) -> list[str]:
    """The keys of the answers the workspace's journal holds, in order (for tests)."""
    return [key for _, path in segments(root / JOURNAL_FOLDER) for key, _ in read_segment(path)]
