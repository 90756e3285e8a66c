"""`collie run`: the mining loop (click only: parse, open, call, print)."""

from __future__ import annotations

import json
from typing import Any

import click

from collie.api.mine import mine
from collie.api.options import no_note
from collie.cli.executor import executor_options
from collie.cli.options import CONTEXT, App, common_options, note, search_options, set_flag
from collie.cli.progress import CliEvents, stop_on_ctrl_c
from collie.errors import CollieError, UsageProblem, plural
from collie.mining.records import RunReport
from collie.mining.refetch import RefetchReport


@click.command(context_settings=CONTEXT)
@click.option(
    "--loops",
    type=click.IntRange(1),
    callback=set_flag("run.loops"),
    help="Bring the workspace to this many completed loops in all, not this many more: "
    "after 2 loops, --loops 3 runs one more (default: run.loops).",
)
@click.option(
    "--queries",
    type=click.IntRange(1),
    callback=set_flag("queries.count"),
    help="Queries per loop (default: queries.count).",
)
@click.option(
    "--seeds",
    type=click.IntRange(1),
    callback=set_flag("seeds.count"),
    help="Seed words per loop (default: seeds.count).",
)
@click.option(
    "--crawl-depth",
    type=click.IntRange(0),
    callback=set_flag("crawl.depth"),
    help="Link depth crawled from a page search found (default: crawl.depth).",
)
@click.option(
    "--max-pages",
    type=click.IntRange(0),
    callback=set_flag("run.max_pages"),
    help="Pages fetched per loop at most; 0: no limit (default: run.max_pages).",
)
@click.option(
    "--max-time",
    type=click.FloatRange(0),
    callback=set_flag("run.max_time"),
    help="Seconds this run may take; 0: no limit (default: run.max_time).",
)
@click.option(
    "--refetch-lost",
    is_flag=True,
    help="Only fetch again the pages whose body was lost with a damaged WARC file "
    "(`collie check --repair` marks them), those whose last try failed included; no "
    "loop. (Every run fetches the marked pages again first.)",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="At the end, one JSON object on stdout: per loop the queries, new search URLs, "
    "pages by outcome, drop reasons and languages; why the run stopped early, if it did.",
)
@executor_options
@search_options
@common_options
@click.pass_obj
def run(app: App, as_json: bool, refetch_lost: bool, **_options: Any) -> None:
    """Mine the web: seed words -> queries -> search -> fetch -> language ID -> crawl
    -> near-duplicates, loop after loop.

    `--loops N` brings the workspace to N completed loops: run again after an
    interruption (Ctrl-C, kill, power loss) and it goes on where it stopped, sending no
    query twice and fetching no stored page again.

    With `--executor dask`, batches of whole sites are fetched and processed on Dask
    workers (politely: one site, one worker at a time) and only this process writes the
    workspace; the corpus is the same as with the local executor.

    \b
    Example:
      collie run --loops 2
      collie run --loops 3 --max-time 3600
      collie run --loops 2 --cluster local:4
      collie run --loops 2 --scheduler tcp://10.0.0.5:8786
      collie run --refetch-lost
    """
    if refetch_lost:
        _refuse_loop_options(app)
    events = CliEvents(app.quiet)
    try:
        mined = mine(
            app.open,
            events,
            no_note if app.quiet else note,
            lambda: stop_on_ctrl_c(events),
            refetch_lost,
        )
    finally:
        events.close()
    still_lost = _print_refetched(app, mined.refetched, refetch_lost)
    if not refetch_lost and mined.backend is None:
        _print_report(app, mined.report, mined.loops, as_json)
        note(_nothing_to_do(mined.done_before, mined.loops, mined.loops_source))
    elif not refetch_lost:
        _print_report(app, mined.report, mined.loops, as_json, mined.backend or "")
    if still_lost is not None:  # after the loops' report: the run's work is said first
        raise still_lost


# The options that shape a loop, which `run --refetch-lost` (no loop) would not use.
LOOP_ONLY = ("run.loops", "queries.count", "seeds.count", "crawl.depth", "run.max_pages")


