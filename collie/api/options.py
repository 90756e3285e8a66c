"""What a caller of the API gives besides the work itself: settings overrides, the
workspace a path names, and how a use case opens it.

Settings overrides are the command line's flags: the strongest layer (defaults <
collie.toml < environment < these), given as `{key: value}` (`--set key=value`) or as a
use case's keyword arguments (`loops=3` is `--loops 3`). A use case takes an `Opener`,
which opens the workspace when the use case is ready to (the command line's
`App.open`, or a `collie.Workspace`'s), so that both check what they check in the same
order.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Union

from collie.config import check_value, lookup
from collie.errors import WorkspaceError
from collie.workspace.folder import (
    CONFIG_FILE,
    Workspace,
    is_workspace,
    settings_missing,
    settings_missing_error,
)

PathLike = Union[str, "os.PathLike[str]"]
Flags = dict[str, tuple[Any, str]]  # key -> (value, where it was given): the CLI's App.flags
Opener = Callable[[], Workspace]  # opens the workspace (settings read, database migrated)
Notes = Callable[[str], None]  # a line for the user (the command line: on stderr)

log = logging.getLogger(__name__)


def as_flags(
    settings: Mapping[str, Any] | None = None,
    named: Mapping[str, tuple[str, Any]] | None = None,
) -> Flags:
    """`settings` ({key: value}) and `named` ({argument: (key, value)}; None values left
    out) as flags, each value checked; named arguments win over `settings`. An unknown
    key or a bad value is a ConfigError."""
    flags: Flags = {}
    for key, value in (settings or {}).items():
        where = f"settings[{key!r}]"
        setting = lookup(key, where)
        flags[setting.key] = (check_value(setting, value, where), where)
    for argument, (key, value) in (named or {}).items():
        if value is not None:
            where = f"{argument}="
            flags[key] = (check_value(lookup(key, where), value, where), where)
    return flags


def workspace_root(path: PathLike) -> Path:
    """The workspace folder `path` names, or a WorkspaceError saying what to do."""
    root = Path(path).expanduser().resolve()
    if settings_missing(root):
        raise settings_missing_error(root)
    if not is_workspace(root):
        raise WorkspaceError(
            f"{root} is not a collie workspace: it has no {CONFIG_FILE}.",
            "Create one with collie.init(path, lang, docs=...) (or `collie init`).",
        )
    return root


def log_note(message: str) -> None:
    """Where a use case's notes go when its caller gives none: the log of "collie.api"
    (a warning as a warning: Python shows those even when logging is not set up)."""
    level = logging.WARNING if message.startswith("warning") else logging.INFO
    log.log(level, message)


def no_note(message: str) -> None:
    """Notes nobody reads (the command line's -q)."""
