"""Ordinary failures as one clear line and the right exit code, each typed as a user
would (issue 58, point 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .clihelp import run_collie


@pytest.mark.parametrize("place", ["/proc/x", "/proc/x/y", "/dev/null/x"])
def test_init_where_no_folder_can_be_made(tmp_path: Path, capsys, place: str) -> None:  # type: ignore[no-untyped-def]
    docs = tmp_path / "zulu.txt"
    docs.write_text("Umuntu ngumuntu ngabantu.\n", encoding="utf-8")
    failed = run_collie(capsys, "init", "-w", place, "--lang", "zul", "--docs", str(docs))
    assert failed.code == 1, failed.err
    assert failed.err.startswith(f"collie: error: cannot make a workspace at {place}: no folder")
    assert "nothing was written" in failed.err and "unexpected" not in failed.err
