"""One WARC file checked as `warcio check` does, and more (issues 45, 58): every gzip
member whole (collie.archive.reader.whole_records: where a torn or garbled member
starts), every record parsed and its block and payload digests right, and where each
record starts and ends (what a page row's pointer is checked against). Past a torn or
garbled member the file is read on from the next whole member (reader.salvage_members),
so one bad record costs its own pages only. Files only: which pages lost what is
collie.archive.repair's.
"""

from __future__ import annotations

import errno
from dataclasses import dataclass, field
from pathlib import Path

from collie.archive.reader import GZIP_MAGIC, FileHead, salvage_members, whole_records

DAMAGED_FOLDER = "damaged"  # under warc/: files `collie check --repair` moved aside


@dataclass
class FileCheck:
    """What one WARC file holds and what is wrong with it."""

    name: str
    size: int = 0
    damage: str | None = None  # collie.archive.writer.damage's words; None: every member whole
    records: int = 0  # records whose gzip members are whole, from the start
    end: int = 0  # where those records end
    # offset -> (WARC-Record-ID, WARC-Type) of each whole record that parsed, the records
    # read past the damage (salvaged) included
    starts: dict[int, tuple[str, str]] = field(default_factory=dict)
    ends: dict[int, int] = field(default_factory=dict)  # offset -> where the record ends
    wrong: list[tuple[int, str]] = field(default_factory=list)  # (offset, digest problem)
    salvaged: int = 0  # whole records found past the damage

    @property
    def whole(self) -> bool:
        return self.damage is None and not self.wrong

    @property
    def missing(self) -> bool:
        return self.damage == "missing"

    def right(self, offset: int) -> bool:
        """Is there a whole record with right digests at `offset`?"""
        return offset in self.starts and all(at != offset for at, _ in self.wrong)

    def good(self, offset: int) -> bool:
        """Is there a whole record with right digests at `offset`, and right after it its
        companion (collie.archive.writer: a page's record is followed by its request or
        metadata record, and a reader copies the two together)?"""
        return self.right(offset) and self.right(self.ends[offset])

    def kept_records(self) -> list[tuple[int, int]]:
        """(offset, end) of every record a repair keeps: whole, digests right, in order."""
        return [(offset, self.ends[offset]) for offset in sorted(self.starts) if self.right(offset)]

    def offset_of(self, record_id: str) -> int | None:
        """Where the record `record_id` is in the file, whole and right, if it is."""
        for offset, (found, _) in self.starts.items():
            if found == record_id and self.right(offset):
                return offset
        return None

    def words(self) -> str:
        """ "whole, N records", or what is wrong."""
        if self.whole:
            return f"whole, {self.records} records"
        parts = [self.damage] if self.damage else []
        if self.salvaged:
            parts.append(f"{self.salvaged} whole records after it")
        if self.wrong:
            first, problem = self.wrong[0]
            n = len(self.wrong)
            parts.append(
                f"{n} record{'s' if n != 1 else ''} with a wrong digest, the first at "
                f"offset {first} ({problem})"
            )
        return "; ".join(str(p) for p in parts)


def check_file(path: Path) -> FileCheck:
    """Check the WARC file at `path` (see the module docstring)."""
    found = FileCheck(path.name)
    try:
        found.size = path.stat().st_size if path.is_file() else 0
        found.damage, found.records, found.end = whole_records(path)
        if found.missing:
            return found
        if found.records:
            _read_records(path, found)
        if found.damage is not None:
            _salvage(path, found)
    except PermissionError:
        found.damage, found.records, found.end = "unreadable (permission denied)", 0, 0
        found.starts.clear()
    except OSError as exc:  # an I/O error of the disk itself
        reason = errno.errorcode.get(exc.errno or 0, str(exc))
        found.damage, found.records, found.end = f"unreadable ({reason}: {exc})", 0, 0
        found.starts.clear()
    return found


def _read_records(path: Path, found: FileCheck) -> None:
    """Parse the whole members with warcio, digests checked; a member that is whole
    gzip but no WARC record ends the file's good part there."""
    from warcio.archiveiterator import ArchiveIterator
    from warcio.exceptions import ArchiveLoadFailed

    with path.open("rb") as file:
        records = ArchiveIterator(FileHead(file, found.end), check_digests=True)
        position = 0  # where the next record starts
        try:
            for record in records:
                while record.raw_stream.read(1 << 20):
                    pass
                offset = records.get_record_offset()
                position = offset + records.get_record_length()
                rec_id = record.rec_headers.get_header("WARC-Record-ID") or ""
                found.starts[offset] = (rec_id, record.rec_type)
                found.ends[offset] = position
                if record.digest_checker.passed is False:
                    found.wrong.append((offset, "; ".join(record.digest_checker.problems)))
        except (ArchiveLoadFailed, ValueError, EOFError) as exc:
            kept = len(found.starts)
            found.records, found.end = kept, position
            where = f"at offset {position} after {kept} records" if kept else "(not a WARC file)"
            found.damage = f"garbled {where}: {str(exc).splitlines()[0][:120]}"


def _salvage(path: Path, found: FileCheck) -> None:
    """The whole records past the damage, each parsed on its own (a member that is no
    WARC record, or whose digests are wrong, is no record to keep)."""
    from warcio.archiveiterator import ArchiveIterator
    from warcio.exceptions import ArchiveLoadFailed

    with path.open("rb") as file:
        for offset, end in salvage_members(path, found.end):
            file.seek(offset)
            try:
                for record in ArchiveIterator(FileHead(file, end - offset), check_digests=True):
                    while record.raw_stream.read(1 << 20):
                        pass
                    rec_id = record.rec_headers.get_header("WARC-Record-ID") or ""
                    found.starts[offset], found.ends[offset] = (rec_id, record.rec_type), end
                    found.salvaged += 1
                    if record.digest_checker.passed is False:
                        found.wrong.append((offset, "; ".join(record.digest_checker.problems)))
                    break
            except (ArchiveLoadFailed, ValueError, EOFError):
                continue


def suspect_files(folder: Path, files: list[str], ends: dict[str, int]) -> dict[str, str]:
    """The WARC files seen to be damaged without reading them through (`collie check`
    does): name -> missing, shorter than the records page rows point at, or not gzip."""
    found: dict[str, str] = {}
    for name in sorted(set(files) | set(ends)):
        path = folder / name
        if not path.is_file():
            found[name] = "missing"
            continue
        size = path.stat().st_size
        if size < ends.get(name, 0):
            found[name] = f"{size:,} bytes, shorter than its records ({ends[name]:,})"
            continue
        with path.open("rb") as head:
            if size and head.read(2) != GZIP_MAGIC:
                found[name] = "not gzip-compressed"
    return found
