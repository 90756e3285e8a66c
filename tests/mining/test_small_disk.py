"""A disk that fills during `collie run` and during `collie scan` (issue 45, parts 4 and
5), on a real small filesystem: a tmpfs a little larger than the workspace, mounted for
the test. Each command ends in one line naming the disk, exit 1, and once the disk has
room the same command goes on to the corpus an undisturbed workspace has.

Mounting needs root (CAP_SYS_ADMIN); where it is refused the test says so and is
skipped. tests/test_diskfull.py meets the same errors on any machine at the boundaries
below the filesystem (SQLite's own "database or disk is full", ENOSPC from fsync)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from collie.mininet.server import MiniWebServer, World

from ..clihelp import Run, rows, run_collie
from ..zuluworld import zulu_workspace
from .test_scan_passes import write_archive

KIB = 1024


@contextmanager
def small_disk(place: Path) -> Iterator[Callable[[int], None]]:
    """A tmpfs at `place`; yields `room(n)`: make its size what it holds now plus `n`
    bytes (a full disk for a command that writes more)."""
    place.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(place)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode:
        pytest.skip(f"a tmpfs cannot be mounted here: {mounted.stderr.strip()}")

    def room(extra: int) -> None:
        disk = os.statvfs(place)
        used = (disk.f_blocks - disk.f_bfree) * disk.f_frsize
        size = (used + extra + 4 * KIB - 1) // (4 * KIB) * 4
        subprocess.run(["mount", "-o", f"remount,size={size}k", str(place)], check=True)

    try:
        yield room
    finally:
        subprocess.run(["umount", "-l", str(place)], check=False)


def _documents(root: Path) -> list[tuple[object, ...]]:
    return rows(root, "SELECT p.url, d.text, d.kind, d.duplicate_of IS NULL FROM documents d "
                      "JOIN pages p ON p.id = d.page_id ORDER BY p.url")  # fmt: skip


def _says_disk_full(failed: Run, root: Path) -> None:
    assert failed.code == 1, failed.err
    errors = [line for line in failed.err.splitlines() if line.startswith("collie: error:")]
    assert len(errors) == 1, failed.err
    assert f"collie: error: the disk holding {root.resolve()} is full (" in errors[0]
    assert "nothing is lost" in errors[0]
    assert "unexpected" not in failed.err and "--traceback" not in failed.err


# room for: not the database's WAL index; the search, not the pages; some pages
@pytest.mark.parametrize("room_kib", [24, 128, 320])
def test_a_run_meets_a_full_disk_and_goes_on_once_there_is_room(  # type: ignore[no-untyped-def]
    tmp_path, capsys, web: MiniWebServer, world: World, room_kib: int
) -> None:
    made, _ = zulu_workspace(tmp_path, capsys, web, world)
    undisturbed = tmp_path / "undisturbed"
    shutil.copytree(made, undisturbed)
    assert run_collie(capsys, "-w", str(undisturbed), "-q", "run", "--loops", "2").code == 0
    expected = _documents(undisturbed)
    assert expected
    with small_disk(tmp_path / "disk") as room:
        root = tmp_path / "disk" / "ws"
        shutil.copytree(made, root)
        room(room_kib * KIB)  # the run needs about 110 KB more
        first = run_collie(capsys, "-w", str(root), "-q", "run", "--loops", "2")
        _says_disk_full(first, root)
        room(16 * 1024 * KIB)  # space freed
        done = run_collie(capsys, "-w", str(root), "-q", "run", "--loops", "2")
        assert done.code == 0, done.err
        assert _documents(root) == expected
        assert run_collie(capsys, "-w", str(root), "check").code == 0


@pytest.mark.parametrize("room_kib", [4, 64])
def test_a_scan_meets_a_full_disk_and_goes_on_once_there_is_room(  # type: ignore[no-untyped-def]
    template_ws: Path, tmp_path: Path, capsys, room_kib: int
) -> None:
    archive = tmp_path / "cc.warc.gz"
    write_archive(archive)
    undisturbed = tmp_path / "undisturbed"
    shutil.copytree(template_ws, undisturbed)
    assert run_collie(capsys, "-w", str(undisturbed), "-q", "scan", str(archive)).code == 0
    expected = _documents(undisturbed)
    assert expected
    with small_disk(tmp_path / "disk") as room:
        root = tmp_path / "disk" / "ws"
        shutil.copytree(template_ws, root)
        room(room_kib * KIB)
        first = run_collie(capsys, "-w", str(root), "-q", "scan", str(archive))
        _says_disk_full(first, root)
        room(16 * 1024 * KIB)
        done = run_collie(capsys, "-w", str(root), "-q", "scan", str(archive))
        assert done.code == 0, done.err
        assert _documents(root) == expected
