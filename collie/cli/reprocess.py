"""`collie reprocess`: the cached pages through extraction, language ID and
near-duplicates again (click only: parse, open, call, print)."""

from __future__ import annotations

from typing import Any

import click

from collie.api.archives import reprocess_workspace
from collie.api.options import no_note
from collie.cli.executor import executor_options
from collie.cli.options import CONTEXT, App, common_options, note
from collie.cli.progress import CliEvents
from collie.errors import ArchiveDamaged, plural
from collie.mining.reprocess import ReprocessReport


@click.command("reprocess", context_settings=CONTEXT)
@click.option(
    "--threads",
    type=click.IntRange(1),
    default=1,
    show_default=True,
    help="Threads of the local executor.",
)
@executor_options
@common_options
@click.pass_obj
def reprocess_command(app: App, threads: int, **_options: Any) -> None:
    """Process the fetched pages again from the workspace's WARC files: decoding,
    extraction, language ID and near-duplicates, with today's settings and language
    model, without the network. (A workspace from before WARC files has its body cache
    moved into them first; with warc.keep none the pages are read from cache/.)

    Rewrites in collie.db, in one transaction (interrupted: nothing changes): each
    cached page's outcome, encoding, title, language and text length; its document,
    updated in place (ids and review judgements kept), added or removed; every
    near-duplicate decision (in document order); the sites' counts. The frontier,
    links, queries, fetch facts and pages dropped before their text was kept stay as
    they are. Run it after changing extract.*, encoding.*, langid.* or dedup.*
    settings, or the model; it refuses to run beside `collie run`.

    \b
    Example:
      collie reprocess --set langid.min_share=0.5
      collie reprocess --cluster local:4
      collie reprocess --scheduler tcp://10.0.0.5:8786
    """
    events = CliEvents(app.quiet)
    try:
        report = reprocess_workspace(app.open, threads, events, no_note if app.quiet else note)
    finally:
        events.close()
    _print(app, report, report.keep)
    if report.damaged:
        lost = sum(n for _, n in report.damaged.values())
        raise ArchiveDamaged(
            f"reprocess is incomplete: the bodies of {plural(lost, 'page', 'pages')} are in "
            "damaged WARC files; they were left as they were:",
            report.damaged,
            ("page", "pages"),
        )


def _print(app: App, report: ReprocessReport, keep: str) -> None:
    if app.quiet:
        return
    kinds = ("kept", "duplicate", "wronglang", "dropped")
    statuses = ", ".join(f"{report.after[s]} {s}" for s in kinds if report.after[s])
    docs = ", ".join(f"{n} {what}" for what, n in sorted(report.documents.items()))
    note(
        f"Reprocessed {report.pages - report.missing} pages: {statuses or 'none'}; "
        f"{report.changed} changed status. Documents: {docs or 'none'}; "
        f"{report.duplicates} near-duplicates, {report.teasers} teaser paragraphs."
    )
    if report.migrated:
        note(f"{report.migrated} pages' bodies were moved from cache/ into the WARC files (warc/).")
    unkept = report.missing - sum(n for _, n in report.damaged.values())
    if unkept:  # warc.keep is blamed only when it is what kept no body
        why = {
            "target": " (warc.keep target keeps only target pages' answers)",
            "none": " (warc.keep none keeps bodies in cache/, and these are not there)",
        }.get(keep, " (their answers were not archived when they were fetched)")
        note(f"{unkept} pages had no body kept{why} and were left as they were.")
    if report.documents["reviewed"]:
        note(
            f"{report.documents['reviewed']} reviewed documents were kept although their "
            "page no longer yields text."
        )
