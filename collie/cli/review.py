"""`collie review`: the native speaker's evaluation page and its results (click only)."""

from __future__ import annotations

import contextlib
import getpass
import json
from pathlib import Path
from typing import Any

import click

from collie.api.review import (
    ensure_sample,
    export_sample,
    import_judgements,
    review_results,
    review_server,
)
from collie.cli.options import CONTEXT, App, common_options, listen_problem, note
from collie.cli.outputs import force_option
from collie.corpus.replay import (
    INSTALL_HINT,
    ReplayServer,
    find_wayback,
    listen_error,
    stop_on_sigterm,
    warc_files,
)
from collie.corpus.review.audit import ESTIMATOR, audit_lines
from collie.errors import CollieError, UsageProblem
from collie.store.database import read_only_error


@click.command(context_settings=CONTEXT)
@click.option(
    "--sample",
    "size",
    type=click.IntRange(1),
    default=100,
    show_default=True,
    help="Documents drawn at random from the corpus (once; later runs continue the same sample).",
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8765,
    show_default=True,
    help="Port on 127.0.0.1 (0: any free port).",
)
@click.option(
    "--reviewer", default=None, help="Name stored with each judgement (default: your login name)."
)
@click.option(
    "--results",
    is_flag=True,
    help="Print the share of each class (95% intervals) instead of serving.",
)
@click.option("--json", "as_json", is_flag=True, help="With --results: JSON on stdout.")
@click.option(
    "--export-sample",
    "export_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the sample (drawn first if need be) as a TSV with an empty label column "
    "to fill in offline or in a spreadsheet, instead of serving.",
)
@click.option(
    "--import",
    "import_path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Record the judgements of a TSV (columns doc_id or url, label: mainly, some, "
    "none or skip, and optionally reviewer), instead of serving.",
)
@force_option
@click.option(
    "--replay/--no-replay",
    default=True,
    show_default=True,
    help="Link each document to its archived page, served by pywb from the WARC files "
    "(when the replay extra is installed).",
)
@click.option(
    "--replay-port",
    type=click.IntRange(0, 65535),
    default=0,
    help="Port of the replay server on 127.0.0.1 (default: any free port).",
)
@common_options
@click.pass_obj
def review(
    app: App,
    size: int,
    port: int,
    reviewer: str | None,
    results: bool,
    as_json: bool,
    replay: bool,
    replay_port: int,
    export_path: Path | None,
    import_path: Path | None,
    force: bool,
) -> None:
    """Judge a sample of the corpus in the browser: mainly, some or no target language.

    Serves a page on 127.0.0.1 (for a native speaker; no internet needed): one document
    at a time with buttons and keys 1 (mainly), 2 (some), 3 (none), s (skip), u (undo).
    Judgements are kept in the workspace as they are made; stop with Ctrl-C and run
    again to continue. The sample is stratified by site and origin (each loop, and
    `collie scan`): proportional, one document a stratum at least, a tenth of it from
    one site at most (more only when the sample needs it); the same for a run.seed.

    --results prints "k of n documents mainly in the language (95% Wilson interval
    a-b)" overall, per loop or scan and per site with 5 judgements or more, the share
    weighted by stratum where the sample is not proportional, and how many more
    judgements would narrow a wide interval to +-5 points; then each class's share, as
    in CorpusCollie's Table 2. --export-sample writes the sample as a TSV to judge
    offline or in a spreadsheet; --import reads such a file back (all of it, or nothing
    when a line is bad). With the replay extra installed (pip install
    'collie[replay]'), each document links to the page as collie fetched it, served
    from the workspace's WARC files by pywb (started and stopped with the review).

    \b
    Example:
      collie review --sample 100
      collie review --results
      collie review --export-sample sample.tsv
      collie review --import sample.tsv --reviewer achieng
    """
    if sum(map(bool, (results, export_path, import_path))) > 1:
        raise UsageProblem("Give one of --results, --export-sample and --import.")
    if results:
        _print_results(review_results(app.open), as_json)
    elif export_path is not None:
        _export(app, export_path, size, force)
    elif import_path is not None:
        _import(app, import_path, reviewer)
    else:
        _serve(app, size, port, reviewer, replay, replay_port)


def _export(app: App, path: Path, size: int, force: bool) -> None:
    written = export_sample(app.open, path, size, force)
    note(
        f"Wrote {written} documents to {path}: fill in the label column (mainly, some, "
        f"none or skip), then `collie review --import {path}`."
    )


def _import(app: App, path: Path, reviewer: str | None) -> None:
    done = import_judgements(app.open, path, reviewer)
    counts = ", ".join(f"{label} {n}" for label, n in done.labels.items()) or "none"
    note(
        f"Imported {sum(done.labels.values())} judgements of a sample of {done.total} "
        f"({counts}); `collie review --results` shows the shares."
    )


def _serve(
    app: App, size: int, port: int, reviewer: str | None, replay: bool, replay_port: int
) -> None:
    """Serve the review page until Ctrl-C, on the sample (drawn first if need be)."""
    with app.open() as ws:
        if ws.read_only:  # drawing the sample and keeping judgements write
            raise read_only_error(ws.root, "review (without --results)")
        drawn = ensure_sample(ws, size)
        if drawn.earlier and drawn.size != size and not app.quiet:
            note(
                f"An earlier sample of {drawn.size} documents is continued (--sample {size} "
                "applies to a workspace's first review; the judgements made stay valid)."
            )
        if replay and replay_port and warc_files(ws.root) and find_wayback():
            busy = listen_error(replay_port)  # said now: never a replay link to another server
            if busy is not None:
                raise listen_problem(replay_port, busy, "--replay-port")
        try:
            server = review_server(ws, reviewer or getpass.getuser(), port)
        except OSError as exc:
            raise listen_problem(port, exc) from None
        note(
            f"Reviewing {drawn.size} documents: open {server.url} (Ctrl-C to stop; your "
            "judgements are kept)."
        )
        with contextlib.ExitStack() as stack:
            if replay:  # the page's first requests wait for it in the listen queue
                server.replay = _start_replay(stack, ws.root, replay_port, app.quiet)
            try:
                server.serve_forever()
            finally:
                server.server_close()


def _start_replay(stack: contextlib.ExitStack, root: Path, port: int, quiet: bool) -> str | None:
    """pywb over the workspace's WARC files, stopped with `stack`; its base URL, or None
    (said why) when it is not installed or there is nothing to replay."""
    if not warc_files(root):
        return None
    if find_wayback() is None:
        if not quiet:
            note(f"No links to the archived pages: pywb is not installed. {INSTALL_HINT}")
        return None
    stop_on_sigterm()
    try:
        server = stack.enter_context(ReplayServer(root, port))
    except CollieError as exc:  # the review goes on, without the links
        note(f"No links to the archived pages: {exc}")
        return None
    if not quiet:
        note(f"Archived pages replayed by pywb at {server.base}/collie/.")
    return server.base


def _print_results(data: dict[str, Any], as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(data, indent=2, ensure_ascii=False))
        return
    click.echo("\n".join(audit_lines(data, data["language_name"])))
    if not data["judged"]:
        return
    click.echo(f"  estimator: {ESTIMATOR}")
    click.echo("  every class, all judged documents:")
    for row in data["classes"]:
        click.echo(
            f"    {row['label']:<12} {row['count']:>5}  {row['share']:6.1%}  "
            f"(95% CI {row['low']:.1%} - {row['high']:.1%})"
        )
