"""`collie scan`: web-archive files (Common Crawl's WARC or WET files) mined for the
workspace's language (click only: parse, open, call, print)."""

from __future__ import annotations

from typing import Any

import click

from collie.api.archives import scan_archives
from collie.api.options import no_note
from collie.cli.executor import executor_options
from collie.cli.options import CONTEXT, App, common_options, note
from collie.cli.progress import CliEvents
from collie.errors import CollieError, InputError, plural
from collie.mining.scan import ScanReport


@click.command("scan", context_settings=CONTEXT)
@click.argument("files", nargs=-1, required=True)
@click.option(
    "--base",
    default="",
    help="Where the paths of a Common Crawl paths file are (a folder, or a URL prefix "
    "such as https://data.commoncrawl.org/); default: the paths file's folder.",
)
@click.option(
    "--no-prefilter",
    is_flag=True,
    help="Examine every page record in full (slow: the first filter's recall baseline).",
)
@click.option(
    "--threads",
    type=click.IntRange(1),
    default=1,
    show_default=True,
    help="Threads of the local executor (files scanned at once).",
)
@executor_options
@common_options
@click.pass_obj
def scan_command(
    app: App, files: tuple[str, ...], base: str, no_prefilter: bool, threads: int, **_: Any
) -> None:
    """Mine web-archive files for the workspace's language, feeding the live loop.

    FILES are WARC or WET files (Common Crawl's, or any WARC), globs, https:// URLs
    (streamed), or Common Crawl paths files (warc.paths.gz, wet.paths.gz). Each page
    record goes through a cheap first filter (words only the target uses, in its first
    16 KB of text) and then through the same decoding, main-text extraction, language
    identification, page decision and near-duplicate filtering as a fetched page. The
    pages found enter the workspace's open loop with where their record is; then the
    passes a run makes at a loop's end judge them again (the short pages' vote, the
    relatives pass, the teaser pass), so the corpus is the one a run would keep. Their
    sites' home pages are queued, so the next `collie run` crawls them out politely. A
    file is recorded whole when it is done: an interrupted scan resumes at the file. A
    file that ends mid-record (a partial download) keeps the records read, and is read
    on from there when scanned again once complete; a file that is not a WARC or WET
    file, or is missing, is named and the others scanned. The exit status is 1 when a
    file was partial or unreadable. One task a file on the executor (--executor dask
    for a cluster); local files are read with FastWARC when it is installed (pip
    install 'collie[fast]'). The scan ends by saying how many MB it read, how fast.

    \b
    Example:
      collie scan CC-MAIN-*.warc.wet.gz
      collie scan wet.paths.gz --base https://data.commoncrawl.org/ --executor dask
      collie run --loops 2
    """
    events = CliEvents(app.quiet)
    notes = no_note if app.quiet else note
    try:
        report = scan_archives(app.open, files, base, not no_prefilter, threads, events, notes)
    finally:
        events.close()
    _print(app, report)


def _print(app: App, report: ScanReport) -> None:
    if not app.quiet:
        _print_summary(report)
    for partial in report.partial:  # shown even with -q: the run fails on them
        note(f"partial file: {partial}")
    if report.partial:
        note(
            "The records read are kept; the rest of each partial file is read when it is "
            "scanned again once complete (finish the download, then run the same command)."
        )
    for failed in report.failed:
        note(f"not scanned: {failed}")
    _fail_if_incomplete(report)


def _print_summary(report: ScanReport) -> None:
    rate = report.records / report.seconds if report.seconds else 0.0
    note(
        f"Scanned {report.files} files into loop {report.loop}: {report.records:,} records "
        f"({rate:,.0f}/s in the tasks), {report.pages:,} pages, {report.candidates:,} past "
        f"the first filter; {plural(report.documents, 'target document', 'target documents')}; "
        f"{plural(report.pages_queued, 'page', 'pages')} queued for `collie run` (the links "
        "of the pages found, and the home pages of "
        f"{plural(report.sites_queued, 'site', 'sites')} new to the frontier)."
    )
    if report.archive_bytes and report.wall:
        per_core = report.archive_bytes / report.seconds / 1e6 if report.seconds else 0.0
        note(
            f"Read {report.archive_bytes / 1e6:,.1f} MB of archive files (compressed) in "
            f"{report.wall:,.1f} s: {report.archive_bytes / report.wall / 1e6:,.1f} MB/s; "
            f"{per_core:,.1f} MB/s a core in the tasks."
        )
    if report.passes is not None:
        note(
            f"After the passes a run makes at a loop's end: {report.kept} target documents "
            "from web archives in the corpus."
        )
    if report.skipped:
        note(f"{report.skipped} files were scanned before and skipped.")
    if report.known:
        note(f"{report.known} pages were in the workspace already and were left as they were.")
    if report.resumed:
        note(f"{report.resumed} files were read on from where an earlier scan stopped.")


def _fail_if_incomplete(report: ScanReport) -> None:
    """A scan with a file it could not read to its end fails (exit status 1), once what
    could be read is recorded and reported."""
    for error in report.errors[:5]:
        note(f"failed on a page: {error}")
    broken = len(report.partial) + len(report.failed)
    if broken:
        named = [*report.failed, *report.partial]
        raise InputError(
            f"{broken} of the files named could not be scanned to their end "
            f"({len(report.failed)} unreadable, {len(report.partial)} partial): {named[0]}"
            + (f" (and {broken - 1} more, named above)." if broken > 1 else "."),
            "Give WARC or WET files (whole ones), then run the same command again: the "
            "files scanned whole are skipped.",
        )
    if report.errors:  # a page collie's code failed on is no clean result (issue 58)
        more = len(report.errors) - 5
        raise CollieError(
            f"collie failed on {len(report.errors)} of the pages found"
            + (f" ({more} more not listed)" if more > 0 else "")
            + ": they are recorded as dropped with the error as their reason; the rest of "
            "the scan is kept.",
            "An error:MemoryError is a page too large for this machine's memory; other "
            "errors are bugs: report them with the page's URL (run with -v to log where).",
        )
