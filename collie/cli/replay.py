"""`collie replay`: the workspace's WARC files served by pywb, or their CDXJ index
(click only)."""

from __future__ import annotations

import socket
import time

import click

from collie.api.archives import replay_index
from collie.cli.options import CONTEXT, App, common_options, listen_problem, note
from collie.corpus.replay import ReplayServer, stop_on_sigterm
from collie.errors import ArchiveDamaged


@click.command(context_settings=CONTEXT)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8090,
    show_default=True,
    help="Port of the replay server on 127.0.0.1 (0: any free port).",
)
@click.option(
    "--index-only",
    is_flag=True,
    help="Only write the CDXJ index (warc/index.cdxj) and print its path.",
)
@common_options
@click.pass_obj
def replay(app: App, port: int, index_only: bool) -> None:
    """Show fetched pages as collie received them, from the workspace's WARC files.

    Writes the CDXJ index of warc/ (warc/index.cdxj, the format of cdxj-indexer and
    pywb; again when a WARC file is newer) and starts pywb, the web archives' replay
    server, on 127.0.0.1 until Ctrl-C. pywb comes with the replay extra:
    pip install 'collie[replay]'. `collie review` starts it too, and links each
    document it shows to its archived page.

    \b
    Example:
      collie replay
      collie replay --port 0
      collie replay --index-only
    """
    replayed = replay_index(app.open)
    root, damaged, first = replayed.root, replayed.damaged, replayed.example
    if index_only:
        click.echo(str(replayed.index))
        if damaged:
            raise ArchiveDamaged(
                "the index is incomplete: of these damaged WARC files only the whole "
                "records are in it:",
                damaged,
                ("whole record indexed", "whole records indexed"),
            )
        return
    for name, (what, records) in sorted(damaged.items()):
        note(f"warc/{name}: {what} ({records} whole records replayed).")
    if port:
        try:
            with socket.socket() as probe:
                probe.bind(("127.0.0.1", port))
        except OSError as exc:
            raise listen_problem(port, exc) from None
    stop_on_sigterm()
    with ReplayServer(root, port) as server:
        note(f"Replaying {root.name}/warc/ at {server.base}/collie/ (Ctrl-C to stop).")
        if first is not None:
            note(f"For example: {server.url_for(*first)}")
        while True:  # until Ctrl-C (the server stops with the block)
            time.sleep(3600)
