"""Where a use case may write a file the user named (an export, a report, a model).

Never onto a workspace's own files (collie.db and its journal, collie.toml, the lock, the
workspace folder itself, or anything in seed/, cache/, models/, logs/), wherever the
path leads (relative, `..`, symlinks); never over an existing file unless asked to
(`--force`, `replace=True`). Checked before anything is written.
"""

from __future__ import annotations

from pathlib import Path

from collie.errors import InputError
from collie.workspace.folder import CONFIG_FILE, DB_FILE, LOCK_FILE, is_workspace

OWN_FILES = (CONFIG_FILE, DB_FILE, LOCK_FILE, *(DB_FILE + s for s in ("-wal", "-shm", "-journal")))
OWN_FOLDERS = ("seed", "cache", "warc", "models", "logs")  # exports/ is for the user's files
MANIFEST = "manifest.jsonl"  # what marks a folder as an earlier `export --format dir`


def is_dataset(path: Path) -> bool:
    """Is `path` an earlier `export --format dataset` (its card and its shards)?"""
    return (path / "README.md").is_file() and any((path / "data").glob("train-*-of-*"))


def workspace_part(path: Path) -> tuple[Path, str] | None:
    """(workspace root, what of it) when `path` resolves to a workspace's own file or
    folder, or into one of its own folders; None otherwise."""
    resolved = path.resolve()
    for root in (resolved, *resolved.parents):
        if not is_workspace(root):
            continue
        if root == resolved:
            return root, "folder"
        first = resolved.relative_to(root).parts[0]
        if first in OWN_FILES:
            return root, first
        if first in OWN_FOLDERS:
            return root, f"{first}/ folder"
        return None
    return None


def refuse_own_files(path: Path, allowed: tuple[str, ...] = (), example: str = "") -> None:
    """Refuse an output path that is (or is in) a workspace's own file or folder, but in
    the `allowed` folders (e.g. "models" for a language model)."""
    own = workspace_part(path)
    if own is None or any(own[1] == f"{name}/ folder" for name in allowed):
        return
    root, what = own
    where = "is" if what in OWN_FILES or what == "folder" else "is in"
    raise InputError(
        f"Refusing to write {path}: it {where} the workspace's own {what} ({root}); "
        "nothing was written.",
        f"Choose another name, e.g. {example or 'exports/corpus.txt in the workspace'}.",
    )


def check_output(path: Path, force: bool, folder: bool = False) -> None:
    """Refuse an output path that would destroy a workspace or replace an existing file
    (or, with `folder`, a non-empty folder) without --force."""
    refuse_own_files(path)
    if folder:
        _check_folder(path, force)
    elif path.is_dir():
        raise InputError(
            f"Cannot write {path}: it is a directory.",
            f"Give a file name (e.g. {path / 'corpus.txt'}), or --format dir.",
        )
    elif path.exists() and not path.is_file():  # a device, a pipe: --force would replace it
        raise InputError(
            f"Cannot write {path}: it is a device or special file, not a regular file; "
            "nothing was written.",
            "Give a regular file's path, or - to write to standard output.",
        )
    elif (path.exists() or path.is_symlink()) and not force:
        raise InputError(
            f"{path} already exists; nothing was written.",
            "Add --force to replace it, or choose another name.",
        )


def _check_folder(path: Path, force: bool) -> None:
    if not path.exists():
        return
    if not path.is_dir():
        raise InputError(
            f"Cannot write {path}: it exists and is not a directory.",
            "Give a new or empty directory for --format dir.",
        )
    if not any(path.iterdir()):
        return
    if not ((path / MANIFEST).is_file() or is_dataset(path)):
        raise InputError(
            f"Cannot write {path}: it exists and is not an empty directory.",
            f"Give a new or empty directory (--force replaces only an earlier export's "
            f"folder, one with {MANIFEST}, or a dataset's: README.md and data/train-*).",
        )
    if not force:
        raise InputError(
            f"{path} already holds an export; nothing was written.",
            "Add --force to replace it, or give a new or empty directory.",
        )
