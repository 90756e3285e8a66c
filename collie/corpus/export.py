"""Exporting the corpus: plain text, JSON lines, or a directory of text files.

`export_corpus` is the use case (`collie export`): rows from the workspace
(`CorpusStore.export_rows`, or the suspects), each site's boilerplate learnt over the
whole corpus, shaped and written; `exported_documents` is the same corpus with its texts
in memory (`collie mininet score`).
Every format is written to a temporary file (or directory) beside the target and renamed
into place only when complete, so an interrupted export leaves no partial file behind
and never clobbers an earlier export with half of a new one.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import sys
import tempfile
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from collie.decide.dedup import paragraph_key
from collie.store import CorpusStore
from collie.text import count_words
from collie.workspace.folder import Workspace

FORMATS = ("txt", "jsonl", "dir")


@dataclass
class ExportCount:
    documents: int = 0
    words: int = 0
    site_boilerplate: int = 0  # paragraphs left out as their site's boilerplate
    site_boilerplate_words: int = 0
    repeated: int = 0  # paragraphs found earlier in the corpus (exact, after normalising)
    repeated_words: int = 0
    repeats_removed: bool = False


@dataclass(frozen=True)
class ExportChoice:
    """Which documents an export writes, and how (the options of `collie export`)."""

    fmt: str = "txt"  # one of FORMATS
    min_share: float = 0.0
    segments: str = "all"  # "target": only the paragraphs identified as the target
    loop: int | None = None
    source: str | None = None  # "search" or "crawl"
    suspects: bool = False  # the relative-suspected pages instead of the corpus
    unique_paragraphs: bool = False


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

    def learn(self, rows: Iterable[dict[str, Any]]) -> None:
        """First pass over the export's rows: count each paragraph's documents per site."""
        if not self.site_min:
            return
        counts: Counter[tuple[str, int]] = Counter()
        for row in rows:
            site = row.get("site") or ""
            counts.update({(site, paragraph_key(text)) for text, _, _ in row["paragraphs"]})
        self.boilerplate = {key for key, n in counts.items() if n >= self.site_min}

    def filter(self, row: dict[str, Any], count: ExportCount) -> dict[str, Any]:
        """The row with its site's boilerplate (and, with `unique`, the corpus's repeats)
        left out; counted in `count`."""
        site = row.get("site") or ""
        kept = []
        for paragraph in row["paragraphs"]:
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
        return {**row, "paragraphs": kept}


def corpus_repeats(ws: Workspace, unique: bool = False) -> Repeats:
    """The paragraphs an export of the workspace leaves out: each site's boilerplate
    (extract.site_repeats), learnt over all its documents; with `unique`, repeats too."""
    repeats = Repeats(ws.settings["extract.site_repeats"], unique)
    repeats.learn(CorpusStore(ws.conn).export_rows())
    return repeats


def export_corpus(
    ws: Workspace, out: str, choice: ExportChoice, replace: bool = False
) -> ExportCount:
    """Write the workspace's corpus (or, with `choice.suspects`, its relative-suspected
    pages) to `out` ("-": stdout) as `write_export` does; return what was written."""
    store = CorpusStore(ws.conn)
    if choice.suspects:
        rows, repeats = store.suspect_rows(choice.loop), None
    else:
        repeats = corpus_repeats(ws, choice.unique_paragraphs)
        rows = store.export_rows(choice.loop, choice.source, choice.min_share)
    return write_export(rows, out, choice.fmt, ws.language.code, choice.segments, repeats, replace)


def exported_documents(ws: Workspace) -> list[dict[str, Any]]:
    """The documents a default export writes, each an export row with its `text` as
    written (the site's boilerplate left out)."""
    rows = CorpusStore(ws.conn).export_rows()
    written = export_texts(rows, ws.language.code, "all", ExportCount(), corpus_repeats(ws))
    return [{**row, "text": text} for row, text in written]


def document_text(row: dict[str, Any], target: str, segments: str) -> str:
    """A document's text: its paragraphs one per line (`segments="target"`: only the
    paragraphs identified as the target language), NFC."""
    paragraphs = row["paragraphs"]
    if segments == "target":
        kept = [text for text, lang, _ in paragraphs if lang == target]
    else:
        kept = [text for text, _, _ in paragraphs]
    lines = [" ".join(p.split()) for p in kept]
    return unicodedata.normalize("NFC", "\n".join(line for line in lines if line))


def iso_time(stamp: float | None) -> str | None:
    """A Unix time as ISO 8601 in UTC, as `collie status` prints times."""
    if stamp is None:
        return None
    return dt.datetime.fromtimestamp(stamp, dt.timezone.utc).isoformat(timespec="seconds")


def json_record(row: dict[str, Any], text: str) -> dict[str, Any]:
    """The jsonl object of one document."""
    return {
        "id": row["id"],
        "url": row["url"],
        "final_url": row["final_url"] or row["url"],
        "title": row["title"],
        "loop": row["loop"],
        "source": row["source"],
        "depth": row["depth"],
        "query": row["query"],
        "referrer": row["referrer"],
        "language": row["lang"],
        "probability": row["lang_prob"],
        "target_share": row["target_share"],
        "words": count_words(text),
        "encoding": row["encoding"],
        "encoding_method": row["encoding_method"],
        "fetched_at": iso_time(row["fetched_at"]),
        "simhash": row["simhash"],
        "text": text,
        **({"suspected": row["level"], "pass_share": row["pass_share"]} if "level" in row else {}),
    }


def export_texts(
    rows: Iterable[dict[str, Any]],
    target: str,
    segments: str,
    count: ExportCount,
    repeats: Repeats | None,
) -> Iterator[tuple[dict[str, Any], str]]:
    """(row, text) of every document an export writes (empty ones are not), counted."""
    for row in rows:
        if repeats is not None:
            row = repeats.filter(row, count)
        text = document_text(row, target, segments)
        if text:
            count.documents += 1
            count.words += count_words(text)
            yield row, text


def tally_by_loop(
    rows: Iterable[dict[str, Any]], target: str, repeats: Repeats | None
) -> dict[int, dict[str, int]]:
    """Per loop: the documents found by search and by crawling, and the words, that an
    export of these rows writes (documents left empty by `repeats` are not written)."""
    out: dict[int, dict[str, int]] = {}
    for row, text in export_texts(rows, target, "all", ExportCount(), repeats):
        loop = out.setdefault(row["loop"], {"search": 0, "crawl": 0, "words": 0})
        loop[row["source"]] = loop.get(row["source"], 0) + 1
        loop["words"] += count_words(text)
    return out


def _write_stream(out: IO[str], fmt: str, items: Iterable[tuple[dict[str, Any], str]]) -> None:
    first = True
    for row, text in items:
        if fmt == "jsonl":
            out.write(json.dumps(json_record(row, text), ensure_ascii=False) + "\n")
        else:
            out.write(("" if first else "\n") + text + "\n")
        first = False


def _write_dir(folder: Path, items: Iterable[tuple[dict[str, Any], str]]) -> None:
    with (folder / "manifest.jsonl").open("w", encoding="utf-8") as manifest:
        for row, text in items:
            name = f"{row['id']:08d}.txt"
            (folder / name).write_text(text + "\n", encoding="utf-8")
            record = json_record(row, text)
            record.pop("text")
            manifest.write(json.dumps({"file": name, **record}, ensure_ascii=False) + "\n")


def umask_mode(directory: bool = False) -> int:
    """The mode a new file (or directory) gets under the process's umask: what a
    temporary file renamed into place must be given (mkstemp makes 0600, mkdtemp 0700)."""
    mask = os.umask(0)
    os.umask(mask)
    return (0o777 if directory else 0o666) & ~mask


def write_export(
    rows: Iterable[dict[str, Any]],
    out: str,
    fmt: str,
    target: str,
    segments: str = "all",
    repeats: Repeats | None = None,
    replace: bool = False,
) -> ExportCount:
    """Write the documents to `out` ("-": stdout) atomically; return what was written.
    With `repeats` (learnt from a first pass over the same rows), paragraphs are left out
    as it says. An existing file (or non-empty folder) is replaced only with `replace`."""
    count = ExportCount(repeats_removed=repeats is not None and repeats.unique)
    items = export_texts(rows, target, segments, count, repeats)
    if out == "-":
        _write_stream(sys.stdout, "jsonl" if fmt == "jsonl" else "txt", items)
        return count
    path = Path(out)
    if fmt == "dir":
        if path.exists() and (not path.is_dir() or (any(path.iterdir()) and not replace)):
            raise FileExistsError(f"{path} exists and is not an empty directory")
        tmp_dir = Path(tempfile.mkdtemp(prefix=f".{path.name}.", dir=path.parent))
        try:
            _write_dir(tmp_dir, items)
            tmp_dir.chmod(umask_mode(directory=True))
            _swap_folder(tmp_dir, path)
        except BaseException:
            shutil.rmtree(tmp_dir, ignore_errors=True)
            raise
        return count
    if path.is_dir():
        raise IsADirectoryError(
            f"{path} is a directory; a {fmt} export is one file (--format dir writes a "
            "folder of files)"
        )
    if not replace and (path.exists() or path.is_symlink()):
        raise FileExistsError(f"{path} exists")
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            _write_stream(handle, fmt, items)
        os.chmod(tmp_name, umask_mode())
        os.replace(tmp_name, path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    return count


def _swap_folder(new: Path, path: Path) -> None:
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
