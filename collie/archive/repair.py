"""`collie check`: the workspace's WARC files, the only copy of every page's body,
checked against the page rows that point into them, and repaired (issue 45).

The check reads every WARC file of warc/ and every file a page row names
(collie.archive.check: gzip members whole, records parsed, digests right) and finds
the page rows whose record is gone: in a missing or unreadable file, past a torn or
garbled member or a record with a wrong digest, or not the record the row names. A
revisit record holds no payload, so the pages whose payload was only in a lost record
are lost too. The corpus's text is kept in collie.db and is not lost with a body; what
needs a body (reprocess, export --format warc, replay, the relatives pass and the short
pages' vote) lacks it.

A page row whose record is whole and right but not where the row says (a file a repair
rewrote) has moved, not been lost: the check finds it by its WARC-Record-ID, and the
repair points the row at it.

The repair never deletes a byte anyone could want: a torn last record (the tail of a
file cut short) is cut off; any other damaged file keeps every whole record with right
digests, in order, under its name, and the file as it was goes to warc/damaged/ (linked
there first, then the new file renamed over it: the name never points at nothing). The
lost pages are marked first, in one transaction (their old pointers kept in
lost_bodies); the rows of the records kept follow them to their new offsets in another.
A repair killed midway is finished by the next one (a row left behind is found by its
record's ID). `collie run` then fetches the lost pages again (collie.mining.refetch).
One bad record costs the pages of that record only (issue 58).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from collie.archive.check import DAMAGED_FOLDER, FileCheck, check_file
from collie.archive.index import INDEX_FILE
from collie.archive.pointers import ArchiveStore, LostCounts, RecordRow
from collie.archive.reader import WARC_FOLDER, archive_files
from collie.archive.writer import repair
from collie.files import atomic_write

COPY_PIECE = 1 << 20
PAYLOAD_HOLDERS = ("response", "resource")  # records that hold a payload (not revisit)


@dataclass
class ArchiveCheck:
    """What `collie check` found."""

    files: list[FileCheck] = field(default_factory=list)
    rows: int = 0  # page rows pointing at a record
    lost: list[tuple[RecordRow, str]] = field(default_factory=list)  # and why
    moved: list[tuple[RecordRow, int]] = field(default_factory=list)  # and where it is now
    lost_documents: int = 0  # corpus documents among the lost pages
    marked: LostCounts = field(default_factory=LostCounts)  # lost bodies marked before

    @property
    def damaged(self) -> list[FileCheck]:
        return [f for f in self.files if not f.whole]

    @property
    def healthy(self) -> bool:
        """No damaged file, no page row pointing at nothing, no lost body waiting."""
        return not self.damaged and not self.lost and not self.moved and not self.marked.waiting


@dataclass
class Repair:
    """What `collie check --repair` did."""

    cut: list[tuple[str, int]] = field(default_factory=list)  # (file, bytes cut off)
    moved: list[tuple[str, str, int]] = field(default_factory=list)  # (file, to, records kept)
    marked: int = 0  # pages marked lost
    documents: int = 0  # corpus documents among them


def check_archive(root: Path, store: ArchiveStore) -> ArchiveCheck:
    """Check the WARC files of the workspace at `root` against its page rows."""
    folder = root / WARC_FOLDER
    rows = store.record_rows()
    names = sorted(set(archive_files(folder)) | {row.file for row in rows})
    files = [check_file(folder / name) for name in names]
    lost, moved = _lost_rows(rows, {f.name: f for f in files})
    return ArchiveCheck(
        files,
        len(rows),
        lost,
        moved,
        store.corpus_documents(row.page_id for row, _ in lost),
        store.lost_counts(),
    )


def _lost_rows(
    rows: list[RecordRow], files: dict[str, FileCheck]
) -> tuple[list[tuple[RecordRow, str]], list[tuple[RecordRow, int]]]:
    """The rows whose record is gone, and why (then those whose payload was only there);
    and the rows whose record is whole elsewhere in its file, and where."""
    lost: list[tuple[RecordRow, str]] = []
    moved: list[tuple[RecordRow, int]] = []
    kinds: dict[int, str] = {}
    for row in rows:
        found = files[row.file]
        here = found.starts.get(row.offset, ("", ""))[0]
        if row.record_id and here != row.record_id:
            elsewhere = found.offset_of(row.record_id)
            if elsewhere is not None and found.good(elsewhere):
                moved.append((row, elsewhere))
                kinds[row.page_id] = found.starts[elsewhere][1]
                continue
        if not found.good(row.offset):
            lost.append((row, f"warc/{row.file}: {found.words()}"))
            continue
        record_id, kinds[row.page_id] = found.starts[row.offset]
        if row.record_id and record_id != row.record_id:
            lost.append((row, f"warc/{row.file}: another record at offset {row.offset}"))
    gone = {row.digest for row, _ in lost if row.digest}
    held = {
        row.digest
        for row in rows
        if row.digest in gone and kinds.get(row.page_id) in PAYLOAD_HOLDERS
    }
    for row in rows:
        if row.digest in gone - held and kinds.get(row.page_id) == "revisit":
            lost.append((row, "its payload was only in a lost record (a revisit record)"))
    return lost, moved


def repair_archive(root: Path, store: ArchiveStore, found: ArchiveCheck) -> Repair:
    """Repair what `found` says (the module docstring): the lost pages marked, then the
    damaged files cut or moved aside, then the replay index made stale."""
    done = Repair()
    done.marked = store.mark_lost(found.lost)
    done.documents = found.lost_documents
    store.relocate([(row.page_id, offset) for row, offset in found.moved])
    folder = root / WARC_FOLDER
    pointed: dict[str, list[RecordRow]] = {}
    for row in store.record_rows():  # the lost pages' pointers are cleared already
        pointed.setdefault(row.file, []).append(row)
    for damaged in found.damaged:
        path = folder / damaged.name
        if damaged.missing or not path.exists():
            continue
        torn_tail = (damaged.damage or "").startswith("truncated") and not damaged.wrong
        if torn_tail and not damaged.salvaged:
            done.cut.append((damaged.name, repair(path)))
            continue
        kept = damaged.kept_records()
        aside = _keep_aside(path)
        if not kept:  # nothing whole in it: the name goes, the file stays in damaged/
            path.unlink()
            done.moved.append((damaged.name, str(aside.relative_to(root)), 0))
            continue
        new_offsets = _copy_records(aside, path, kept)
        store.relocate(
            [
                (row.page_id, new_offsets[row.offset])
                for row in pointed.get(damaged.name, [])
                if row.offset in new_offsets and new_offsets[row.offset] != row.offset
            ]
        )
        done.moved.append((damaged.name, str(aside.relative_to(root)), len(kept)))
    (folder / INDEX_FILE).unlink(missing_ok=True)  # written again from the files as they are
    return done


def _keep_aside(path: Path) -> Path:
    """The damaged file kept in warc/damaged/ (a free name there), linked beside its
    name, so that the name never points at nothing; where it went."""
    aside = path.parent / DAMAGED_FOLDER
    aside.mkdir(exist_ok=True)
    target, n = aside / path.name, 1
    while target.exists():
        target, n = aside / f"{path.name}.{n}", n + 1
    try:
        os.link(path, target)
    except OSError:  # a file system without hard links: a copy
        shutil.copyfile(path, target)
    return target


def _copy_records(source: Path, path: Path, records: list[tuple[int, int]]) -> dict[int, int]:
    """The records (offset, end) of `source`, byte for byte and in order, as `path`
    (written whole, then renamed over it); each old offset's new one."""
    moved: dict[int, int] = {}
    with source.open("rb") as src, atomic_write(path, "wb") as out:
        position = 0
        for start, end in records:
            moved[start] = position
            src.seek(start)
            left = end - start
            while left > 0:
                piece = src.read(min(COPY_PIECE, left))
                if not piece:
                    break
                out.write(piece)
                left -= len(piece)
                position += len(piece)
    return moved
