"""The `collie` command line: the group, its commands in the order of a mining session,
and main(), which turns errors into exit codes. Each command family lives in its own
module of collie/cli/ (parse options, open the workspace, call, print).

Results go to stdout; notes, progress and logs to stderr. Exit status: 0 success,
1 error, 2 usage problem, 130 interrupted.
"""

from __future__ import annotations

import importlib
import os
import sys
import traceback
from pathlib import Path
from typing import Any

import click

from collie import __version__
from collie.cli.options import CONTEXT, App, common_options, configure_logging
from collie.errors import (
    CollieError,
    LanguageNotFound,
    UsageProblem,
    dependency_error,
    disk_full_error,
    find_disk_full,
)

# Each command's module and name, in the order of a mining session. A command's module
# is imported when the command is first asked for, so that `collie langid identify`
# does not import the crawler (start-up: issue 40).
COMMANDS = {
    "init": ("collie.cli.init", "init"),
    "status": ("collie.cli.status", "status"),
    "config": ("collie.cli.status", "config"),
    "language": ("collie.cli.language", "language"),
    "seeds": ("collie.cli.search", "seeds"),
    "queries": ("collie.cli.search", "queries"),
    "safetynet": ("collie.cli.language", "safetynet"),
    "search": ("collie.cli.search", "search"),
    "extract": ("collie.cli.extract", "extract"),
    "run": ("collie.cli.run", "run"),
    "reprocess": ("collie.cli.reprocess", "reprocess_command"),
    "check": ("collie.cli.check", "check"),
    "scan": ("collie.cli.scan", "scan_command"),
    "export": ("collie.cli.export", "export"),
    "report": ("collie.cli.export", "report"),
    "review": ("collie.cli.review", "review"),
    "replay": ("collie.cli.replay", "replay"),
    "langid": ("collie.cli.langid", "langid"),
    "mininet": ("collie.cli.mininet", "mininet"),
    "demo": ("collie.cli.mininet", "demo"),
}


class LazyCommands(dict[str, Any]):
    """Command name -> command, its module imported on first use (`COMMANDS`)."""

    def __getitem__(self, name: str) -> Any:
        command = super().__getitem__(name)
        if command is None:
            module, attribute = COMMANDS[name]
            command = getattr(importlib.import_module(module), attribute)
            super().__setitem__(name, command)
        return command

    def get(self, name: str, default: Any = None) -> Any:
        if name not in self:
            return default
        return self[name]

    def values(self) -> list[Any]:  # type: ignore[override]
        return [self[name] for name in self]

    def items(self) -> list[tuple[str, Any]]:  # type: ignore[override]
        return [(name, self[name]) for name in self]


class SectionedGroup(click.Group):
    """`collie --help` lists its commands by what a user does with them, in the order
    of a mining session, with their whole first line."""

    SECTIONS = (
        ("Mining", ("init", "run", "status", "report", "config", "search", "seeds", "queries")),
        ("The corpus", ("export", "review", "reprocess", "check")),
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

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command; a full disk under it becomes one clear error (issue 45)."""
        try:
            return super().invoke(ctx)
        except Exception as exc:
            full = find_disk_full(exc)
            if full is None or isinstance(exc, CollieError):
                raise
            raise disk_full_error(_full_place(ctx.ensure_object(App), full)) from exc


def _full_place(app: App, exc: BaseException) -> Path:
    """The folder whose disk is full: the workspace, unless the failed write was to a
    file outside it (an export's output); the current directory when there is neither."""
    try:
        root = app.find_root_or_none()
    except CollieError:
        root = None
    root = root or (app.workspace.resolve() if app.workspace else None)
    filename = getattr(exc, "filename", None)
    if isinstance(filename, (str, os.PathLike)):
        target = Path(os.fsdecode(filename)).resolve()
        if root is None or root not in (target, *target.parents):
            return target.parent
    return root or Path.cwd()


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
      1    an error the message explains (workspace, input, settings, network,
           a full disk), or output left incomplete by a damaged WARC file
      2    the command line needs changing (an option missing or wrong, an
           unknown language)
      130  interrupted (Ctrl-C): what was done is kept; run again to go on
    """
    configure_logging(ctx.ensure_object(App).verbose)


cli.commands = LazyCommands(dict.fromkeys(COMMANDS))


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
        full = None if show_traceback else find_disk_full(exc)
        if full is None:
            _unexpected(exc, show_traceback)
        else:  # a full disk met while the command's workspace was closed
            _fail(disk_full_error(_full_place(App(), full)).message)
        sys.exit(1)
    sys.exit(0)


def _unexpected(exc: BaseException, show_traceback: bool) -> None:
    if show_traceback:
        traceback.print_exc()
    else:
        _fail(f"unexpected {type(exc).__name__}: {exc}", "Rerun with --traceback to see where.")
