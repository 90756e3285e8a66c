"""Exporting the corpus: plain text, JSON lines, or a directory of text files.

`export_corpus` is the use case (`collie export`): rows from the workspace
(`CorpusStore.export_rows`, or the suspects), each site's boilerplate learnt over the
whole corpus (`export_sources`), shaped and written; `export_records` yields the objects
a JSON-lines export writes (the Python API's documents); `exported_documents` is the
same corpus with its texts in memory (`collie mininet score`).
By default (`segments="target"`) a document's text is its paragraphs in the target
language (collie.decide.segments: mainly target, headings with their section); the
others are counted, and kept in JSON lines' `paragraphs`; a document with none is left
out. `segments="all"` writes every paragraph (the rule before issue 30).
Every format is written to a temporary file (or directory) beside the target and renamed
into place only when complete, so an interrupted export leaves no partial file behind
and never clobbers an earlier export with half of a new one.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any

from collie.archive.reader import WARC_FOLDER
from collie.corpus.sites import site_labels, with_site_labels
from collie.corpus.tally import tally_fingerprint
from collie.decide.classify import holds_target_text
from collie.decide.dedup import paragraph_key
from collie.decide.segments import mark_segments
from collie.files import atomic_write
from collie.langid.learn import load_model_for
from collie.langid.model import LangModel
from collie.models import ExportRow, Segment
from collie.page.rights import is_open
from collie.store import CorpusStore
from collie.store.tallies import TallyStore
from collie.text import count_words, normal_text
from collie.workspace.folder import Workspace

FORMATS = ("txt", "jsonl", "dir", "warc", "dataset", "sites", "web-languages")
SEGMENTS = ("target", "all")
RIGHTS = ("any", "open")  # --rights: every document, or only the openly licensed ones
SHARDS = ("jsonl", "parquet")  # --shards: a dataset's (parquet: with pyarrow, the extra)
TDM_RESERVED = "tdm-reserved"  # --exclude's name for documents reserving text and data mining


@dataclass
class ExportCount:
    documents: int = 0
    words: int = 0
    site_boilerplate: int = 0  # paragraphs left out as their site's boilerplate
    site_boilerplate_words: int = 0
    repeated: int = 0  # paragraphs found earlier in the corpus (exact, after normalising)
    repeated_words: int = 0
    repeats_removed: bool = False
    other_paragraphs: int = 0  # paragraphs left out as not in the target language
    other_words: int = 0
    no_target: int = 0  # documents left out: not one paragraph in the target language
    too_little_target: int = 0  # left out: fewer than langid.min_target_words target words
    without_record: int = 0  # warc format: documents whose answer the WARC files lack
    # warc format: documents whose record is in a damaged WARC file: file -> (damage, count)
    damaged: dict[str, tuple[str, int]] = field(default_factory=dict)
    sites: int = 0  # a site list's (--format sites, web-languages): its lines
    rights_left_out: int = 0  # documents --rights open or --exclude tdm-reserved left out


@dataclass(frozen=True)
class ExportChoice:
    """Which documents an export writes, and how (the options of `collie export`)."""

    fmt: str = "txt"  # one of FORMATS
    min_share: float = 0.0
    segments: str | None = None  # SEGMENTS; None: "target", "all" for the suspects
    loop: int | None = None
    source: str | None = None  # "search" or "crawl"
    suspects: bool = False  # the relative-suspected pages instead of the corpus
    unique_paragraphs: bool = False
    exclude: tuple[str, ...] = ()  # site labels whose sites' documents are left out
    rights: str = "any"  # RIGHTS: "open" writes only openly licensed documents
    shards: str = "jsonl"  # SHARDS: a dataset's shards, gzip'd JSON lines or Parquet

    @property
    def whole(self) -> bool:
        """Is it a default export (every document, its target-language paragraphs, the
        corpus's repeats kept): the one whose per-loop counts status shows?"""
        return (self.min_share <= 0 and self.segments in (None, "target") and self.loop is None
                and self.source is None and not self.suspects
                and not self.unique_paragraphs and not self.exclude
                and self.rights == "any")  # fmt: skip


@dataclass
class Repeats:
    """Which paragraphs an export leaves out: each site's boilerplate (a paragraph in at
    least `site_min` of the site's documents: trafilatura's idea of text seen on many
    pages of a site, at site level), and with `unique`, every paragraph already written
    earlier in the corpus."""

    site_min: int = 3
    unique: bool = False
    boilerplate: set[tuple[str, int]] = field(default_factory=set)  # (site, paragraph key)
    seen: set[int] = field(default_factory=set)

    def learn(self, rows: Iterable[ExportRow]) -> None:
        """First pass over the export's rows: count each paragraph's documents per site."""
        if not self.site_min:
            return
        counts: Counter[tuple[str, int]] = Counter()
        for row in rows:
            counts.update({(row.site, paragraph_key(text)) for text, _, _ in row.paragraphs})
        self.boilerplate = {key for key, n in counts.items() if n >= self.site_min}

    def filter(self, row: ExportRow, count: ExportCount) -> ExportRow:
        """The row with its site's boilerplate (and, with `unique`, the corpus's repeats)
        left out; counted in `count`."""
        site = row.site
        kept = []
        for paragraph in row.paragraphs:
            key = paragraph_key(paragraph[0])
            words = count_words(paragraph[0])
            if (site, key) in self.boilerplate:
                count.site_boilerplate += 1
                count.site_boilerplate_words += words
                continue
            if key in self.seen:
                count.repeated += 1
                count.repeated_words += words
                if self.unique:
                    continue
            self.seen.add(key)
            kept.append(paragraph)
        return replace(row, paragraphs=kept)


def corpus_repeats(ws: Workspace, unique: bool = False) -> Repeats:
    """The paragraphs an export of the workspace leaves out: each site's boilerplate
    (extract.site_repeats), learnt over all its documents; with `unique`, repeats too."""
    repeats = Repeats(ws.settings["extract.site_repeats"], unique)
    repeats.learn(CorpusStore(ws.db).export_rows())
    return repeats


class Selection:
    """Which paragraphs of a document an export writes: with `segments="target"` those
    `mark_segments` keeps (the target's, headings with their section), with "all"
    every one; with "target", a document whose kept paragraphs hold fewer than
    `min_words` words of running text (langid.min_target_words: classify.holds_target_text)
    is not written. The language model that looks at a code-switched paragraph's sentences
    (`load`: the workspace's; default the bundled one) is loaded when first needed:
    never, when no paragraph needs it."""

    def __init__(
        self,
        target: str,
        segments: str = "target",
        load: Callable[[], LangModel] | None = None,
        min_words: int = 0,
    ) -> None:
        self.target, self.segments, self.min_words = target, segments, min_words
        self._load = load or (lambda: load_model_for(None))
        self._model: LangModel | None = None

    def identify(self, texts: list[str]) -> list[tuple[str, str]]:
        """(language or `und`, nearest language) of each text (mark_segments' Identify)."""
        if self._model is None:
            self._model = self._load()
        return [(code, nearest) for code, _, nearest in self._model.identify_nearest(texts)]

    def mark(self, row: ExportRow) -> list[Segment]:
        """The row's paragraphs, each with its target share and whether it is kept."""
        return mark_segments(row.paragraphs, self.target, self.identify)


@dataclass
class RightsFilter:
    """The documents an export leaves out for their rights: with `open`, those whose page
    states no open licence (collie.page.rights.is_open); with `reserved`, those whose page
    reserves text and data mining. `left_out` counts them."""

    open: bool = False
    reserved: bool = False
    left_out: int = 0

    @classmethod
    def of(cls, choice: ExportChoice) -> RightsFilter:
        return cls(choice.rights == "open", TDM_RESERVED in choice.exclude)

    def __call__(self, rows: Iterable[ExportRow]) -> Iterator[ExportRow]:
        for row in rows:
            if (self.open and not is_open(row.licence)) or (self.reserved and row.tdm):
                self.left_out += 1
                continue
            yield row


def export_sources(
    ws: Workspace, choice: ExportChoice, rights: RightsFilter | None = None
) -> tuple[Iterable[ExportRow], Selection, Repeats | None]:
    """What an export of `choice` reads: the workspace's corpus (or, with
    `choice.suspects`, its relative-suspected pages), which paragraphs of each it
    writes, and which it leaves out as repeats; `rights` (RightsFilter.of(choice)) leaves
    out the documents whose rights the choice refuses."""
    store = CorpusStore(ws.db)
    if choice.suspects:
        rows, repeats = store.suspect_rows(choice.loop), None
    else:
        repeats = corpus_repeats(ws, choice.unique_paragraphs)
        rows = store.export_rows(choice.loop, choice.source, choice.min_share)
        if choice.exclude or choice.fmt in ("jsonl", "dir"):  # a document's site labels
            rows = with_site_labels(rows, site_labels(ws), choice.exclude)
    segments = choice.segments or ("all" if choice.suspects else "target")
    if rights is not None:
        rows = rights(rows)
    return rows, workspace_selection(ws, segments), repeats


def workspace_selection(ws: Workspace, segments: str = "target") -> Selection:
    """The selection of an export of the workspace: its target, its language model and
    langid.min_target_words."""
    return Selection(ws.language.code, segments, ws.model, ws.settings["langid.min_target_words"])


def export_corpus(
    ws: Workspace, out: str, choice: ExportChoice, replace: bool = False
) -> ExportCount:
    """Write what `export_sources` reads to `out` ("-": stdout) as `write_export` does;
    return what was written; a default export's per-loop counts kept for status."""
    fingerprint = tally_fingerprint(ws) if choice.whole else ""  # before anything is read
    rights = RightsFilter.of(choice)
    rows, selection, repeats = export_sources(ws, choice, rights)
    archive = originals = None
    if choice.fmt == "warc":
        archive, originals = ws.root / WARC_FOLDER, CorpusStore(ws.db).warc_originals()
    tally: dict[int, dict[str, int]] | None = {} if choice.whole else None
    count = write_export(
        rows,
        out,
        choice.fmt,
        selection,
        repeats=repeats,
        replace=replace,
        archive=archive,
        originals=originals,
        tally=tally,
    )
    if tally is not None:  # a default export: what status shows of it, kept
        TallyStore(ws.db).keep_tally(fingerprint, tally)
    count.rights_left_out = rights.left_out
    return count


def export_records(ws: Workspace, choice: ExportChoice) -> Iterator[dict[str, Any]]:
    """The objects a JSON-lines export of `choice` writes, one a document, in order (as
    they are before `json.dumps`: the Python API's `Workspace.documents`)."""
    rows, selection, repeats = export_sources(ws, choice, RightsFilter.of(choice))
    count = ExportCount()
    for row, text in export_texts(rows, selection, count, repeats, marked=True):
        yield row.to_json(text)


def exported_documents(ws: Workspace, segments: str = "target") -> list[dict[str, Any]]:
    """The documents an export writes (by default: a default export), each as its JSON
    lines object (`ExportRow.to_json`): its `text` as written (the site's boilerplate
    left out; with "target", only its target-language paragraphs)."""
    fingerprint = tally_fingerprint(ws)  # before anything is read
    rows = CorpusStore(ws.db).export_rows()
    selection = workspace_selection(ws, segments)
    tally: dict[int, dict[str, int]] | None = {} if segments == "target" else None
    written = export_texts(rows, selection, ExportCount(), corpus_repeats(ws), tally=tally)
    documents = [row.to_json(text) for row, text in written]
    if tally is not None:
        TallyStore(ws.db).keep_tally(fingerprint, tally)
    return documents


def document_text(row: ExportRow, selection: Selection) -> str:
    """A document's text: its paragraphs one per line (`segments="target"`: only those
    `Selection.mark` keeps; the row's `segments` when marked already), NFC."""
    paragraphs = [p[0] for p in row.paragraphs]
    if selection.segments == "target":
        marks = row.segments or selection.mark(row)
        paragraphs = [mark.text for mark in marks if mark.kept]
    return "\n".join(line for line in map(normal_text, paragraphs) if line)


def export_texts(
    rows: Iterable[ExportRow],
    selection: Selection,
    count: ExportCount,
    repeats: Repeats | None,
    marked: bool = False,
    tally: dict[int, dict[str, int]] | None = None,
) -> Iterator[tuple[ExportRow, str]]:
    """(row, text) of every document an export writes (empty ones are not), counted, and
    per loop in `tally` if given (`tally_by_loop`). The rows are marked (`segments`:
    `Selection.mark`) for a target export, or with `marked` (JSON lines: each
    paragraph's language)."""
    for row in rows:
        if repeats is not None:
            row = repeats.filter(row, count)
        if marked or selection.segments == "target":
            row = replace(row, segments=selection.mark(row))
        text = document_text(row, selection)
        lacking = thin = False
        if selection.segments == "target":
            marks = row.segments or []
            left = [m.text for m in marks if not m.kept]
            count.other_paragraphs += len(left)
            count.other_words += sum(count_words(p) for p in left)
            lacking = bool(marks) and not text
            thin = bool(text) and not holds_target_text(text.split("\n"), selection.min_words)
            text = "" if thin else text
            count.no_target += lacking
            count.too_little_target += thin
        words = count_words(text) if text else 0
        if tally is not None:
            loop = tally.setdefault(row.loop, dict.fromkeys(TALLY_KEYS, 0))
            loop[row.source] = loop.get(row.source, 0) + bool(text)
            loop["words"] += words
            loop["no_target"] += lacking
            loop["too_little_target"] += thin
        if text:
            count.documents += 1
            count.words += words
            yield row, text


# What `tally_by_loop` counts of each loop.
TALLY_KEYS = ("search", "crawl", "archive", "words", "no_target", "too_little_target")


def tally_by_loop(
    rows: Iterable[ExportRow], selection: Selection, repeats: Repeats | None
) -> dict[int, dict[str, int]]:
    """Per loop: the documents found by search, by crawling and in web archives, and the
    words, that an export of these rows writes (documents left empty by `repeats` are
    not written), `no_target`: the documents left out for want of a target-language
    paragraph, and `too_little_target`: those left out for holding fewer than the
    selection's `min_words` words of running target text."""
    tally: dict[int, dict[str, int]] = {}
    for _ in export_texts(rows, selection, ExportCount(), repeats, tally=tally):
        pass
    return tally


def _write_stream(out: IO[str], fmt: str, items: Iterable[tuple[ExportRow, str]]) -> None:
    first = True
    for row, text in items:
        if fmt == "jsonl":
            out.write(json.dumps(row.to_json(text), ensure_ascii=False) + "\n")
        else:
            out.write(("" if first else "\n") + text + "\n")
        first = False


def _write_dir(folder: Path, items: Iterable[tuple[ExportRow, str]]) -> None:
    with (folder / "manifest.jsonl").open("w", encoding="utf-8") as manifest:
        for row, text in items:
            name = f"{row.id:08d}.txt"
            (folder / name).write_text(text + "\n", encoding="utf-8")
            record = row.to_json(text)
            record.pop("text")
            record.pop("paragraphs")
            manifest.write(json.dumps({"file": name, **record}, ensure_ascii=False) + "\n")


def _write_warc(
    out: IO[bytes],
    items: Iterable[tuple[ExportRow, str]],
    archive: Path,
    originals: dict[str, tuple[str, str, int]],
    count: ExportCount,
    name: str,
) -> None:
    """The corpus's own answers as one WARC file, for publishing with the corpus: a
    warcinfo record, then each document's response record and its request, copied byte
    for byte from the workspace's WARC files (a revisit record comes after the response
    it refers to: the first answer archived with its payload, `originals`). A document
    without a record is counted, not written; so is one whose record is in a damaged
    file (garbled, truncated, missing: `count.damaged`)."""
    from collie.archive.reader import copy_members, damage
    from collie.archive.writer import write_warcinfo

    write_warcinfo(out, name, {"software": "collie", "description": "a collie corpus's answers"})
    copied: set[str] = set()
    for row, text in items:
        record, file, offset = row.warc_record_id, row.warc_file, row.warc_offset
        if not file or record is None or offset is None:  # no record (warc_pointer None)
            count.without_record += 1
            continue
        first = originals.get(row.warc_digest or "")
        wanted = [first] if first else []
        wanted.append((record, file, offset))
        for record_id, file, offset in wanted:
            if record_id in copied:
                continue
            pair = io.BytesIO()  # a record and its companion, written whole or not at all
            try:
                copy_members(archive / file, offset, pair, count=2)
            except (OSError, ValueError):
                what, lost = count.damaged.get(file) or (
                    damage(archive / file) or "no whole record where a page row says",
                    0,
                )
                count.damaged[file] = (what, lost + 1)
                count.documents -= 1  # not written after all
                count.words -= count_words(text)
                break  # the document's answer is lost with its record
            out.write(pair.getvalue())
            copied.add(record_id)


def umask_mode() -> int:
    """The mode a new directory gets under the process's umask: what the temporary
    folder renamed into place must be given (mkdtemp makes 0700; a file's temporary gets
    its mode from collie.files.atomic_write)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o777 & ~mask


def write_export(
    rows: Iterable[ExportRow],
    out: str,
    fmt: str,
    selection: Selection | str,
    segments: str = "target",
    repeats: Repeats | None = None,
    replace: bool = False,
    archive: Path | None = None,
    originals: dict[str, tuple[str, str, int]] | None = None,
    tally: dict[int, dict[str, int]] | None = None,
) -> ExportCount:
    """Write the documents to `out` ("-": stdout) atomically; return what was written.
    `selection` picks each document's paragraphs (a target language's code: its
    `segments`, identified with the bundled model). With `repeats` (learnt from a first
    pass over the same rows), paragraphs are left out as it says. An existing file (or
    non-empty folder) is replaced only with `replace`. The warc format copies records
    from the WARC files in `archive` (`originals`: payload digest -> (record id, file,
    offset) of the answer a revisit record of that payload refers to). `tally` is
    given the per-loop counts of what is written (`tally_by_loop`)."""
    if isinstance(selection, str):
        selection = Selection(selection, segments)
    count = ExportCount(repeats_removed=repeats is not None and repeats.unique)
    items = export_texts(rows, selection, count, repeats, marked=fmt == "jsonl", tally=tally)
    if fmt == "warc":
        folder, known = archive or Path("warc"), originals or {}
        if out == "-":
            _write_warc(sys.stdout.buffer, items, folder, known, count, "-")
            return count
        _write_file(
            Path(out),
            fmt,
            replace,
            lambda handle: _write_warc(handle, items, folder, known, count, Path(out).name),
        )
        return count
    if out == "-":
        _write_stream(sys.stdout, "jsonl" if fmt == "jsonl" else "txt", items)
        return count
    path = Path(out)
    if fmt == "dir":
        check_folder(path, replace)
        write_folder(path, lambda folder: _write_dir(folder, items))
        return count
    _write_file(path, fmt, replace, lambda handle: _write_text(handle, fmt, items))
    return count


def _write_text(handle: IO[bytes], fmt: str, items: Iterable[tuple[ExportRow, str]]) -> None:
    text = io.TextIOWrapper(handle, encoding="utf-8", newline="\n")
    _write_stream(text, fmt, items)
    text.flush()
    text.detach()  # the file is closed by its owner


def _write_file(path: Path, fmt: str, replace: bool, write: Callable[[IO[bytes]], None]) -> None:
    """`write` into a temporary file renamed to `path` once complete (an existing one is
    replaced only with `replace`)."""
    if path.is_dir():
        raise IsADirectoryError(
            f"{path} is a directory; a {fmt} export is one file (--format dir writes a "
            "folder of files)"
        )
    if not replace and (path.exists() or path.is_symlink()):
        raise FileExistsError(f"{path} exists")
    with atomic_write(path) as handle:
        write(handle)


def swap_folder(new: Path, path: Path) -> None:
    """Put the finished folder `new` in the place of `path` (absent, empty, or an
    earlier export, removed only once the new one is in place)."""
    if not path.exists():
        os.replace(new, path)
        return
    if not any(path.iterdir()):
        path.rmdir()
        os.replace(new, path)
        return
    old = new.with_name(new.name + ".old")
    os.replace(path, old)
    os.replace(new, path)
    shutil.rmtree(old, ignore_errors=True)


def check_folder(path: Path, replace: bool) -> None:
    """Refuse a folder to write that exists and holds files (unless `replace`), or that
    is a file."""
    if path.exists() and (not path.is_dir() or (any(path.iterdir()) and not replace)):
        raise FileExistsError(f"{path} exists and is not an empty directory")


def write_folder(path: Path, fill: Callable[[Path], None]) -> None:
    """`fill` a new folder beside `path`, then put it in its place (swap_folder): a
    folder export appears whole or not at all, and an old one is replaced only then."""
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", dir=path.parent))
    try:
        fill(tmp)
        tmp.chmod(umask_mode())
        swap_folder(tmp, path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
