"""Judgements in a file: the sample written as a TSV for a speaker working offline or in
a spreadsheet (`collie review --export-sample`), and such a file read back (`--import`).

The file has a header row; the columns are found by name, in any order: `doc_id` (or
`url`), `label` (mainly, some, none or skip; empty: not judged yet) and, optionally,
`reviewer`; other columns (the text, the title, ...) are ignored. One document a line:
the exported text has its line breaks and tabs written as " ¶ " and spaces.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from collie.corpus.review import LABELS
from collie.errors import InputError
from collie.files import atomic_write

COLUMNS = ("doc_id", "label", "reviewer", "url", "site", "origin", "title", "text")
VERDICTS = (*LABELS, "skip")
MAX_TEXT = 30_000  # a spreadsheet cell holds 32,767 characters
SHOWN = 10  # problems a failed import names


@dataclass(frozen=True)
class FileJudgement:
    """One row of a judgements file that carries a label."""

    line: int
    doc_id: int | None
    url: str | None
    label: str
    reviewer: str | None


def _one_line(text: str) -> str:
    flat = " ¶ ".join(part.strip() for part in text.splitlines() if part.strip())
    flat = flat.replace("\t", " ")
    return flat if len(flat) <= MAX_TEXT else flat[: MAX_TEXT - 6] + " [...]"


def write_sample(path: Path, rows: Iterable[dict[str, Any]]) -> int:
    """Write the sample (dicts with COLUMNS' keys) as a TSV, whole or not at all, one
    document a line, the label column as judged so far (empty where not); returns the
    rows written."""
    count = 0
    with atomic_write(path, "w", newline="") as handle:
        out = csv.writer(handle, delimiter="\t", lineterminator="\n")
        out.writerow(COLUMNS)
        for row in rows:
            values = {**row, **{k: _one_line(row.get(k) or "") for k in ("title", "text")}}
            out.writerow(["" if values.get(c) is None else values[c] for c in COLUMNS])
            count += 1
    return count


def read_judgements(path: Path) -> tuple[list[FileJudgement], list[tuple[int, str]]]:
    """The labelled rows of a judgements file (empty labels: not judged, left out), and
    the bad rows: (line, what is wrong) each; an InputError for a file that cannot be
    read or has no usable header."""
    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            rows = list(csv.reader(handle, delimiter="\t"))
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{path} is not UTF-8 text (byte {exc.start}).",
            "Save it from the spreadsheet as UTF-8 tab-separated text.",
        ) from None
    except OSError as exc:
        raise InputError(f"Cannot read {path}: {exc.strerror or exc}.") from None
    if not rows:
        raise InputError(f"{path} is empty.", _HEADER_HINT)
    where = _header(path, rows[0])
    found: list[FileJudgement] = []
    problems: list[tuple[int, str]] = []
    for number, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        try:
            judgement = _judgement(number, row, where)
        except ValueError as exc:
            problems.append((number, str(exc)))
            continue
        if judgement is not None:
            found.append(judgement)
    return found, problems


_HEADER_HINT = (
    "The first line names the columns, tab-separated: doc_id (or url), label and, if you "
    "like, reviewer (`collie review --export-sample FILE` writes such a file)."
)


def _header(path: Path, header: Sequence[str]) -> dict[str, int]:
    names = [cell.strip().lower() for cell in header]
    known = ("doc_id", "url", "label", "reviewer")
    where: dict[str, int] = {name: names.index(name) for name in known if name in names}
    if "label" not in where or not ({"doc_id", "url"} & set(where)):
        raise InputError(
            f"line 1 of {path} has no label column and no doc_id or url column "
            f"(its columns: {', '.join(names) or 'none'}).",
            _HEADER_HINT,
        )
    return where


def _cell(row: Sequence[str], where: dict[str, int], name: str) -> str:
    index = where.get(name)
    return row[index].strip() if index is not None and index < len(row) else ""


def _judgement(number: int, row: Sequence[str], where: dict[str, int]) -> FileJudgement | None:
    """The row's judgement (None: no label yet); ValueError saying what is wrong."""
    label = _cell(row, where, "label").lower()
    if not label:
        return None
    if label not in VERDICTS:
        raise ValueError(f"label {label!r} is not one of {', '.join(VERDICTS)}")
    raw_id, url = _cell(row, where, "doc_id"), _cell(row, where, "url")
    if not raw_id and not url:
        raise ValueError("no doc_id and no url: which document is judged?")
    doc_id = None
    if raw_id:
        if not raw_id.isdigit():
            raise ValueError(f"doc_id {raw_id!r} is not a document number")
        doc_id = int(raw_id)
    reviewer = _cell(row, where, "reviewer") or None
    return FileJudgement(number, doc_id, url or None, label, reviewer)


def raise_problems(path: Path, problems: Sequence[tuple[int, str]]) -> None:
    """One InputError naming every problem (line, what is wrong; the first SHOWN by
    line) of a judgements file."""
    shown = [f"  line {line}: {text}" for line, text in sorted(problems)[:SHOWN]]
    if len(problems) > SHOWN:
        shown.append(f"  ... and {len(problems) - SHOWN} more")
    raise InputError(
        f"{path}: {len(problems)} bad {'row' if len(problems) == 1 else 'rows'}; nothing "
        "was imported:\n" + "\n".join(shown),
        "Correct them and import the file again (the rows without a label are left out).",
    )
