"""`collie review`: the native speaker's evaluation page and its results (click only)."""

from __future__ import annotations

import contextlib
import getpass
import json
from pathlib import Path

import click

from collie.cli.options import CONTEXT, App, common_options, listen_problem, note
from collie.corpus.replay import (
    INSTALL_HINT,
    ReplayServer,
    find_wayback,
    listen_error,
    stop_on_sigterm,
    warc_files,
)
from collie.corpus.review import precision
from collie.corpus.review.server import ReviewServer
from collie.errors import CollieError, UsageProblem
from collie.store import ReviewStore


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
) -> None:
    """Judge a sample of the corpus in the browser: mainly, some or no target language.

    Serves a page on 127.0.0.1 (for a native speaker; no internet needed): one document
    at a time with buttons and keys 1 (mainly), 2 (some), 3 (none), s (skip), u (undo).
    Judgements are kept in the workspace as they are made; stop with Ctrl-C and run
    again to continue. --results prints each class's share with a 95% interval, as in
    CorpusCollie's Table 2. With the replay extra installed (pip install
    'collie[replay]'), each document links to the page as collie fetched it, served
    from the workspace's WARC files by pywb (started and stopped with the review).

    \b
    Example:
      collie review --sample 100
      collie review --results
    """
    with app.open() as ws:
        store = ReviewStore(ws.conn)
        if results:
            _print_results(store.review_labels(), as_json)
            return
        existing = store.review_sample_size()
        drawn = store.draw_review_sample(size, ws.settings["run.seed"])
        if existing and existing != size and not app.quiet:
            note(
                f"An earlier sample of {existing} documents is continued (--sample {size} "
                "applies to a workspace's first review; the judgements made stay valid)."
            )
        if not drawn:
            raise UsageProblem(
                "The corpus has no documents to review yet.", "Run `collie run` first."
            )
        if replay and replay_port and warc_files(ws.root) and find_wayback():
            busy = listen_error(replay_port)  # said now: never a replay link to another server
            if busy is not None:
                raise listen_problem(replay_port, busy, "--replay-port")
        try:
            server = ReviewServer(
                store,
                ws.language.display_name,
                reviewer or getpass.getuser(),
                port=port,
                target=ws.language.code,
            )
        except OSError as exc:
            raise listen_problem(port, exc) from None
        note(
            f"Reviewing {drawn} documents: open {server.url} (Ctrl-C to stop; your "
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


def _print_results(labels: dict[str, int], as_json: bool) -> None:
    rows = precision(labels)
    if as_json:
        data = {"skipped": labels.get("skip", 0), "classes": [row.__dict__ for row in rows]}
        click.echo(json.dumps(data, indent=2))
        return
    judged = sum(labels.get(label, 0) for label in ("mainly", "some", "none"))
    click.echo(f"{judged} documents judged ({labels.get('skip', 0)} skipped)")
    if not judged:
        click.echo(
            "no judgements yet, so no shares: run `collie review --sample 100` and judge "
            "the documents on the page it serves"
        )
        return
    for row in rows:
        click.echo(
            f"  {row.label:<12} {row.count:>5}  {row.share:6.1%}  "
            f"(95% CI {row.low:.1%} - {row.high:.1%})"
        )
