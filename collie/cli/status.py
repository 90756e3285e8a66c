"""`collie status` and `collie config`: what a workspace holds and how it is set
(click only)."""

from __future__ import annotations

import json
import os

import click

from collie.api.corpus import workspace_status
from collie.cli import views as text
from collie.cli.options import CONTEXT, App, common_options, note
from collie.config import lookup
from collie.errors import ConfigError, UsageProblem
from collie.workspace.folder import read_settings


@click.command(context_settings=CONTEXT)
@click.option("--json", "as_json", is_flag=True, help="One JSON object on stdout.")
@common_options
@click.pass_obj
def status(app: App, as_json: bool) -> None:
    """Show the workspace: language, changed settings, seed documents, loops.

    \b
    Example:
      collie status --json
    """
    data = workspace_status(app.open)
    if as_json:
        click.echo(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        click.echo("\n".join(text.status_lines(data)))


@click.command(context_settings=CONTEXT)
@click.argument("key", required=False)
@click.option("--json", "as_json", is_flag=True, help="One JSON object on stdout.")
@common_options
@click.pass_obj
def config(app: App, key: str | None, as_json: bool) -> None:
    """Show every effective setting and where its value came from.

    Sources, weakest first: default, collie.toml, environment (COLLIE_SECTION_NAME),
    flag (--set or a command's own option). Outside a workspace: defaults, environment
    and flags only.

    \b
    Example:
      collie config
      COLLIE_FETCH_DELAY=2 collie config fetch.delay
    """
    root = app.find_root_or_none()
    if root is None and not app.quiet:
        note("Not in a workspace: showing defaults, environment and flags.")
    settings = read_settings(root, os.environ, app.flags)
    entries = settings.entries()
    if key is not None:
        if key not in settings:
            try:
                lookup(key, "collie config")
            except ConfigError as exc:
                raise UsageProblem(exc.message, exc.hint) from None
        entries = [settings.entry(key)]
    if as_json:
        data = {e.key: {"value": e.value, "source": e.source} for e in entries}
        click.echo(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        click.echo("\n".join(text.config_lines(entries)))
