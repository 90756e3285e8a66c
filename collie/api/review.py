"""`collie review`'s use cases apart from serving the page: the stratified sample drawn
(or continued), the audit's figures, the sample written as a TSV for a speaker working
offline, and the judgements of such a file imported."""

from __future__ import annotations

import getpass
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from collie.api.options import Opener
from collie.api.outputs import check_output
from collie.corpus.review.judgements import (
    VERDICTS,
    FileJudgement,
    raise_problems,
    read_judgements,
    write_sample,
)
from collie.corpus.review.results import audit_data, site_label_names
from collie.corpus.review.sample import Candidate, draw_sample, origin_name
from collie.corpus.review.server import ReviewServer
from collie.corpus.status import written_totals
from collie.errors import InputError, UsageProblem
from collie.store import ReviewStore
from collie.workspace.folder import Workspace


@dataclass(frozen=True)
class SampleDrawn:
    """The review sample: its size, and whether it was drawn before (and continued)."""

    size: int
    earlier: bool


def ensure_sample(ws: Workspace, size: int) -> SampleDrawn:
    """The workspace's review sample: drawn now, stratified (collie.corpus.review.sample)
    with run.seed, or the one drawn before, continued; UsageProblem when the corpus has
    no document yet."""
    store = ReviewStore(ws.db)
    existing = store.review_sample_size()
    if existing:
        return SampleDrawn(existing, True)
    candidates = [
        Candidate(doc_id, site, origin_name(loop, scanned))
        for doc_id, site, loop, scanned in store.review_candidates()
    ]
    if not candidates:
        raise UsageProblem("The corpus has no documents to review yet.", "Run `collie run` first.")
    chosen = draw_sample(candidates, size, ws.settings["run.seed"], site_label_names(ws))
    return SampleDrawn(store.add_review_sample(chosen), False)


def review_server(ws: Workspace, reviewer: str, port: int = 0) -> ReviewServer:
    """The review page's server on the workspace's sample (`collie review`), on
    127.0.0.1:`port` (0: a free one); OSError when it cannot listen there."""
    return ReviewServer(
        ReviewStore(ws.db),
        ws.language.display_name,
        reviewer,
        port=port,
        target=ws.language.code,
        site_labels=site_label_names(ws),
    )


def review_results(open_workspace: Opener) -> dict[str, Any]:
    """What `collie review --results --json` prints (collie.corpus.review.audit.audit):
    the judged documents weighed by their stratum's documents in the corpus now."""
    with open_workspace() as ws:
        data = audit_data(ws)
        data["exported_documents"] = written_totals(ws)[0]  # what status counts (issue 58)
        return data


def export_sample(open_workspace: Opener, path: Path, size: int, replace: bool = False) -> int:
    """Write the review sample (drawn first if need be) as a TSV to judge offline
    (collie.corpus.review.judgements); returns its documents."""
    check_output(path, replace)
    with open_workspace() as ws:
        ensure_sample(ws, size)
        rows = [
            {**row, "origin": origin_name(row["loop"], row["scanned"])}
            for row in ReviewStore(ws.db).review_sample()
        ]
    try:
        return write_sample(path, rows)
    except OSError as exc:
        raise InputError(f"Cannot write {path}: {exc.strerror or exc}.") from None


@dataclass(frozen=True)
class Imported:
    """What an import recorded: judgements per label, and rows left without a label."""

    labels: dict[str, int]
    total: int


def import_judgements(open_workspace: Opener, path: Path, reviewer: str | None = None) -> Imported:
    """Record the judgements of a file (collie.corpus.review.judgements) for documents
    of the review sample, in one transaction; an InputError naming each bad line (an
    unknown document, a document twice) and nothing recorded when one is bad."""
    rows, problems = read_judgements(path)
    with open_workspace() as ws:
        store = ReviewStore(ws.db)
        sample = store.review_sample()
        if not sample:
            raise UsageProblem(
                "This workspace has no review sample, so there is nothing to judge.",
                "Draw it first: `collie review --export-sample sample.tsv`, fill in its "
                "label column, and import that file.",
            )
        records = _resolve(path, rows, problems, sample, reviewer or getpass.getuser())
        store.set_judgements(records)
    labels = Counter(label for _, label, _ in records)
    return Imported({v: labels[v] for v in VERDICTS if labels[v]}, len(sample))


def _resolve(
    path: Path,
    rows: list[FileJudgement],
    problems: list[tuple[int, str]],
    sample: list[dict[str, Any]],
    reviewer: str,
) -> list[tuple[int, str, str]]:
    """(document id, label, reviewer) of each row, its document found by id or URL in
    the sample; with the rows' own `problems`, every problem named by its line
    (raise_problems)."""
    by_id = {row["doc_id"]: row for row in sample}
    by_url: dict[str, int] = {}
    for row in sample:
        for url in (row["url"], row["final_url"]):
            if url:
                by_url.setdefault(url, row["doc_id"])
    problems = list(problems)
    seen: dict[int, int] = {}
    records: list[tuple[int, str, str]] = []
    for item in rows:
        doc_id = item.doc_id if item.doc_id is not None else by_url.get(item.url or "")
        if item.doc_id is not None and item.doc_id not in by_id:
            problems.append((item.line, f"document {item.doc_id} is not in the review sample"))
        elif doc_id is None:
            problems.append((item.line, f"no document of the review sample has URL {item.url}"))
        elif item.url and item.url not in (by_id[doc_id]["url"], by_id[doc_id]["final_url"]):
            known = by_id[doc_id]["url"]
            problems.append((item.line, f"document {doc_id} has URL {known}, not {item.url}"))
        elif doc_id in seen:
            problems.append((item.line, f"document {doc_id} again (first on line {seen[doc_id]})"))
        else:
            seen[doc_id] = item.line
            records.append((doc_id, item.label, item.reviewer or reviewer))
    if problems:
        raise_problems(path, problems)
    return records
