"""The `collie` command line: the group, its commands in the order of a mining session,
and main(), which turns errors into exit codes. Each command family lives in its own
module of collie/cli/ (parse options, open the workspace, call, print).

Results go to stdout; notes, progress and logs to stderr. Exit status: 0 success,
1 error, 2 usage problem, 130 interrupted.
"""

from __future__ import annotations

import errno
import importlib
import os
import sys
import traceback
from pathlib import Path
from typing import Any

import click

from collie.cli.options import CONTEXT, App, common_options, configure_logging
from collie.config import unknown_environment
from collie.errors import (
    CollieError,
    InputError,
    LanguageNotFound,
    UsageProblem,
    dependency_error,
    disk_full_error,
    find_disk_full,
    unreadable_file_error,
)
from collie.version import __version__

# Each command's module, name and one-line summary, in the order of a mining session. A
# command's module is imported when the command is first asked for, so that `collie
# langid identify` does not import the crawler (start-up: issue 40), and `collie --help`
# lists the summaries without importing any (issue 46: tests/test_cli_startup.py checks
# that each is the command's own short help).
COMMANDS: dict[str, tuple[str, str, str]] = {
    "init": (
        "collie.cli.init",
        "init",
        "Make the current directory (or -w DIR) a collie workspace.",
    ),
    "status": (
        "collie.cli.status",
        "status",
        "Show the workspace: language, changed settings, seed documents, loops.",
    ),
    "config": (
        "collie.cli.status",
        "config",
        "Show every effective setting and where its value came from.",
    ),
    "language": (
        "collie.cli.language",
        "language",
        "What collie knows about a language: codes, names, countries, domains.",
    ),
    "seeds": (
        "collie.cli.search",
        "seeds",
        "Show the seed list a loop uses, with each word's frequency or odds ratio.",
    ),
    "queries": (
        "collie.cli.search",
        "queries",
        "Show the queries the next loop would send: random combinations of seed words, "
        "none sent before from this workspace, the same for the same workspace state.",
    ),
    "safetynet": (
        "collie.cli.language",
        "safetynet",
        "List the languages whose frequent words keep seed words out, or one language's.",
    ),
    "search": (
        "collie.cli.search",
        "search",
        "Send one query to the search backend and print the results.",
    ),
    "extract": (
        "collie.cli.extract",
        "extract",
        "Show what collie keeps of one page: its clean text, or everything it learnt.",
    ),
    "run": (
        "collie.cli.run",
        "run",
        "Mine the web: seed words -> queries -> search -> fetch -> language ID -> crawl "
        "-> near-duplicates, loop after loop.",
    ),
    "reprocess": (
        "collie.cli.reprocess",
        "reprocess_command",
        "Process the fetched pages again from the workspace's WARC files: decoding, "
        "extraction, language ID and near-duplicates, with today's settings and language "
        "model, without the network.",
    ),
    "check": (
        "collie.cli.check",
        "check",
        "Check the workspace's WARC files, the only copy of the pages' bodies: every "
        "gzip member whole, every record's digests right (as `warcio check` does), and "
        "every page row's record where the row says.",
    ),
    "scan": (
        "collie.cli.scan",
        "scan_command",
        "Mine web-archive files for the workspace's language, feeding the live loop.",
    ),
    "export": (
        "collie.cli.export",
        "export",
        "Write the corpus: the target-language documents, near-duplicates left out, and "
        "of each only its paragraphs in the target language (--segments all: every "
        "paragraph).",
    ),
    "report": (
        "collie.cli.export",
        "report",
        "Report what the runs found: per loop queries, URLs, pages, target documents from "
        "search and from crawling, drop reasons and words; languages of the pages "
        "fetched; the best sites and queries; each...",
    ),
    "review": (
        "collie.cli.review",
        "review",
        "Judge a sample of the corpus in the browser: mainly, some or no target language.",
    ),
    "replay": (
        "collie.cli.replay",
        "replay",
        "Show fetched pages as collie received them, from the workspace's WARC files.",
    ),
    "langid": (
        "collie.cli.langid",
        "langid",
        "Language identification over 400+ languages (ISO 639-3 codes).",
    ),
    "mininet": (
        "collie.cli.mininet",
        "mininet",
        "The closed-world web: build one, serve it, score a corpus mined from it.",
    ),
    "demo": (
        "collie.cli.mininet",
        "demo",
        "Mine a closed-world web for Zulu, end to end, and score the corpus.",
    ),
}


