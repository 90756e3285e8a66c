"""The CollieError family: every message says what went wrong and what to do next.

Library code raises these; only `cli.py` turns them into exit codes (1 for errors,
2 for usage problems, 130 for Ctrl-C).
"""

from __future__ import annotations

import errno
import shutil
from pathlib import Path


class CollieError(Exception):
    """A problem the user can fix; `hint` says how."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message}\n{self.hint}" if self.hint else self.message


class UsageProblem(CollieError):
    """Bad input on the command line (exit status 2)."""


class LanguageNotFound(UsageProblem):
    """A language code or name that matches nothing, or several languages."""

    def __init__(self, message: str, hint: str | None, suggestions: list[str]) -> None:
        super().__init__(message, hint)
        self.suggestions = suggestions


class UnusableDocuments(UsageProblem):
    """Seed documents none of which could be used: each file skipped, with the reason."""

    SHOWN = 5  # files listed in the message; `everything()` lists them all

    def __init__(self, head: str, hint: str, skipped: list[tuple[str, str]]) -> None:
        super().__init__(self._text(head, skipped, self.SHOWN), hint)
        self.head = head
        self.skipped = skipped

    def everything(self) -> UnusableDocuments:
        """The same error, every skipped file in its message."""
        full = UnusableDocuments(self.head, self.hint or "", self.skipped)
        full.message = self._text(self.head, self.skipped, None)
        return full

    @staticmethod
    def _text(head: str, skipped: list[tuple[str, str]], limit: int | None) -> str:
        shown = skipped if limit is None else skipped[:limit]
        lines = [head, *(f"  skipped {file}: {reason}" for file, reason in shown)]
        if len(shown) < len(skipped):
            lines.append(f"  ... and {len(skipped) - len(shown)} more (-v lists them all)")
        return "\n".join(lines)


class ConfigError(CollieError):
    """A setting with an unknown name or an invalid value."""


class WorkspaceError(CollieError):
    """A workspace that is missing, already exists, is locked, or is broken."""


class SettingsFileMissing(WorkspaceError):
    """A workspace (collie.db is there) whose collie.toml is gone."""


class InputError(CollieError):
    """A file given by the user that cannot be read or used."""


class DependencyError(CollieError):
    """A package collie needs is missing or broken in this Python environment."""


# Import names whose package on PyPI is named otherwise.
_PACKAGES = {
    "lxml.html.clean": "lxml_html_clean",
    "sklearn": "scikit-learn",
    "distributed": "dask[distributed]",
    "dask_jobqueue": "dask-jobqueue",
}


def dependency_error(exc: ImportError) -> DependencyError:
    """An ImportError as one line naming the package to install."""
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if "lxml.html.clean" in str(exc) or "lxml_html_clean" in str(exc):
        module = "lxml.html.clean"  # lxml's own message: "... is now a separate project"
    else:
        module = exc.name or ""
    package = next(
        (pkg for name, pkg in _PACKAGES.items() if module == name or module.startswith(name + ".")),
        module.split(".")[0],
    )
    hint = (
        f"Install it into the environment collie runs in: pip install {package}"
        if package
        else "Reinstall collie and its dependencies: pip install --force-reinstall collie"
    )
    return DependencyError(
        f"a package collie needs is missing or broken: {text}"
        + (f" (package: {package})" if package else ""),
        hint,
    )


class ArchiveDamaged(CollieError):
    """WARC files of the workspace found damaged (garbled, truncated, missing) by a
    command that read around them: what their whole records allowed was made."""

    def __init__(
        self, head: str, damaged: dict[str, tuple[str, int]], unit: tuple[str, str]
    ) -> None:
        """`head`, then a line a file: its damage and `unit` (singular, plural) counted."""
        lines = [
            head,
            *(
                f"  warc/{name}: {what} ({plural(n, *unit)})"
                for name, (what, n) in sorted(damaged.items())
            ),
        ]
        super().__init__(
            "\n".join(lines),
            "The rest was made from the whole records. Restore the damaged files from a "
            "copy if you have one, then run the same command again.",
        )
        self.damaged = damaged


def unreadable_file_error(path: Path | str) -> InputError:
    """The one-line error for a file collie may not read (another user's, or a mode
    that forbids reading): name it and the permission (issue 58)."""
    return InputError(
        f"cannot read {path}: permission denied (it belongs to another user, or its mode "
        "forbids reading); nothing was changed.",
        f"Make it readable (as its owner: chmod u+r {path}), or run collie as the user who "
        "owns the workspace.",
    )


def plural(n: int, one: str, many: str) -> str:
    """ "1 page", "3 pages"."""
    return f"{n} {one if n == 1 else many}"


class DiskFull(CollieError):
    """A write that found the disk full: ENOSPC, EDQUOT or SQLite's "database or disk is full".

    What was written before is kept: the store commits one transaction per batch and a
    torn WARC record is cut on the next open, so the same command run again goes on."""


_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})
_SQLITE_FULL = 13  # SQLite's result code, whose message is "database or disk is full"


def find_disk_full(exc: BaseException) -> BaseException | None:
    """The disk-full error in `exc` or its causes (a worker's error may wrap it), or None.
    SQLite's is known by its result code, so this module need not import sqlite3."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) and current.errno in _FULL_ERRNOS:
            return current
        if getattr(current, "sqlite_errorcode", None) == _SQLITE_FULL or (
            "database or disk is full" in str(current)  # sqlite3 before Python 3.11
        ):
            return current
        current = current.__cause__ or current.__context__
    return None


def disk_is_full(place: Path, margin: int = 1 << 20) -> bool:
    """Has the disk holding `place` less than `margin` bytes free (what SQLite's "disk
    I/O error" means when it could not grow a file there)?"""
    try:
        return shutil.disk_usage(place).free < margin
    except OSError:
        return False


def disk_full_error(place: Path) -> DiskFull:
    """The one-line error for a full disk under `place` (a workspace or a file's folder)."""
    probe = place
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    try:
        free = f"{shutil.disk_usage(probe).free / 1e6:.0f} MB free"
    except OSError:
        free = "free space unknown"
    return DiskFull(
        f"the disk holding {place} is full ({free}): free space, then run the same "
        "command again; nothing is lost"
    )
