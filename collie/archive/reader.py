"""Reading the workspace's WARC files (ISO 28500, WARC/1.1; collie.archive.writer
writes them): where they are, one record read back at its offset, records copied byte
for byte (an export), and where the whole gzip members end, which is how a torn or
garbled record is found and named (issue 45).
"""

from __future__ import annotations

import io
import mmap
import zlib
from pathlib import Path
from typing import IO, Any

WARC_FOLDER = "warc"  # in the workspace
PREFIX = "collie-"
SUFFIX = ".warc.gz"
GZIP_MAGIC = b"\x1f\x8b"
MEMBER_HEAD = b"\x1f\x8b\x08"  # a gzip member's first bytes (deflate)
MEMBER_PIECE = 64 * 1024  # bytes read at a time while finding where a member ends


def archive_files(folder: Path) -> list[str]:
    """The names of the WARC files collie wrote in `folder`, oldest first (none when the
    folder is not there)."""
    return sorted(p.name for p in folder.glob(f"{PREFIX}*{SUFFIX}")) if folder.is_dir() else []


def copy_members(path: Path, offset: int, out: IO[bytes], count: int = 1) -> int:
    """Copy `count` whole records (gzip members) of a WARC file from `offset` to `out`,
    byte for byte; the offset after them."""
    with path.open("rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data:
        view = memoryview(data)
        try:
            position = offset
            for _ in range(count):
                end = member_end(view, position)
                if end is None:
                    raise ValueError(f"{path.name}: no whole record at offset {position}")
                out.write(view[position:end])
                position = end
        finally:
            view.release()
    return position


def read_record(path: Path, offset: int) -> tuple[str, Any, bytes]:
    """The record whose gzip member starts at `offset`: its type, its HTTP headers
    (warcio's StatusAndHeaders: a response's, a revisit's; None for a resource) and its
    payload as stored (a response's body before its Content-Encoding is undone)."""
    from warcio.archiveiterator import ArchiveIterator
    from warcio.exceptions import ArchiveLoadFailed

    with path.open("rb") as file:
        file.seek(offset)
        try:
            for record in ArchiveIterator(file):
                return record.rec_type, record.http_headers, record.raw_stream.read()
        except ArchiveLoadFailed as exc:  # garbled bytes where the record should be
            raise ValueError(f"{path.name}: no record at offset {offset} ({exc})") from None
    raise ValueError(f"{path.name}: no record at offset {offset}")


def damage(path: Path) -> str | None:
    """What is wrong with a WARC file, in words, or None when every record in it is a
    whole gzip member: "missing", "garbled (not a gzip-compressed WARC file)", "garbled
    at offset N after K records", "truncated at offset N after K records". Read only
    when a reader failed or must know (an index), to name the damage (issue 45)."""
    return whole_records(path)[0]


def whole_records(path: Path) -> tuple[str | None, int, int]:
    """`damage(path)`, the number of whole records before it and where they end."""
    if not path.is_file():
        return "missing", 0, 0
    size = path.stat().st_size
    if not size:
        return "truncated at offset 0 after 0 records (empty)", 0, 0
    records = position = 0
    with path.open("rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data:
        view = memoryview(data)
        try:
            while position < size:
                end = member_end(view, position)
                if end is None:
                    magic = bytes(view[position : position + 2])
                    if magic != GZIP_MAGIC or _corrupt(view, position):
                        if not records:
                            return "garbled (not a gzip-compressed WARC file)", 0, 0
                        what = f"garbled at offset {position} after {records} records"
                    else:
                        what = f"truncated at offset {position} after {records} records"
                    return what, records, position
                records, position = records + 1, end
        finally:
            view.release()
    return None, records, position


def salvage_members(path: Path, start: int) -> list[tuple[int, int]]:
    """The whole gzip members of a WARC file from `start` on, read past damage:
    (offset, end) of each. Where a member is torn or garbled, the search goes on at the
    next gzip header (1f 8b 08) from which a member decompresses whole, its CRC-32 and
    length right (so a header's bytes met by chance inside garbage are not taken)."""
    found: list[tuple[int, int]] = []
    size = path.stat().st_size
    if start >= size:
        return found
    with path.open("rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data:
        view = memoryview(data)
        try:
            position = start
            while position < size:
                end = (
                    member_end(view, position)
                    if data[position : position + 3] == MEMBER_HEAD
                    else None
                )
                if end is not None:
                    found.append((position, end))
                    position = end
                    continue
                position = data.find(MEMBER_HEAD, position + 1)
                if position < 0:
                    break
        finally:
            view.release()
    return found


def _corrupt(data: memoryview, start: int) -> bool:
    """Whether the gzip member at `start` holds bytes zlib refuses (not merely cut short)."""
    member = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        member.decompress(data[start:])
    except zlib.error:
        return True
    return False


def member_end(data: memoryview, start: int) -> int | None:
    """Where the gzip member starting at `start` ends, or None when it is torn."""
    member = zlib.decompressobj(16 + zlib.MAX_WBITS)
    position = start
    try:
        while position < len(data):
            piece = data[position : position + MEMBER_PIECE]
            position += len(piece)
            member.decompress(piece)  # the output is not kept: only where the member ends
            if member.eof:
                return position - len(member.unused_data)
    except zlib.error:
        return None
    return None


class FileHead(io.RawIOBase):
    """The first `limit` bytes of a binary file, read as a stream."""

    def __init__(self, file: IO[bytes], limit: int) -> None:
        self.file, self.left = file, limit

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        wanted = min(len(buffer), self.left)
        if wanted <= 0:
            return 0
        data = self.file.read(wanted)
        buffer[: len(data)] = data
        self.left -= len(data)
        return len(data)
