"""The README's Install line, as a user types it: a plain `python3 -m venv` with the pip
that Python bundles (never upgraded), `pip install .`, then `collie extract` on a page
and a short closed-world run. Once for every Python from 3.10 to 3.13 this machine has.

`make test` itself installs with an upgraded pip, which once hid a crash of every
extraction behind an old pip's handling of an extra (lxml's `html-clean`).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from .test_cli_extract import HTML, MAIN

REPO = Path(__file__).resolve().parent.parent
MINORS = (10, 11, 12, 13)
NOT_SOURCE = shutil.ignore_patterns(
    ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".*_cache"
)

pytestmark = pytest.mark.slow


def _version(python: str) -> tuple[int, int] | None:
    """The interpreter's (major, minor), if it runs and has venv and ensurepip."""
    probe = "import ensurepip, sys, venv; print(*sys.version_info[:2])"
    try:
        done = subprocess.run(
            [python, "-c", probe], capture_output=True, text=True, timeout=30, check=False
        )
    except OSError:
        return None
    if done.returncode != 0:
        return None
    major, minor = done.stdout.split()
    return int(major), int(minor)


def _candidates(minor: int) -> list[str]:
    """python3.N on the PATH, then pyenv's installs of 3.N (pyenv's shims only run the
    versions it was told to)."""
    found = [p for p in [shutil.which(f"python3.{minor}")] if p]
    pyenv = shutil.which("pyenv")
    if pyenv:
        root = subprocess.run([pyenv, "root"], capture_output=True, text=True, check=False)
        versions = Path(root.stdout.strip()) / "versions"
        if root.returncode == 0 and versions.is_dir():
            found += [
                str(path / "bin" / f"python3.{minor}")
                for path in sorted(versions.iterdir())
                if re.fullmatch(rf"3\.{minor}\.\d+", path.name)
            ]
    found.append(sys.executable)
    return found


def pythons() -> dict[int, str]:
    """{minor: interpreter} for each Python 3.10-3.13 this machine has."""
    chosen: dict[int, str] = {}
    for minor in MINORS:
        for python in _candidates(minor):
            if _version(python) == (3, minor):
                chosen[minor] = python
                break
    return chosen


def _env(tmp: Path) -> dict[str, str]:
    drop = ("PYTHONPATH", "COLLIE_WORKSPACE", "VIRTUAL_ENV", "PIP_REQUIRE_VIRTUALENV")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env["HOME"] = os.environ.get("HOME", str(tmp))
    return env


def _install(python: str, source: Path, venv: Path) -> Path:
    """`python3 -m venv venv && venv/bin/pip install .`, as the README says."""
    env = _env(venv.parent)
    subprocess.run([python, "-m", "venv", str(venv)], check=True, env=env, capture_output=True)
    pip = subprocess.run(
        [str(venv / "bin" / "pip"), "install", "."],
        cwd=source,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert pip.returncode == 0, pip.stdout[-3000:] + pip.stderr[-3000:]
    return venv / "bin" / "collie"


def _collie(collie: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(collie), *args],
        cwd=cwd,
        env=_env(cwd),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_readme_install_line_with_each_bundled_pip(tmp_path: Path) -> None:
    found = pythons()
    assert found, "no Python 3.10-3.13 with venv and ensurepip on this machine"
    print(f"\nchecked with the bundled pip of Python 3.{', 3.'.join(map(str, found))}")
    # a copy of the source for each Python: pip builds in the source folder (build/),
    # and two builds there at once collide ("File exists: build/bdist...")
    sources = {minor: tmp_path / f"collie-source-3{minor}" for minor in found}
    for source in sources.values():
        shutil.copytree(REPO, source, ignore=NOT_SOURCE)
    with ThreadPoolExecutor(max_workers=2) as pool:
        installed = dict(
            zip(
                found,
                pool.map(
                    lambda item: _install(item[1], sources[item[0]], tmp_path / f"venv3{item[0]}"),
                    found.items(),
                ),
                strict=True,
            )
        )
    page = tmp_path / "page.html"
    page.write_bytes(HTML.encode("windows-1252"))
    first, *rest = installed.items()
    _check(*first, page)  # builds the small world into the cache once
    with ThreadPoolExecutor(max_workers=3) as pool:
        list(pool.map(lambda item: _check(*item, page), rest))


def _check(minor: int, collie: Path, page: Path) -> None:
    """`collie extract` keeps the page's main text; a short closed-world run finds the
    target's documents."""
    extracted = _collie(collie, "extract", str(page), cwd=page.parent)
    assert extracted.returncode == 0, f"3.{minor}: {extracted.stderr}"
    assert MAIN in extracted.stdout, f"3.{minor}: {extracted.stdout}"
    out = page.parent / f"demo3{minor}"
    demo = _collie(
        collie, "demo", "--out", str(out), "--sites", "12", "--delay", "0", "--json",
        cwd=page.parent,
    )  # fmt: skip
    assert demo.returncode == 0, f"3.{minor}: {demo.stderr[-3000:]}"
    scores = json.loads(demo.stdout)
    assert scores["exported"] > 50 and scores["recall_reachable"] > 0.8, (minor, scores)