class LazyCommands(dict[str, Any]):
    """Command name -> command, its module imported on first use (`COMMANDS`)."""

    def __getitem__(self, name: str) -> Any:
        command = super().__getitem__(name)
        if command is None:
            module, attribute, _summary = COMMANDS[name]
            command = getattr(importlib.import_module(module), attribute)
            super().__setitem__(name, command)
        return command

    def summary(self, name: str) -> str | None:
        """The command's one-line help, without importing its module; None for a
        command not in `COMMANDS`."""
        command = super().get(name)
        if command is not None:
            return None if command.hidden else str(command.get_short_help_str(limit=200))
        return COMMANDS[name][2] if name in COMMANDS else None

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
            rows = [(name, help) for name in names if (help := self._summary(name)) is not None]
            listed.update(name for name, _help in rows)
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)
        rest = [
            (name, help)
            for name in self.list_commands(ctx)
            if name not in listed and (help := self._summary(name)) is not None
        ]
        if rest:
            with formatter.section("Other commands"):
                formatter.write_dl(rest)

    def _summary(self, name: str) -> str | None:
        """A command's line in the help, None for a hidden or unknown one; a lazy
        command's from `COMMANDS`, so the help imports no command (issue 46)."""
        if isinstance(self.commands, LazyCommands) and name in COMMANDS:
            return self.commands.summary(name)
        command = self.commands.get(name)
        if command is None or command.hidden:
            return None
        return str(command.get_short_help_str(limit=200))

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command; a full disk under it becomes one clear error (issue 45)."""
        try:
            return super().invoke(ctx)
        except Exception as exc:
            if isinstance(exc, CollieError):
                raise
            refused = _read_only_refusal(ctx.ensure_object(App), exc)
            if refused is not None:
                raise refused from exc
            unreadable = _unreadable(exc)
            if unreadable is not None:
                raise unreadable from exc
            full = find_disk_full(exc)
            if full is not None:
                raise disk_full_error(_full_place(ctx.ensure_object(App), full)) from exc
            impossible = _impossible_path(exc)
            if impossible is not None:
                raise impossible from exc
            raise


def _read_only_refusal(app: App, exc: BaseException) -> CollieError | None:
    """A write refused in a workspace this process can only read (SQLite's "readonly
    database", or a file of the workspace it may not write): the read-only error, not
    a broken workspace or an unexpected one (issue 46). None for anything else."""
    from collie.store.database import READ_ONLY_ERRNOS, read_only_error, writable
    from collie.workspace.folder import DB_FILE

    try:
        root = app.find_root_or_none()
    except CollieError:
        return None
    if root is None or writable(root / DB_FILE):
        return None
    seen: BaseException | None = exc
    while seen is not None:
        if "readonly database" in str(seen) or (
            isinstance(seen, OSError) and seen.errno in READ_ONLY_ERRNOS
        ):
            return read_only_error(root)
        seen = seen.__cause__ or seen.__context__
    return None


def _unreadable(exc: BaseException) -> CollieError | None:
    """A file the command could not read for want of permission (a WARC file of another
    user's): named, with `chmod`, not an unexpected PermissionError (issue 58)."""
    seen: BaseException | None = exc
    while seen is not None:
        name = getattr(seen, "filename", None)
        if isinstance(seen, PermissionError) and isinstance(name, (str, os.PathLike)):
            path = Path(os.fsdecode(name))
            if path.exists() and not os.access(path, os.R_OK):
                return unreadable_file_error(path)
        seen = seen.__cause__ or seen.__context__
    return None


_PATH_PROBLEMS = {
    errno.ENOENT: "no such file or folder, and none can be made there",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.ENOTDIR: "a part of the path is a file, not a folder",
    errno.EISDIR: "it is a folder, where a file is expected",
    errno.EROFS: "the file system is read-only",
}


def _impossible_path(exc: BaseException) -> CollieError | None:
    """A file or folder the command could not make, open or write for what the path is
    (a folder that cannot be made, as /proc/x; a file on the way; no permission; a
    read-only file system): one line naming the path, not an unexpected error (issue
    58). None for anything else."""
    seen: BaseException | None = exc
    while seen is not None:
        name = getattr(seen, "filename", None)
        problem = _PATH_PROBLEMS.get(seen.errno or 0) if isinstance(seen, OSError) else None
        if problem and isinstance(name, (str, os.PathLike)) and os.fsdecode(name):
            return InputError(
                f"cannot use {os.fsdecode(name)}: {problem}; nothing more was written there.",
                "Give a path in a folder that exists and that this user may write to "
                "(or change the folder's permissions with chmod), then run the same "
                "command again.",
            )
        seen = seen.__cause__ or seen.__context__
    return None


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
    for line in unknown_environment(os.environ):
        click.echo(f"collie: warning: {line}", err=True)


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
        if isinstance(exc, click.UsageError) and exc.ctx is None:  # a group option's: no usage
            click.echo("Try 'collie -h' for help.", err=True)
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
    except MemoryError:
        if show_traceback:
            traceback.print_exc()
        _fail(
            "collie ran out of memory: the input is too large for this machine's memory "
            "(a very long paragraph or page); what was done before is kept.",
            "Split the input into smaller pieces, or run where more memory is free.",
        )
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
