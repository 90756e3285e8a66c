"""`collie.Workspace`, `collie.init` and `collie.scan`: a workspace folder and what the
commands do to it, for Python (docs/api.md).

Each method opens the workspace, does what its command does through the same function
(collie/api/: mine.py, archives.py, corpus.py, langid.py) and closes it: nothing is held
open between calls, and a workspace is never opened at import.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from collie.api.archives import Checked, check_workspace, reprocess_workspace, scan_archives
from collie.api.corpus import (
    export_choice,
    export_to,
    iter_documents,
    workspace_report,
    workspace_status,
)
from collie.api.create import create_workspace
from collie.api.langid import Identification, identify_with, language_model
from collie.api.mine import mine
from collie.api.options import Notes, Opener, PathLike, as_flags, log_note, workspace_root
from collie.api.review import review_results
from collie.corpus.export import ExportCount
from collie.mining.records import RunEvents, RunReport
from collie.mining.refetch import RefetchReport
from collie.mining.reprocess import ReprocessReport
from collie.mining.scan import ScanReport
from collie.workspace.folder import open_workspace


class Workspace:
    """A collie workspace folder. `settings` ({key: value}) overrides its settings for
    every call (the strongest layer, as `--set`); a call's own `settings` and keyword
    arguments override those."""

    def __init__(self, path: PathLike, settings: Mapping[str, Any] | None = None) -> None:
        self.root = workspace_root(path)
        self.overrides = dict(settings or {})
        as_flags(self.overrides)  # an unknown key or a bad value is an error now

    def __repr__(self) -> str:
        return f"collie.Workspace({str(self.root)!r})"

    def _opener(
        self,
        settings: Mapping[str, Any] | None = None,
        named: Mapping[str, tuple[str, Any]] | None = None,
    ) -> Opener:
        """How a use case opens this workspace, with these overrides over the
        workspace's own."""
        flags = {**as_flags(self.overrides), **as_flags(settings, named)}
        return lambda: open_workspace(self.root, os.environ, flags)

    def status(self) -> dict[str, Any]:
        """What `collie status --json` prints: the language, the settings that differ
        from the defaults, the seed documents, the search, each loop's counts."""
        return workspace_status(self._opener())

    def run(
        self,
        loops: int | None = None,
        *,
        queries: int | None = None,
        seeds: int | None = None,
        crawl_depth: int | None = None,
        max_pages: int | None = None,
        max_time: float | None = None,
        settings: Mapping[str, Any] | None = None,
        events: RunEvents | None = None,
        notes: Notes = log_note,
    ) -> RunReport:
        """What `collie run` does: bring the workspace to `loops` completed loops in
        all (default: run.loops), resuming where an earlier run stopped. The keyword
        arguments are the command's options (`max_pages=` is `--max-pages`); `events`
        hears the progress and the lines the command prints, `notes` the rest."""
        named = {
            "loops": ("run.loops", loops),
            "queries": ("queries.count", queries),
            "seeds": ("seeds.count", seeds),
            "crawl_depth": ("crawl.depth", crawl_depth),
            "max_pages": ("run.max_pages", max_pages),
            "max_time": ("run.max_time", max_time),
        }
        return mine(self._opener(settings, named), events, notes).report

    def reprocess(self, threads: int = 1, events: RunEvents | None = None) -> ReprocessReport:
        """Process the fetched pages again from the WARC files, with the workspace's
        settings and model of now (`collie reprocess`; docs/reprocess.md)."""
        return reprocess_workspace(self._opener(), threads, events, log_note)

    def report(self) -> dict[str, Any]:
        """What `collie report --json` prints: per loop queries, pages and documents,
        the languages fetched, the best sites and queries, the review's audit."""
        return workspace_report(self._opener())

    def review_results(self) -> dict[str, Any]:
        """What `collie review --results --json` prints: the judged documents weighed by
        their stratum's documents in the corpus now."""
        return review_results(self._opener())

    def check(self, repair: bool = False) -> Checked:
        """What `collie check` does: the WARC files checked against the page rows
        (`.healthy`, each file's damage, the pages that lost their body); with `repair`,
        the damage cut or moved aside and the lost pages marked for `refetch_lost`."""
        return check_workspace(self._opener(), repair)

    def refetch_lost(self, events: RunEvents | None = None) -> RefetchReport | None:
        """What `collie run --refetch-lost` does: the pages a repair marked as lost
        fetched again, politely (None when there are none)."""
        return mine(self._opener(), events, log_note, refetch_lost=True).refetched

    def scan(
        self,
        files: PathLike | Iterable[PathLike],
        *,
        base: str = "",
        prefilter: bool = True,
        threads: int = 1,
        settings: Mapping[str, Any] | None = None,
        events: RunEvents | None = None,
        notes: Notes = log_note,
    ) -> ScanReport:
        """What `collie scan FILES` does: web-archive files (WARC or WET files, globs,
        URLs, Common Crawl paths files under `base`) mined for the workspace's language,
        into its open loop; files scanned before are skipped."""
        opener = self._opener(settings)
        return scan_archives(opener, _paths(files), base, prefilter, threads, events, notes)

    def documents(
        self,
        *,
        min_share: float = 0.0,
        segments: str | None = None,
        loop: int | None = None,
        source: str | None = None,
        suspects: bool = False,
        unique_paragraphs: bool = False,
        exclude: Iterable[str] = (),
        rights: str = "any",
    ) -> Iterator[dict[str, Any]]:
        """The documents, as `collie export --format jsonl` writes them: one dict a
        document (url, title, text, paragraphs, its `licence`, `tdm_reserved` and
        `langid` provenance...: the same keys, rows and order), with the export's options
        (`rights="open"`: openly licensed documents only; `exclude`: site labels and
        "tdm-reserved")."""
        choice = export_choice(
            "jsonl",
            min_share,
            segments,
            loop,
            source,
            suspects,
            unique_paragraphs,
            exclude,
            rights,
        )
        return iter_documents(self._opener(), choice)

    def export(
        self,
        out: PathLike,
        *,
        format: str = "txt",
        min_share: float = 0.0,
        segments: str | None = None,
        loop: int | None = None,
        source: str | None = None,
        suspects: bool = False,
        unique_paragraphs: bool = False,
        exclude: Iterable[str] = (),
        rights: str = "any",
        shards: str = "jsonl",
        replace: bool = False,
    ) -> ExportCount:
        """What `collie export OUT` does: the corpus written to `out` atomically ("-":
        stdout); an existing `out` is replaced only with `replace`. Returns the counts
        (`rights_left_out`: the documents `rights` and `exclude` left out; `shards`:
        format="dataset"'s, "jsonl" or "parquet")."""
        choice = export_choice(
            format,
            min_share,
            segments,
            loop,
            source,
            suspects,
            unique_paragraphs,
            exclude,
            rights,
            shards,
        )
        return export_to(self._opener(), os.fspath(out), choice, replace)

    def identify(self, text: str) -> Identification:
        """The language of `text` by the workspace's model and settings (`collie langid
        identify` run in the workspace)."""
        model = language_model(self.root, None, as_flags(self.overrides))
        return identify_with(model, [text])[0]


