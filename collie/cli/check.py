"""`collie check`: the workspace's WARC files checked, and repaired (click only)."""

from __future__ import annotations

import json
from typing import Any

import click

from collie.api.archives import Checked, check_workspace
from collie.cli.options import CONTEXT, App, common_options, note
from collie.errors import CollieError, plural

NEXT = "Run `collie check --repair`, then `collie run --refetch-lost` to fetch them again."


@click.command(context_settings=CONTEXT)
@click.option(
    "--repair",
    is_flag=True,
    help="Cut a torn last record off, move any other damaged file to warc/damaged/ "
    "(its whole records copied back), and mark the pages whose body was lost, so that "
    "`collie run` fetches them again. Nothing is deleted.",
)
@click.option("--json", "as_json", is_flag=True, help="One JSON object on stdout.")
@common_options
@click.pass_obj
def check(app: App, repair: bool, as_json: bool) -> None:
    """Check the workspace's WARC files, the only copy of the pages' bodies: every gzip
    member whole, every record's digests right (as `warcio check` does), and every page
    row's record where the row says. Names each damaged file (truncated, garbled,
    unreadable, missing) and the pages and corpus documents that lost their body (the
    corpus text itself is in collie.db; reprocess, export --format warc and replay
    need the bodies).

    Exits 1 while a file is damaged or a lost page waits to be fetched again.

    \b
    Example:
      collie check
      collie check --repair && collie run --refetch-lost
    """
    checked = check_workspace(app.open, repair)
    if as_json:
        click.echo(json.dumps(_json(checked), ensure_ascii=False, indent=2))
    elif not app.quiet or not checked.healthy:
        for line in _lines(checked):
            note(line)
    if not checked.healthy:
        raise CollieError(
            "the workspace's WARC files are damaged or pages have lost their body (above).",
            NEXT if checked.repaired is None else "Run `collie run --refetch-lost`.",
        )


def _lines(checked: Checked) -> list[str]:
    found = checked.found
    lines = [f"warc/{f.name}: {f.words()}" for f in found.files]
    if not found.files:
        lines.append("No WARC files (warc/): nothing to check.")
    lines.append(f"{plural(found.rows, 'page row points', 'page rows point')} at a record.")
    if found.lost:
        lines.append(
            f"{plural(len(found.lost), 'page', 'pages')} lost the only copy of their body, "
            f"{plural(found.lost_documents, 'corpus document', 'corpus documents')} among "
            "them (their text is kept in collie.db)."
        )
    if found.moved:
        lines.append(
            f"{plural(len(found.moved), 'page row points', 'page rows point')} at a record "
            "that is whole at another offset of its file"
            + (
                " (the rows follow it now)."
                if checked.repaired
                else ": `--repair` points them at it."
            )
        )
    done = checked.repaired
    if done is not None:
        lines += [f"warc/{name}: cut {n:,} bytes of a torn record off" for name, n in done.cut]
        lines += [
            f"warc/{name}: moved to {to}; "
            + (f"its {plural(n, 'whole record', 'whole records')} copied back" if n else "")
            + ("nothing in it to copy back" if not n else "")
            for name, to, n in done.moved
        ]
        lines.append(f"{plural(done.marked, 'page', 'pages')} marked to be fetched again.")
    marked = found.marked
    if marked.waiting:
        lines.append(
            f"{plural(marked.waiting, 'page waits', 'pages wait')} to be fetched again "
            "(`collie run --refetch-lost`)."
        )
    if marked.failed:
        lines.append(
            f"{plural(marked.failed, 'lost page', 'lost pages')} could not be fetched again; "
            "`collie run --refetch-lost` tries once more."
        )
    if checked.healthy and done is not None:
        lines.append("Every WARC file is whole now.")
    elif checked.healthy:
        lines.append("Every WARC file is whole and every page row's record is there.")
    return lines


def _json(checked: Checked) -> dict[str, Any]:
    found, done = checked.found, checked.repaired
    return {
        "healthy": checked.healthy,
        "files": [
            {
                "file": f.name,
                "whole": f.whole,
                "damage": None if f.whole else f.words(),
                "records": f.records,
                "size": f.size,
            }
            for f in found.files
        ],
        "page_rows": found.rows,
        "lost_pages": len(found.lost),
        "lost_documents": found.lost_documents,
        "moved_rows": len(found.moved),
        "repaired": None
        if done is None
        else {
            "cut": dict(done.cut),
            "moved": {n: to for n, to, _ in done.moved},
            "marked": done.marked,
        },
        "waiting": found.marked.waiting,
        "refetch_failed": found.marked.failed,
    }
