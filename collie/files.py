"""Writing a file whole: into a temporary file beside it, synced, then renamed over it.

`atomic_write` is the one way collie writes a file that must never be seen half
written (settings, exports, the body cache, the WARC index, a world file, a model):
readers see the old file or the new one, and a write that fails (an exception, Ctrl-C)
leaves the old file as it was and no temporary file behind. The temporary file gets the
mode a new file gets under the process's umask (as `open` would give it), so the file
renamed into place is not the 0600 of `tempfile.mkstemp`.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, suppress
from pathlib import Path
from typing import IO, Any, BinaryIO, Literal, TextIO, overload


@overload
def atomic_write(path: Path, mode: Literal["wb"] = "wb") -> AbstractContextManager[BinaryIO]: ...


@overload
def atomic_write(
    path: Path, mode: Literal["w"], *, encoding: str = "utf-8", newline: str | None = "\n"
) -> AbstractContextManager[TextIO]: ...


def atomic_write(
    path: Path, mode: str = "wb", *, encoding: str = "utf-8", newline: str | None = "\n"
) -> AbstractContextManager[IO[Any]]:
    """A file object (binary with "wb", text with "w": `encoding`, `newline`) writing a
    temporary file in `path`'s folder; when the `with` block ends without an error the
    file is flushed, fsync'd and renamed to `path` (replacing it), else removed."""
    if mode not in ("wb", "w"):
        raise ValueError(f"atomic_write: mode {mode!r}, not 'wb' or 'w'")
    return _atomic_write(Path(path), mode, encoding, newline)


@contextmanager
def _atomic_write(path: Path, mode: str, encoding: str, newline: str | None) -> Iterator[IO[Any]]:
    with atomic_path(path) as tmp:
        if mode == "wb":
            handle: IO[Any] = tmp.open("wb")
        else:
            handle = tmp.open("w", encoding=encoding, newline=newline)
        with handle:
            yield handle


@contextmanager
def atomic_path(path: Path) -> Iterator[Path]:
    """A temporary path in `path`'s folder (an empty file, made there), for a file that
    another library writes by name (SQLite, numpy): renamed to `path` once the `with`
    block ends without an error (its data fsync'd first), else removed."""
    path = Path(path)
    tmp = _new_temporary(path)
    try:
        yield tmp
        _fsync_file(tmp)
        os.replace(tmp, path)
    except BaseException:
        with suppress(OSError):
            tmp.unlink()
        raise
    _fsync_folder(path.parent)


def _new_temporary(path: Path) -> Path:
    """A new, empty, hidden file beside `path` (`.NAME.RANDOM.tmp`), made with the mode
    the umask gives a new file."""
    while True:
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
        try:
            os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        except FileExistsError:
            continue
        return tmp


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_folder(folder: Path) -> None:
    """Make the rename itself durable, where the system lets a folder be synced."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
