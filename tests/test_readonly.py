"""A read-only workspace (a read-only mount, a folder of mode 555, a colleague's copy)
can be read: status, export, report and review --results work; the commands that write
say the workspace is read-only, exit 1 and change nothing (issue 46).

As a user other than root, the workspace is made read-only with chmod and the commands
run in this process. root writes through chmod, so as root the workspace is bind-mounted
read-only over itself in a mount namespace of its own (`unshare -m`), and the commands
run there as `python -m collie ...`: the read-only mount of the issue.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from .clihelp import Run, run_collie

ROOT = Path(__file__).resolve().parent.parent
MOUNT_RO = 'mount --bind -o ro "$0" "$0" && cd "$0" && exec "$@"'


def snapshot(root: Path) -> dict[str, str]:
    """Every file of the workspace and its SHA-256: what "nothing changed" means."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def _chmod_tree(root: Path, writable: bool) -> None:
    for path in [root, *root.rglob("*")]:
        mode = path.stat().st_mode
        path.chmod(mode | 0o200 if writable else mode & ~0o222)


def run_read_only(capsys: pytest.CaptureFixture[str], folder: Path, *args: str) -> Run:
    """`collie ARGS` with `folder` read-only: chmod'ed by the caller (not root), or
    bind-mounted read-only in a mount namespace of the command's own (root)."""
    if os.geteuid() != 0:
        return run_collie(capsys, *args)
    command = [sys.executable, "-m", "collie", *args]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        ["unshare", "-m", "sh", "-c", MOUNT_RO, str(folder), *command],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if "mount:" in done.stderr or "unshare:" in done.stderr:
        pytest.skip(f"root, but no read-only bind mount here: {done.stderr.strip()}")
    return Run(done.returncode, done.stdout, done.stderr)


@pytest.fixture
def read_only(mined, capsys, monkeypatch, tmp_path: Path) -> Iterator[tuple[Path, object]]:
    """The mined Zulu workspace (exported once to tmp_path/rw.txt while it could be
    written) and a way to run `collie ARGS` in it read-only."""
    root = mined[0]
    monkeypatch.chdir(root.parent)
    done = run_collie(capsys, "-w", str(root), "export", str(tmp_path / "rw.txt"))
    assert done.code == 0, done.err

    def run(*args: str) -> Run:
        return run_read_only(capsys, root, "-w", str(root), *args)

    if os.geteuid() != 0:
        _chmod_tree(root, writable=False)
    try:
        yield root, run
    finally:
        if os.geteuid() != 0:
            _chmod_tree(root, writable=True)


def test_a_read_only_workspace_can_be_read(read_only, tmp_path: Path) -> None:
    root, run = read_only
    before = snapshot(root)

    status = run("status")
    assert status.code == 0, status.err
    assert "access      read-only" in status.out and "loop" in status.out
    assert "not a usable SQLite database" not in status.err
    export = run("export", str(tmp_path / "ro.txt"))
    assert export.code == 0, export.err
    exported = (tmp_path / "ro.txt").read_text(encoding="utf-8")
    assert exported and exported == (tmp_path / "rw.txt").read_text(encoding="utf-8")
    report = run("report")
    assert report.code == 0 and "collie report" in report.out, report.err
    results = run("review", "--results")
    assert results.code == 0 and "0 documents judged" in results.out, results.err
    checked = run("check")
    assert checked.code == 0 and "Every WARC file is whole" in checked.err, checked.err
    assert snapshot(root) == before


@pytest.mark.parametrize(
    "args",
    [
        ("run", "--loops", "3"),
        ("reprocess",),
        ("review", "--sample", "5"),
        ("check", "--repair"),
        ("run", "--refetch-lost"),
    ],
)
def test_commands_that_write_say_the_workspace_is_read_only(read_only, args) -> None:
    root, run = read_only
    before = snapshot(root)
    result = run(*args)
    assert result.code == 1, result.err
    assert f"the workspace is read-only ({root})" in result.err
    assert "Restore" not in result.err and "unexpected" not in result.err
    assert snapshot(root) == before


def test_init_in_a_read_only_folder_says_so_and_writes_nothing(capsys, tmp_path: Path) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    doc = tmp_path / "doc.txt"
    doc.write_text("Ngiyabonga kakhulu ngosizo lwakho.\n", encoding="utf-8")
    if os.geteuid() != 0:
        folder.chmod(0o555)
    try:
        args = ("init", "-w", str(folder / "ws"), "--lang", "zul", "--force", "--docs", str(doc))
        result = run_read_only(capsys, folder, *args)
    finally:
        folder.chmod(0o755)
    assert result.code == 1, result.err
    assert f"{folder} is read-only" in result.err and "-w DIR" in result.err
    assert "unexpected" not in result.err
    assert list(folder.iterdir()) == []


def test_changes_still_in_the_wal_file_are_not_read_past(mined, capsys, tmp_path: Path) -> None:
    """A read-only copy whose collie.db-wal holds changes and whose -shm file is gone
    (copied while the owner's run was going on): SQLite could only read it as immutable,
    without the changes, so status says so and what to do instead (issue 46)."""
    import shutil
    import sqlite3

    root = mined[0]
    writer = sqlite3.connect(root / "collie.db")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    with writer:
        writer.execute("INSERT INTO workspace_info (key, value) VALUES ('probe', 'x')")
    copy = tmp_path / "copy"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns("*-shm"))
    writer.close()
    assert (copy / "collie.db-wal").stat().st_size > 0
    if os.geteuid() != 0:
        _chmod_tree(copy, writable=False)
    try:
        result = run_read_only(capsys, copy, "-w", str(copy), "status")
    finally:
        if os.geteuid() != 0:
            _chmod_tree(copy, writable=True)
    assert result.code == 1, result.err
    assert "its latest changes are still in collie.db-wal" in " ".join(result.err.split())
    assert "Restore" not in result.err
    readable = run_collie(capsys, "-w", str(copy), "status")  # writable again: all there
    assert readable.code == 0, readable.err