def _refuse_loop_options(app: App) -> None:
    """`run --refetch-lost` runs no loop: a loop's option given with it is refused, not
    ignored in silence (issue 58)."""
    given = [flag for key, (_value, flag) in app.flags.items() if key in LOOP_ONLY]
    given = [flag for flag in given if not flag.startswith("--set ")]
    if given:
        raise UsageProblem(
            f"--refetch-lost runs no loop: {', '.join(sorted(given))} would be ignored.",
            "Leave it out to fetch the lost pages again, or run `collie run` without "
            "--refetch-lost to mine loops.",
        )


def _print_refetched(app: App, done: RefetchReport | None, asked: bool) -> CollieError | None:
    """What fetching the lost pages again gave; the error (exit 1) when some are still
    lost, for the caller to raise once the rest is said."""
    if done is None:
        if asked:
            note("No page has lost its body: nothing to fetch again (`collie check` checks).")
        return None
    if not app.quiet:
        changed = f"; {done.changed} changed since (`collie reprocess` decides them again)"
        note(
            f"Fetched again {done.fetched} of {plural(done.asked, 'page', 'pages')} whose body "
            f"was lost{changed if done.changed else ''}."
        )
    if not done.failed:
        return None
    reasons = ", ".join(f"{n} {why}" for why, n in done.failed.most_common())
    return CollieError(
        f"{plural(sum(done.failed.values()), 'lost page', 'lost pages')} could not be "
        f"fetched again ({reasons}).",
        "Run `collie run --refetch-lost` later to try again.",
    )


def report_json(report: RunReport) -> dict[str, Any]:
    """What `collie run --json` prints."""
    return {
        "already_done": report.already_done,
        "stopped": report.stopped,
        "search_requests": report.requests,
        "loops": [
            {
                "loop": loop.number,
                "queries": dict(loop.queries),
                "search_urls": loop.search_urls,
                "pages": dict(loop.pages),
                "reasons": dict(loop.reasons),
                "languages": dict(loop.languages),
                "search_stopped": loop.search_stopped,
                "search_requests": loop.requests,
                "coverage": loop.coverage.to_json() if loop.coverage else None,
                "robots_unreachable": dict(loop.unreachable),
                "held_back": loop.held,
            }
            for loop in report.loops
        ],
    }


def _nothing_to_do(done: int, loops: int, source: str) -> str:
    """Why a run has nothing to do, and the --loops value that runs one more loop."""
    asked = f"--loops {loops}" if source == "flag (--loops)" else f"run.loops = {loops} ({source})"
    return (
        f"The workspace has {done} completed loop{'s' if done != 1 else ''} already; {asked} "
        f"asks for {loops} in all: nothing to do. --loops N means N loops in all, not N "
        f"more: `collie run --loops {done + 1}` runs one more."
    )


def _print_report(
    app: App, report: RunReport, loops: int, as_json: bool = False, backend: str = ""
) -> None:
    if as_json and report.stopped != "interrupted":
        click.echo(json.dumps(report_json(report), ensure_ascii=False, indent=2))
    for loop in report.loops:  # the per-loop lines were written as each loop ended
        if loop.search_stopped and not app.quiet:
            note(f"loop {loop.number}: search stopped early: {loop.search_stopped}")
    if report.loops and not app.quiet:
        estimate = report.loops[-1].coverage
        found = f"; {estimate.sentence(backend or 'the backend')}" if estimate else ""
        note(f"search: {report.requests:,} requests sent in this run{found}")
    if report.stopped == "interrupted":
        raise KeyboardInterrupt
    if report.stopped:
        note(f"Stopped: {report.stopped}. Run `collie run --loops {loops}` again to go on.")
    if report.offline:  # nothing could be fetched: the run failed, though nothing is lost
        raise CollieError(
            "the run fetched nothing: no site answered (the line above says which); "
            "nothing is lost.",
            f"Check the network (or HTTP_PROXY), then run `collie run --loops {loops}` again.",
        )
