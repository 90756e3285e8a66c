"""Options shared by collie's commands, and the context object they fill in.

`-w/--workspace` and `--set` are accepted before or after the command name; `--search`
and `--search-url` (and a command's own setting-like options) become flags over
settings, the strongest layer, with the option's name recorded as the value's source.
"""

from __future__ import annotations

import errno
import logging
import math
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from collie.config import SETTINGS_BY_KEY, parse_assignment
from collie.errors import CollieError, ConfigError, SettingsFileMissing, UsageProblem
from collie.lognames import AliasFormatter

if TYPE_CHECKING:  # imported where used, so `collie --version` loads no numpy (issue 46)
    from collie.langid.model import LangModel
    from collie.workspace.folder import Workspace

F = TypeVar("F", bound=Callable[..., Any])
CONTEXT: dict[str, Any] = {"help_option_names": ["-h", "--help"], "max_content_width": 88}


class FiniteFloatRange(click.FloatRange):
    """click's FloatRange, refusing nan and inf (which pass its bounds: nan compares
    false with everything, and inf has no upper bound to meet)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return number


@dataclass
class App:
    """What the group's options decided, shared with every command."""

    workspace: Path | None = None
    flags: dict[str, tuple[Any, str]] = field(default_factory=dict)
    quiet: bool = False
    verbose: int = 0

    def find_root(self) -> Path:
        from collie.workspace.folder import find_workspace

        return find_workspace(self.workspace, os.environ, Path.cwd())

    def find_root_or_none(self) -> Path | None:
        """The workspace, or None outside one; a workspace named by -w or
        $COLLIE_WORKSPACE that does not exist is still an error."""
        try:
            return self.find_root()
        except SettingsFileMissing:
            raise  # a workspace, whose settings would be shown wrong
        except CollieError:
            if self.workspace or os.environ.get("COLLIE_WORKSPACE"):
                raise
            return None

    def open(self) -> Workspace:
        from collie.workspace.folder import open_workspace

        return open_workspace(self.find_root(), os.environ, self.flags)


def note(message: str) -> None:
    """A line for the user on stderr."""
    click.echo(message, err=True)


def _set_workspace(ctx: click.Context, _param: click.Parameter, value: Path | None) -> None:
    if value is not None:
        ctx.ensure_object(App).workspace = value


def _set_flags(ctx: click.Context, _param: click.Parameter, values: tuple[str, ...]) -> None:
    app = ctx.ensure_object(App)
    for assignment in values:
        try:
            key, value = parse_assignment(assignment)
        except ConfigError as exc:
            raise click.BadParameter(str(exc)) from None
        app.flags[key] = (value, f"--set {key}")


class BarSafeHandler(logging.Handler):
    """Log records on stderr through tqdm, so they never break a progress bar."""

    def emit(self, record: logging.LogRecord) -> None:
        from tqdm import tqdm

        try:
            tqdm.write(self.format(record), file=sys.stderr)
        except Exception:
            self.handleError(record)


def configure_logging(verbose: int) -> None:
    """Log on stderr at WARNING, INFO with -v, DEBUG with -vv (through the bars)."""
    level = logging.WARNING - 10 * min(verbose, 2)
    root = logging.getLogger()
    for old in [h for h in root.handlers if isinstance(h, BarSafeHandler)]:
        root.removeHandler(old)
    handler = BarSafeHandler()
    handler.setLevel(level)
    handler.setFormatter(AliasFormatter("%(levelname)s %(name)s: %(message)s"))
    root.addHandler(handler)
    root.setLevel(level)


def _set_quiet(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value:
        ctx.ensure_object(App).quiet = True


def _set_verbose(ctx: click.Context, param: click.Parameter, value: int) -> None:
    app = ctx.ensure_object(App)
    if value > app.verbose:
        app.verbose = value
        configure_logging(value)


def common_options(func: F) -> F:
    """-w, --set, -q and -v, accepted before or after the command name."""
    func = click.option(
        "-q",
        "--quiet",
        is_flag=True,
        expose_value=False,
        callback=_set_quiet,
        help="No progress bars or notes.",
    )(func)
    func = click.option(
        "-v",
        "--verbose",
        count=True,
        expose_value=False,
        callback=_set_verbose,
        help="Log what happens (-vv for debug).",
    )(func)
    func = click.option(
        "--set",
        "assignments",
        metavar="KEY=VALUE",
        multiple=True,
        expose_value=False,
        callback=_set_flags,
        help="Override a setting for this command, e.g. --set fetch.delay=2.",
    )(func)
    func = click.option(
        "-w",
        "--workspace",
        type=click.Path(file_okay=False, path_type=Path),
        expose_value=False,
        callback=_set_workspace,
        help="The workspace directory; for init, where to create it (default: "
        "$COLLIE_WORKSPACE, or the current directory or a parent of it).",
    )(func)
    return func


def _set_backend(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    if value is not None:
        key = "search.backend" if param.name == "search" else "search.url"
        ctx.ensure_object(App).flags[key] = (value, f"--{param.name.replace('_', '-')}")


def set_flag(key: str) -> Callable[[click.Context, click.Parameter, Any], None]:
    """A callback that records an option's value as a flag over setting `key`."""

    def record(ctx: click.Context, param: click.Parameter, value: Any) -> None:
        if value is not None:
            ctx.ensure_object(App).flags[key] = (
                value,
                f"--{(param.name or key).replace('_', '-')}",
            )

    return record


def search_options(func: F) -> F:
    """--search NAME and --search-url URL: the search backend, as flags over settings."""
    func = click.option(
        "--search-url",
        metavar="URL",
        expose_value=False,
        callback=_set_backend,
        help="The backend's endpoint (a SearXNG instance's base URL, or any compatible service).",
    )(func)
    func = click.option(
        "--search",
        type=click.Choice(sorted(SETTINGS_BY_KEY["search.backend"].choices or ())),
        expose_value=False,
        callback=_set_backend,
        help="Search backend (default: search.backend).",
    )(func)
    return func


def workspace_model(ws: Workspace) -> LangModel:
    """The workspace's language model (Workspace.model)."""
    return ws.model()


def listen_problem(port: int, exc: OSError, option: str = "--port") -> UsageProblem:
    """What to say when a server cannot listen on 127.0.0.1:PORT (a busy or privileged
    port), given with `option`."""
    reason = exc.strerror or str(exc)
    if exc.errno == errno.EADDRINUSE:
        return UsageProblem(
            f"Cannot listen on 127.0.0.1:{port}: another program is using that port.",
            f"Choose another port with {option}, or {option} 0 for any free one; "
            "or stop the program that holds it.",
        )
    return UsageProblem(
        f"Cannot listen on 127.0.0.1:{port}: {reason}.",
        f"Choose another port with {option} (ports below 1024 need privileges), "
        f"or {option} 0 for any free one.",
    )
