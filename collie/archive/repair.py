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

The repair never deletes a byte anyone could want: a torn last record (the tail of a
file cut short) is cut off; any other damaged file is moved to warc/damaged/ and the
whole records before its first problem are copied back under its name (the offsets
the page rows hold stay right). The lost pages are marked first, in one transaction
(their old pointers kept in lost_bodies), so a repair killed midway is finished by the
next one; `collie run` then fetches them again (collie.mining.refetch).
"""

from __future__ import annotations

import os
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
    lost_documents: int = 0  # corpus documents among the lost pages
    marked: LostCounts = field(default_factory=LostCounts)  # lost bodies marked before

    @property
    def damaged(self) -> list[FileCheck]:
        return [f for f in self.files if not f.whole]

    @property
    def healthy(self) -> bool:
        """No damaged file, no page row pointing at nothing, no lost body waiting."""
        return not self.damaged and not self.lost and not self.marked.waiting


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
    lost = _lost_rows(rows, {f.name: f for f in files})
    return ArchiveCheck(
        files,
        len(rows),
        lost,
        store.corpus_documents(row.page_id for row, _ in lost),
        store.lost_counts(),
    )


def _lost_rows(rows: list[RecordRow], files: dict[str, FileCheck]) -> list[tuple[RecordRow, str]]:
    """The rows whose record is gone, and why; then those whose payload was only there."""
    lost: list[tuple[RecordRow, str]] = []
    kinds: dict[int, str] = {}
    for row in rows:
        found = files[row.file]
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
    return lost


def repair_archive(root: Path, store: ArchiveStore, found: ArchiveCheck) -> Repair:
    """Repair what `found` says (the module docstring): the lost pages marked, then the
    damaged files cut or moved aside, then the replay index made stale."""
    done = Repair()
    done.marked = store.mark_lost(found.lost)
    done.documents = found.lost_documents
    folder = root / WARC_FOLDER
    for damaged in found.damaged:
        path = folder / damaged.name
        if damaged.missing or not path.exists():
            continue
        torn_tail = (damaged.damage or "").startswith("truncated") and not damaged.wrong
        if torn_tail:
            done.cut.append((damaged.name, repair(path)))
        else:
            aside = _move_aside(path)
            if damaged.good_end:
                _copy_head(aside, path, damaged.good_end)
            kept = sum(1 for offset in damaged.starts if offset < damaged.good_end)
            done.moved.append((damaged.name, str(aside.relative_to(root)), kept))
    (folder / INDEX_FILE).unlink(missing_ok=True)  # written again from the files as they are
    return done


def _move_aside(path: Path) -> Path:
    """Move a damaged file into warc/damaged/ (a free name there); where it went."""
    aside = path.parent / DAMAGED_FOLDER
    aside.mkdir(exist_ok=True)
    target, n = aside / path.name, 1
    while target.exists():
        target, n = aside / f"{path.name}.{n}", n + 1
    os.replace(path, target)
    return target


def _copy_head(source: Path, path: Path, length: int) -> None:
    """The first `length` bytes of `source` as `path` (written whole, then renamed)."""
    with source.open("rb") as src, atomic_write(path, "wb") as out:
        left = length
        while left > 0:
            piece = src.read(min(COPY_PIECE, left))
            if not piece:
                break
            out.write(piece)
            left -= len(piece)
