"""Replay: the workspace's WARC files served by pywb, webrecorder's replay server, so a
reviewer sees a page as collie fetched it (issue 33).

pywb is an optional extra (`pip install 'collie[replay]'`; it is GPL-3.0 and runs as
a program of its own, never imported). `ReplayServer` writes the CDXJ index
(collie.archive.index, warc/index.cdxj) when a WARC file is newer than it, writes a
pywb configuration naming the index and the warc/ folder as the collection "collie" in
a temporary folder, starts `wayback` on 127.0.0.1 and waits until it answers. A page's
archived copy is then at `{base}/collie/{timestamp}/{url}` (with pywb's banner) and its
bytes as received at `{base}/collie/{timestamp}id_/{url}`.
"""

from __future__ import annotations

import ctypes
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType

import requests

from collie.archive.index import INDEX_FILE, index_is_current, timestamp, write_index
from collie.archive.reader import WARC_FOLDER, archive_files
from collie.archive.writer import warc_date
from collie.errors import CollieError, plural

COLLECTION = "collie"
START_SECONDS = 60.0  # pywb (gevent) starts in a few seconds; a slow machine gets more
PR_SET_PDEATHSIG = 1  # prctl(2)
INSTALL_HINT = "Install the replay extra: pip install 'collie[replay]' (it brings pywb)."


def find_wayback() -> str | None:
    """pywb's `wayback` program: beside this Python's (the same environment), or on PATH."""
    beside = Path(sys.executable).parent / "wayback"
    return str(beside) if beside.exists() else shutil.which("wayback")


def warc_files(root: Path) -> list[str]:
    """The workspace's WARC files."""
    return archive_files(root / WARC_FOLDER)


def ensure_index(
    root: Path, expected: Iterable[str] = ()
) -> tuple[Path, dict[str, tuple[str, int]]]:
    """warc/index.cdxj of the workspace at `root`, written again when a WARC file is
    newer (CollieError when there are no WARC files); and the damaged files (name ->
    (damage, whole records indexed)), among them those of `expected` (the files page
    rows name) that are missing."""
    files = warc_files(root)
    named = sorted(set(expected))
    if not files and named:  # the page rows name files that are gone (issue 58)
        raise CollieError(
            f"warc/ holds none of the {plural(len(named), 'WARC file', 'WARC files')} the "
            f"fetched pages were kept in ({named[0]}{', ...' if len(named) > 1 else ''}): "
            "they were deleted or moved, so there is nothing to index or replay.",
            "Put the files back into warc/ from a copy; or run `collie check --repair`, and "
            "the next `collie run` fetches the lost pages again.",
        )
    if not files:
        raise CollieError(
            "This workspace has no WARC files (warc/) to index or replay.",
            "Run `collie run` first (with warc.keep all or target).",
        )
    folder = root / WARC_FOLDER
    missing = sorted(set(expected) - set(files))  # the index may still name them
    damaged: dict[str, tuple[str, int]] = {}
    if missing or not index_is_current(folder, files):
        _, damaged = write_index(folder, files)
    for name in missing:
        damaged[name] = ("missing", 0)
    return folder / INDEX_FILE, damaged


def archived_path(url: str, fetched_at: float, raw: bool = False) -> str:
    """The replay path of a page fetched at `fetched_at` (`raw`: the bytes as received)."""
    stamp = timestamp(warc_date(fetched_at))
    return f"/{COLLECTION}/{stamp}{'id_' if raw else ''}/{url}"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def listen_error(port: int) -> OSError | None:
    """Why nothing can listen on 127.0.0.1:`port` now (another program holds it, a
    privileged port), or None."""
    try:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", port))
    except OSError as exc:
        return exc
    return None


class ReplayServer:
    """pywb over a workspace's WARC files, for a `with` block (module docstring)."""

    def __init__(
        self,
        root: Path,
        port: int = 0,
        wayback: str | None = None,
        folder: Path | None = None,
        files: list[str] | None = None,
    ) -> None:
        """The workspace at `root`'s WARC files; or, with `folder` and `files`, those WARC
        files of another folder (a web archive's, e.g. Common Crawl's: its CDX API is
        then at {base}/collie/cdx)."""
        self.root = root
        self.port = port or free_port()
        self.wayback = wayback or find_wayback()
        self.folder = folder
        self.files = files
        self._process: subprocess.Popen[bytes] | None = None
        self._folder: tempfile.TemporaryDirectory[str] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url_for(self, url: str, fetched_at: float, raw: bool = False) -> str:
        return self.base + archived_path(url, fetched_at, raw)

    def start(self) -> ReplayServer:
        if self.wayback is None:
            raise CollieError("pywb is not installed, so there is no replay server.", INSTALL_HINT)
        busy = listen_error(self.port)  # else another server's answer would pass for pywb's
        if busy is not None:
            raise CollieError(
                f"pywb cannot listen on 127.0.0.1:{self.port}: {busy.strerror or busy}.",
                "Choose another port for the replay server, or 0 for any free one.",
            )
        if self.folder is not None:
            archive = self.folder.resolve()
            index, _ = write_index(archive, self.files or [])
        else:
            index, _ = ensure_index(self.root)  # the damage was named by the caller
            archive = (self.root / WARC_FOLDER).resolve()
        self._folder = tempfile.TemporaryDirectory(prefix="collie-replay-")
        folder = Path(self._folder.name)
        (folder / "config.yaml").write_text(
            f"collections:\n  {COLLECTION}:\n"
            f"    index_paths: {_yaml_string(str(index.resolve()))}\n"
            f"    archive_paths: {_yaml_string(str(archive) + '/')}\n",
            encoding="utf-8",
        )
        log = (folder / "wayback.log").open("wb")
        command = [self.wayback, "--port", str(self.port), "--bind", "127.0.0.1"]
        self._process = subprocess.Popen(
            command, cwd=folder, stdout=log, stderr=log, preexec_fn=_die_with_parent
        )
        self._wait(folder / "wayback.log")
        return self

    def _wait(self, log: Path) -> None:
        deadline = time.monotonic() + START_SECONDS
        assert self._process is not None
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                tail = log.read_text(errors="replace")[-800:]
                self.stop()
                raise CollieError(f"pywb stopped as it started:\n{tail}", INSTALL_HINT)
            try:
                requests.get(f"{self.base}/{COLLECTION}/", timeout=2)
            except requests.RequestException:
                time.sleep(0.2)
                continue
            if self._process.poll() is None:  # the answer was pywb's, not another server's
                return
        self.stop()
        raise CollieError(f"pywb did not answer on port {self.port} within {START_SECONDS:g} s.")

    def stop(self) -> None:
        if self._process is not None:
            self._process.terminate()
            try:
                self._process.wait(10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
            self._process = None
        if self._folder is not None:
            self._folder.cleanup()
            self._folder = None

    def __enter__(self) -> ReplayServer:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


def _die_with_parent() -> None:
    """In the child, before pywb starts: on Linux, ask for SIGTERM when the collie that
    started it dies, however it dies (kill -9 too), so no replay server is left behind."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        except (OSError, AttributeError):
            pass


def stop_on_sigterm() -> None:
    """A SIGTERM ends the command as Ctrl-C does, through its `with` blocks (the
    replay server stopped, its temporary folder removed)."""

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)


def _yaml_string(text: str) -> str:
    """A YAML double-quoted scalar (a path with spaces or colons stays one value)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