def init(
    path: PathLike,
    lang: str,
    docs: PathLike | Iterable[PathLike] = (),
    *,
    wronglang: PathLike | Iterable[PathLike] = (),
    seed_words: PathLike | None = None,
    encoding: str | None = None,
    force: bool = False,
    settings: Mapping[str, Any] | None = None,
    notes: Notes = log_note,
) -> Workspace:
    """What `collie init` does: make `path` a workspace for `lang` (a code or a name)
    from the seed documents `docs` (files or folders), wrong-language text `wronglang`
    (`[CODE=]PATH` each), or a seed-word file; `settings` are written into its
    collie.toml. Returns the new workspace."""
    root = Path(path).expanduser().resolve()
    create_workspace(
        root,
        lang,
        [Path(p) for p in _paths(docs)],
        _paths(wronglang),
        Path(seed_words) if seed_words is not None else None,
        encoding,
        force,
        as_flags(settings),
        notes,
    )
    return Workspace(root)


def scan(
    workspace: Workspace | PathLike,
    files: PathLike | Iterable[PathLike],
    *,
    base: str = "",
    prefilter: bool = True,
    threads: int = 1,
    settings: Mapping[str, Any] | None = None,
    events: RunEvents | None = None,
    notes: Notes = log_note,
) -> ScanReport:
    """What `collie scan FILES` does in `workspace` (`Workspace.scan`)."""
    if not isinstance(workspace, Workspace):
        workspace = Workspace(workspace)
    return workspace.scan(
        files, base=base, prefilter=prefilter, threads=threads, settings=settings,
        events=events, notes=notes,
    )  # fmt: skip


def _paths(given: PathLike | Iterable[PathLike]) -> list[str]:
    """One path, or several, as strings."""
    if isinstance(given, (str, os.PathLike)):
        return [os.fspath(given)]
    return [os.fspath(p) for p in given]
