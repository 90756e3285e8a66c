"""`collie init`: make a workspace, or write its collie.toml again (click only)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from collie.api.create import create_workspace, recover_settings
from collie.cli import views as text
from collie.cli.options import CONTEXT, App, common_options, note, search_options
from collie.errors import UnusableDocuments, UsageProblem


@click.command(context_settings=CONTEXT)
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
    "what collie.db and seed/ know, or its language model when it is damaged; changes "
    "nothing else.",
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
    and lists what it could not recover; or, when its language model (models/langid.npz)
    is damaged, trains it again from the seed documents.

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
    try:
        made = create_workspace(
            root, lang, docs, wronglang, seed_words, encoding, force, app.flags, note
        )
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
            "warnings": made.warnings,
            "skipped": [{"file": str(s.source), "reason": s.reason} for s in plan.skipped],
        }
        click.echo(json.dumps(data, ensure_ascii=False, indent=2))


def _recover(root: Path, as_json: bool) -> None:
    """`collie init --recover`: write collie.toml again and say what it holds."""
    made = recover_settings(root)
    if made.model is not None:
        note(
            f"Rebuilt {made.model} from the seed documents; collie.toml, collie.db and "
            "seed/ are unchanged."
        )
        if as_json:
            click.echo(json.dumps({"workspace": str(root), "rebuilt": made.model}, indent=2))
        return
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
