"""The `collie` command line: parse options, open the workspace, call, print.

Results go to stdout; notes, progress and logs to stderr. Exit status: 0 success,
1 error, 2 usage problem, 130 interrupted.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from pathlib import Path
from typing import Any

import click

from collie import __version__
from collie.cli import views as text
from collie.cli.export import export, report
from collie.cli.extract import extract
from collie.cli.langid import langid
from collie.cli.mininet import demo, mininet
from collie.cli.options import (
    CONTEXT,
    App,
    common_options,
    configure_logging,
    note,
    search_options,
    set_flag,
)
from collie.cli.reprocess import reprocess_command
from collie.cli.review import review
from collie.cli.run import run
from collie.config import lookup
from collie.corpus import status as corpus_status
from collie.errors import (
    CollieError,
    ConfigError,
    LanguageNotFound,
    UnusableDocuments,
    UsageProblem,
    dependency_error,
)
from collie.languages import resolve_language
from collie.mining import search as searching
from collie.search import make_backend
from collie.search.seeds import safetynet_languages
from collie.workspace.create import InitRequest, create, recover
from collie.workspace.folder import Workspace, open_workspace, read_settings


class SectionedGroup(click.Group):
    """`collie --help` lists its commands by what a user does with them, in the order
    of a mining session, with their whole first line."""

    SECTIONS = (
        ("Mining", ("init", "run", "status", "report", "config", "search", "seeds", "queries")),
        ("The corpus", ("export", "review", "reprocess")),
        ("Languages", ("language", "langid", "safetynet", "extract")),
        ("The closed-world web", ("demo", "mininet")),
    )

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        listed: set[str] = set()
        for title, names in self.SECTIONS:
            rows = []
            for name in names:
                command = self.get_command(ctx, name)
                if command is not None and not command.hidden:
                    rows.append((name, command.get_short_help_str(limit=200)))
                    listed.add(name)
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)
        rest = [n for n in self.list_commands(ctx) if n not in listed]
        if rest:
            with formatter.section("Other commands"):
                formatter.write_dl(
                    [
                        (n, c.get_short_help_str(limit=200))
                        for n in rest
                        if (c := self.get_command(ctx, n)) is not None
                    ]
                )


@click.group(cls=SectionedGroup, context_settings=CONTEXT)
@common_options
@click.option("--traceback", is_flag=True, help="Show the full traceback of an unexpected error.")
@click.version_option(__version__, "--version", prog_name="collie")
@click.pass_context
def cli(ctx: click.Context, traceback: bool) -> None:
    """Mine the web for a clean text corpus in a resource-scarce language.

    \b
    Example:
      collie init --lang luo --docs my-luo-texts/
      collie status

    \b
    Exit status:
      0    done
      1    an error the message explains (workspace, input, settings, network)
      2    the command line needs changing (an option missing or wrong, an
           unknown language)
      130  interrupted (Ctrl-C): what was done is kept; run again to go on
    """
    configure_logging(ctx.ensure_object(App).verbose)


@cli.command(context_settings=CONTEXT)
@click.option(
    "--lang",
    "lang",
    metavar="CODE|NAME",
    help="Target language: ISO 639-3 or 639-1 code, or a name (Dholuo, Swahili). Required "
    "but with --recover.",
)
@click.option(
    "--docs",
    multiple=True,
    type=click.Path(path_type=Path),
    metavar="PATH",
    help="Text in the target language: files or folders (walked). Repeatable.",
)
@click.option(
    "--wronglang",
    multiple=True,
    metavar="[CODE=]PATH",
    help="Text that is NOT the target language (e.g. a close relative), "
    "optionally tagged with its language. Repeatable.",
)
@click.option(
    "--seed-words",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Seed words, one per line: replaces automatic seed selection.",
)
@click.option(
    "--encoding",
    metavar="NAME",
    help="Encoding of non-UTF-8 documents whose encoding cannot be detected.",
)
@click.option(
    "--force",
    is_flag=True,
    help="Go on (with a warning) when the documents are too few to learn a language "
    "collie's model lacks.",
)
@click.option(
    "--recover",
    is_flag=True,
    help="Write the collie.toml of an existing workspace again, when it is missing, from "
    "what collie.db and seed/ know; changes nothing else.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="One JSON object on stdout when done: the workspace, the language, the seed "
    "documents and words kept, the files skipped (and why); when no --docs file is "
    "usable, the error and the files skipped.",
)
@search_options
@common_options
@click.pass_obj
def init(
    app: App,
    lang: str | None,
    docs: tuple[Path, ...],
    wronglang: tuple[str, ...],
    seed_words: Path | None,
    encoding: str | None,
    force: bool,
    recover: bool,
    as_json: bool,
) -> None:
    """Make the current directory (or -w DIR) a collie workspace.

    Copies the documents into seed/ as UTF-8, creates collie.toml (every setting with
    its default; --set, --search and --search-url values are written into it) and
    collie.db. Refuses to touch an existing workspace. With --recover, writes the missing
    collie.toml of a workspace again (language, seed words and the settings chosen at
    init from collie.db, the search backend of its last query; defaults for the rest)
    and lists what it could not recover.

    \b
    Example:
      collie init --lang luo --docs my-luo-texts/ --wronglang ach=acholi.txt
      collie init --lang luo --docs texts/ --search searxng --search-url http://localhost:8888
      collie init --recover
    """
    root = (Path.cwd() / app.workspace).resolve() if app.workspace else Path.cwd().resolve()
    if recover:
        if lang or docs or wronglang or seed_words or app.flags:
            raise UsageProblem(
                "--recover takes no language, documents or settings: it writes collie.toml "
                "from what the workspace knows.",
                "Run `collie init --recover` alone, then change settings in collie.toml.",
            )
        _recover(root, as_json)
        return
    if lang is None:
        raise click.UsageError("Missing option '--lang' (the target language).")
    request = InitRequest(root, lang, docs, wronglang, seed_words, encoding, force, app.flags)
    try:
        made = create(request, note)
    except UnusableDocuments as exc:
        if as_json:
            skipped = [{"file": file, "reason": reason} for file, reason in exc.skipped]
            click.echo(json.dumps({"error": exc.head, "skipped": skipped}, indent=2))
        raise exc.everything() if app.verbose else exc from None
    for line in text.init_lines(root, made.language, made.plan, made.words):
        note(line)
    if as_json:
        plan = made.plan
        data = {
            "workspace": str(root),
            "language": {"code": made.language.code, "name": made.language.display_name},
            "seed_documents": {"target": plan.count("target"), "words": plan.words("target")},
            "wronglang_documents": plan.count("wronglang"),
            "seed_words": len(made.words),
            "skipped": [{"file": str(s.source), "reason": s.reason} for s in plan.skipped],
        }
        click.echo(json.dumps(data, ensure_ascii=False, indent=2))


def _recover(root: Path, as_json: bool) -> None:
    """`collie init --recover`: write collie.toml again and say what it holds."""
    made = recover(root)
    for key, (value, where) in made.sources.items():
        note(f"recovered {key} = {value!r} ({where})")
    for what in made.lost:
        note(f"not recovered (default or new now): {what}")
    note(f"Wrote {root / 'collie.toml'}; collie.db and seed/ are unchanged.")
    if as_json:
        data = {
            "workspace": str(root),
            "recovered": {k: {"value": v, "source": w} for k, (v, w) in made.sources.items()},
            "not_recovered": made.lost,
        }
        click.echo(json.dumps(data, ensure_ascii=False, indent=2))


@cli.command(context_settings=CONTEXT)
@click.option("--json", "as_json", is_flag=True, help="One JSON object on stdout.")
@common_options
@click.pass_obj
def status(app: App, as_json: bool) -> None:
    """Show the workspace: language, changed settings, seed documents, loops.

    \b
    Example:
      collie status --json
    """
    with app.open() as ws:
        data = corpus_status.status_data(ws)
    if as_json:
        click.echo(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        click.echo("\n".join(text.status_lines(data)))


@cli.command(context_settings=CONTEXT)
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


@cli.command(context_settings=CONTEXT)
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


@cli.command(context_settings=CONTEXT)
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
        number = loop or ws.completed_loops() + 1
        seed_list = searching.seed_list_for(ws, number)
    data = text.seed_list_data(seed_list, number)
    if as_json:
        click.echo(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        click.echo("\n".join(text.seed_list_lines(data, explain)))


@cli.command(context_settings=CONTEXT)
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
        planned = searching.plan_queries(ws, backend, loop or ws.completed_loops() + 1)
    if as_json:
        data = [{"query": query, "words": words} for query, words in planned]
        click.echo(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        click.echo("\n".join(query for query, _ in planned))
    if not app.quiet:
        note(f"{len(planned)} queries (nothing sent).")


@cli.command(context_settings=CONTEXT)
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


@cli.command(context_settings=CONTEXT)
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


cli.add_command(extract)
cli.add_command(run)
cli.add_command(reprocess_command)
cli.add_command(export)
cli.add_command(report)
cli.add_command(review)
cli.add_command(langid)
cli.add_command(mininet)
cli.add_command(demo)


def _budget(ws: Workspace) -> searching.SearchBudget:
    return searching.SearchBudget.from_settings(ws.settings)


def _fail(message: str, hint: str | None = None) -> None:
    click.echo(f"collie: error: {message}", err=True)
    if hint:
        click.echo(hint, err=True)


def main(argv: list[str] | None = None) -> None:
    """Run the CLI; map errors to exit codes (1 error, 2 usage, 130 interrupted)."""
    args = sys.argv[1:] if argv is None else argv
    if not args:  # a bare `collie` asks what there is: the help, on stdout, status 0
        with click.Context(cli, info_name="collie") as ctx:
            click.echo(cli.get_help(ctx))
        sys.exit(0)
    show_traceback = "--traceback" in args or bool(os.environ.get("COLLIE_TRACEBACK"))
    try:
        cli.main(args=args, prog_name="collie", standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except (KeyboardInterrupt, click.exceptions.Abort):
        click.echo(
            "\ncollie: interrupted. What was done is kept; run the command again to go on.",
            err=True,
        )
        sys.exit(130)
    except CollieError as exc:
        _fail(exc.message, exc.hint)
        sys.exit(2 if isinstance(exc, (UsageProblem, LanguageNotFound)) else 1)
    except ImportError as exc:
        if show_traceback or (exc.name or "").split(".")[0] == "collie":
            _unexpected(exc, show_traceback)
        else:  # a package missing or broken in this environment: name it
            missing = dependency_error(exc)
            _fail(missing.message, missing.hint)
        sys.exit(1)
    except Exception as exc:
        _unexpected(exc, show_traceback)
        sys.exit(1)
    sys.exit(0)


def _unexpected(exc: BaseException, show_traceback: bool) -> None:
    if show_traceback:
        traceback.print_exc()
    else:
        _fail(f"unexpected {type(exc).__name__}: {exc}", "Rerun with --traceback to see where.")
