"""`collie language` and `collie safetynet`: what collie knows about languages
(click only)."""

from __future__ import annotations

import json
from typing import Any

import click

from collie.cli import views as text
from collie.cli.options import CONTEXT, App, note
from collie.errors import UsageProblem
from collie.languages import resolve_language
from collie.search.seeds import safetynet_languages


@click.command(context_settings=CONTEXT)
@click.argument("query", metavar="CODE|NAME")
@click.option("--json", "as_json", is_flag=True, help="One JSON object on stdout.")
@click.pass_obj
def language(app: App, query: str, as_json: bool) -> None:
    """What collie knows about a language: codes, names, countries, domains.

    Accepts ISO 639-3 and 639-1 codes, English names, alternative names and autonyms.

    \b
    Example:
      collie language Dholuo
      collie language sw --json
    """
    resolution = resolve_language(query)
    if resolution.note and not app.quiet:
        note(resolution.note)
    data = text.language_data(resolution.language)
    if as_json:
        click.echo(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        click.echo("\n".join(text.language_lines(data)))


@click.command(context_settings=CONTEXT)
@click.argument("code", required=False, metavar="[CODE|NAME]")
@click.option(
    "--top",
    type=click.IntRange(1),
    default=20,
    show_default=True,
    help="Words shown for one language.",
)
@click.option("--json", "as_json", is_flag=True, help="JSON on stdout.")
@click.pass_obj
def safetynet(app: App, code: str | None, top: int, as_json: bool) -> None:
    """List the languages whose frequent words keep seed words out, or one language's.

    Sources: u = UDHR (training part), w = wordfreq, s = stopwords-iso.

    \b
    Example:
      collie safetynet
      collie safetynet Zulu --top 50
    """
    lists = safetynet_languages()
    if code is None:
        data: Any = {c: {"words": len(i.entries), "sources": i.sources} for c, i in lists.items()}
        lines = text.safetynet_lines(data)
    else:
        lang = resolve_language(code).language
        info = lists.get(lang.code)
        if info is None:
            raise UsageProblem(f"The safetynet does not cover {lang.code} ({lang.display_name}).")
        data = [
            {"rank": e.rank, "word": e.word, "frequency": e.frequency, "sources": e.sources}
            for e in info.entries[:top]
        ]
        lines = [
            f"{e['rank']:>4}  {e['word']:<20} {e['frequency'] or '-':<10} {e['sources']}"
            for e in data
        ]
    click.echo(json.dumps(data, ensure_ascii=False, indent=2) if as_json else "\n".join(lines))
