"""What a workspace holds and what a user takes away: its status (`collie status`), its
documents (the objects `collie export --format jsonl` writes) and its export (`collie
export`)."""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from collie.api.options import Opener
from collie.api.outputs import check_output
from collie.corpus import status as corpus_status
from collie.corpus.dataset import export_dataset
from collie.corpus.export import (
    FORMATS,
    RIGHTS,
    SEGMENTS,
    SHARDS,
    TDM_RESERVED,
    ExportChoice,
    ExportCount,
    export_corpus,
    export_records,
)
from collie.corpus.sites import SITE_FORMATS, site_entries, write_sites
from collie.decide.sitelabels import LABELS
from collie.errors import InputError, UsageProblem, unreadable_file_error
from collie.workspace.folder import Workspace

if TYPE_CHECKING:  # types only: the opener hands it in
    from collie.workspace.folder import Workspace

SOURCES = ("search", "crawl", "archive")


def workspace_status(open_workspace: Opener) -> dict[str, Any]:
    """What `collie status --json` prints (collie.corpus.status.status_data)."""
    with open_workspace() as ws:
        return corpus_status.status_data(ws)


def workspace_report(open_workspace: Opener) -> dict[str, Any]:
    """What `collie report --json` prints (collie.corpus.status.report_data)."""
    with open_workspace() as ws:
        return corpus_status.report_data(ws)


def export_choice(
    fmt: str = "jsonl",
    min_share: float = 0.0,
    segments: str | None = None,
    loop: int | None = None,
    source: str | None = None,
    suspects: bool = False,
    unique_paragraphs: bool = False,
    exclude: Iterable[str] = (),
    rights: str = "any",
    shards: str = "jsonl",
) -> ExportChoice:
    """The options of `collie export`, checked as the command line checks them
    (`exclude`: site labels and `tdm-reserved`; `rights`: any, or open; `shards`: a
    dataset's, jsonl or parquet)."""
    _check_choice("format", fmt, FORMATS)
    _check_choice("segments", segments, SEGMENTS)
    _check_choice("source", source, SOURCES)
    _check_choice("rights", rights, RIGHTS)
    _check_choice("shards", shards, SHARDS)
    if shards != "jsonl" and fmt != "dataset":
        raise UsageProblem(f"shards is for the dataset format, not {fmt!r}.")
    left_out = (exclude,) if isinstance(exclude, str) else tuple(exclude)
    for name in left_out:
        _check_choice("exclude", name, (*LABELS, TDM_RESERVED))
    if not (math.isfinite(min_share) and 0 <= min_share <= 1):
        raise UsageProblem(f"min_share must be a number from 0 to 1, not {min_share!r}.")
    if loop is not None and loop < 1:
        raise UsageProblem(f"loop must be 1 or more, not {loop!r}.")
    choice = ExportChoice(fmt, min_share, segments, loop, source, suspects, unique_paragraphs)
    return dataclasses.replace(choice, exclude=left_out, rights=rights, shards=shards)


def _check_choice(name: str, value: str | None, choices: tuple[str, ...]) -> None:
    if value is not None and value not in choices:
        raise UsageProblem(f"{name} must be one of {', '.join(choices)}, not {value!r}.")


def check_loop(ws: Workspace, loop: int | None) -> None:
    """A UsageProblem naming the loops the workspace has when `loop` is none of them
    (an export of a loop that does not exist would be empty: nothing is written)."""
    numbers = [row.number for row in ws.records.loops()]
    if loop is None or loop in numbers:
        return
    if not numbers:
        raise UsageProblem(
            f"The workspace has no loop {loop}: it has no loop yet; nothing was written.",
            "`collie run` mines the first loop; leave --loop out to export what there is.",
        )
    have = ", ".join(map(str, numbers)) if len(numbers) <= 10 else f"{numbers[0]} to {numbers[-1]}"
    raise UsageProblem(
        f"The workspace has no loop {loop}: its loops are {have}; nothing was written.",
        f"Give --loop one of them (e.g. --loop {numbers[-1]}), or leave --loop out for all.",
    )


def iter_documents(open_workspace: Opener, choice: ExportChoice) -> Iterator[dict[str, Any]]:
    """The objects a JSON-lines export of `choice` writes, one a document, in the
    export's order; the workspace stays open until the last one is read."""
    with open_workspace() as ws:
        check_loop(ws, choice.loop)
        yield from export_records(ws, choice)


def export_to(
    open_workspace: Opener, out: str, choice: ExportChoice, replace: bool = False
) -> ExportCount:
    """What `collie export OUT` does: check where it may write (never a workspace's own
    files; an existing OUT only with `replace`), then write it atomically ("-": stdout)."""
    if out != "-":
        check_output(Path(out), replace, folder=choice.fmt in ("dir", "dataset"))
    with open_workspace() as ws:
        check_loop(ws, choice.loop)
        try:
            if choice.fmt in SITE_FORMATS:
                return export_site_list(ws, out, choice.fmt, replace)
            if choice.fmt == "dataset":
                data = corpus_status.report_data(ws)  # the card's figures, read first
                return export_dataset(ws, out, choice, replace, data)
            return export_corpus(ws, out, choice, replace)
        except FileExistsError:
            raise InputError(
                f"{out} already exists; nothing was written.",
                "Add --force to replace it, or choose another name.",
            ) from None
        except (FileNotFoundError, NotADirectoryError) as exc:
            raise InputError(
                f"Cannot write {out}: {exc}.",
                "Give a path in an existing directory.",
            ) from None
        except IsADirectoryError as exc:
            raise InputError(
                f"Cannot write {out}: {exc}.",
                f"Give a file name (e.g. {Path(out) / 'corpus.txt'}), or --format dir.",
            ) from None
        except PermissionError as exc:
            name = Path(os.fsdecode(exc.filename)) if exc.filename else None
            if name is not None and name.exists() and not os.access(name, os.R_OK):
                raise unreadable_file_error(name) from exc  # a WARC file, not OUT
            raise InputError(
                f"Cannot write {out}: permission denied ({exc.filename or out}).",
                "Choose a folder you can write to.",
            ) from None


def export_site_list(ws: Workspace, out: str, fmt: str, replace: bool = False) -> ExportCount:
    """The verified site list (collie.corpus.sites) to `out`; the count holds its sites
    (`sites`), their documents and words."""
    entries = site_entries(ws)
    language = (ws.language.code, ws.language.name)
    write_sites(entries, out, fmt, language, replace)
    return ExportCount(
        documents=sum(e.documents for e in entries),
        words=sum(e.words for e in entries),
        sites=len(entries),
    )
