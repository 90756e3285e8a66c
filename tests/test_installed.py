"""The installed package works outside the checkout: entry points and package data."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import collie

REPO = Path(__file__).resolve().parent.parent


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "COLLIE_WORKSPACE")}
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, check=False)


def test_python_m_collie_outside_the_checkout(tmp_path: Path) -> None:
    result = run([sys.executable, "-m", "collie", "language", "luo", "--json"], tmp_path)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert "Kenya" in [c["name"] for c in data["countries"]]
    assert ".ke" in data["domains"]


def test_console_script_finds_dholuo(tmp_path: Path) -> None:
    script = Path(sys.executable).parent / "collie"
    result = run([str(script), "language", "Dholuo"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("code           luo")


def test_console_script_exit_codes(tmp_path: Path) -> None:
    script = str(Path(sys.executable).parent / "collie")
    assert run([script, "language", "xx-nonsense"], tmp_path).returncode == 2
    assert run([script, "status"], tmp_path).returncode == 1


def test_tests_run_against_the_installed_package() -> None:
    """`make test` installs collie (not editable): the package must not be the checkout's."""
    assert Path(collie.__file__).resolve().parent != REPO / "collie"
    assert "site-packages" in Path(collie.__file__).resolve().parts
