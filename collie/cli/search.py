"""`collie seeds`, `collie queries` and `collie search`: the seed words, the queries
they make and one query sent (click only)."""

from __future__ import annotations

import json
import os

import click

from collie.cli import views as text
from collie.cli.options import CONTEXT, App, common_options, note, search_options, set_flag
from collie.errors import CollieError, UsageProblem
from collie.mining import queries as planning
from collie.mining import search as searching
from collie.mining.config import RunConfig
from collie.search import make_backend
from collie.workspace.folder import Workspace, open_workspace, read_settings


@click.command(context_settings=CONTEXT)
@click.option("--loop", "loop", type=click.IntRange(1), help="Loop number (default: the next).")
@click.option("--explain", is_flag=True, help="Also the words the safetynet removed, and why.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object on stdout.")
@common_options
@click.pass_obj
def seeds(app: App, loop: int | None, explain: bool, as_json: bool) -> None:
    """Show the seed list a loop uses, with each word's frequency or odds ratio.

    Loop 1 takes the most frequent words of the seed documents that are not frequent in
    another language (the safetynet); with wrong-language text (--wronglang at init,
    later pages in other languages) words are ranked by odds ratio instead.

    \b
    Example:
      collie seeds --explain
    """
    with app.open() as ws:
        number = _loop_number(ws, loop)
        seed_list = planning.seed_list_for(ws, number, RunConfig.of(ws))
    data = text.seed_list_data(seed_list, number)
    if as_json:
        click.echo(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        click.echo("\n".join(text.seed_list_lines(data, explain)))


@click.command(context_settings=CONTEXT)
@click.option("--loop", "loop", type=click.IntRange(1), help="Loop number (default: the next).")
@click.option(
    "--tld",
    type=click.Choice(["off", "auto"]),
    callback=set_flag("queries.tld"),
    expose_value=False,
    help="auto: restrict to the language's country domains plus generic ones.",
)
@click.option("--json", "as_json", is_flag=True, help="One JSON array on stdout.")
@search_options
@common_options
@click.pass_obj
def queries(app: App, loop: int | None, as_json: bool) -> None:
    """Show the queries the next loop would send: random combinations of seed words,
    none sent before from this workspace, the same for the same workspace state. Nothing
    is sent: `collie run` sends them.

    \b
    Example:
      collie queries --tld auto
    """
    with app.open() as ws:
        backend = make_backend(ws.settings, os.environ, ws.language.part1 or "")
        planned = planning.plan_queries(ws, backend, _loop_number(ws, loop), RunConfig.of(ws))
    if as_json:
        data = [{"query": query, "words": words} for query, words in planned]
        click.echo(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        click.echo("\n".join(query for query, _ in planned))
    if not app.quiet:
        note(f"{len(planned)} queries (nothing sent).")


@click.command(context_settings=CONTEXT)
@click.argument("query")
@click.option(
    "--count",
    type=click.IntRange(1, 100),
    default=10,
    show_default=True,
    help="Results wanted (capped at the backend's page size).",
)
@click.option("--json", "as_json", is_flag=True, help="One JSON object on stdout.")
@search_options
@common_options
@click.pass_obj
def search(app: App, query: str, count: int, as_json: bool) -> None:
    """Send one query to the search backend and print the results.

    Inside a workspace: uses its backend, stores the query and its results, and answers
    a query sent before from the store (it is never sent twice). Outside a workspace:
    needs --search, stores nothing. API keys come from environment variables only
    (BRAVE_API_KEY; GOOGLE_API_KEY and GOOGLE_CSE_ID).

    \b
    Example:
      collie search "ng'ato thuolo piny"
      collie search --search searxng --search-url http://localhost:8888 "dholuo"
    """
    if not query.strip():
        raise UsageProblem(
            "the query is empty: nothing to search for.",
            'Give the words to search for, e.g. collie search "ng\'ato thuolo piny".',
        )
    root = app.find_root_or_none()
    if root is None:
        if "search.backend" not in app.flags:
            raise UsageProblem(
                "Outside a workspace, name the backend with --search.",
                'Example: collie search --search brave "ng\'ato thuolo"',
            )
        settings = read_settings(None, os.environ, app.flags)
        backend = make_backend(settings, os.environ)
        results, status = backend.search(query, count).results, "sent (not stored)"
    else:
        with open_workspace(root, os.environ, app.flags) as ws:
            language = ws.language.part1 or ""
            backend = make_backend(ws.settings, os.environ, language)
            outcome = searching.search_one(ws, backend, query, count, budget=_budget(ws))
        if outcome.status == "failed":
            raise CollieError(outcome.error or "The query failed.", "Try again later.")
        if outcome.status == "lost":
            raise CollieError(
                f"{query!r} was sent before by a run that was interrupted; its results were "
                "lost and collie does not send a query twice.",
                "Change the query (e.g. word order) to send a new one.",
            )
        results = outcome.results
        status = {"cached": "from the workspace's store", "sent": "sent and stored"}[outcome.status]
    if as_json:
        data = {
            "query": query,
            "backend": backend.name,
            "status": status,
            "results": [text.result_data(r) for r in results],
        }
        click.echo(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        click.echo("\n".join(text.result_lines(results)))
    if not app.quiet:
        note(f"{len(results)} results from {backend.name}, {status}.")


def _budget(ws: Workspace) -> searching.SearchBudget:
    return searching.SearchBudget.of(RunConfig.of(ws).search)


def _loop_number(ws: Workspace, loop: int | None) -> int:
    """--loop, or the next loop; a loop past the next cannot be planned (issue 58)."""
    upcoming = ws.completed_loops() + 1
    if loop is None or loop <= upcoming:
        return loop or upcoming
    done = f"{upcoming - 1} loops are finished" if upcoming != 2 else "1 loop is finished"
    raise UsageProblem(
        f"--loop {loop}: loop {loop} cannot come next in this workspace: {done}, so the "
        f"next is loop {upcoming}.",
        f"Give --loop {upcoming} (the next) or an earlier loop, or leave --loop out.",
    )
