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


BLOCK = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == {blocked!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
sys.meta_path.insert(0, Block())
from collie.cli import main
main(sys.argv[1:])
"""


def without(module: str, args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """collie with one package made unimportable, as in an environment that lacks it."""
    return run([sys.executable, "-c", BLOCK.format(blocked=module), *args], cwd)


def test_a_missing_package_is_named_in_one_line(tmp_path: Path) -> None:
    """pip < 24.1 left out lxml_html_clean (jusText asks for lxml's extra by another
    spelling): every extraction crashed with "Rerun with --traceback"."""
    page = tmp_path / "page.html"
    page.write_text("<html><body><p>Ji duto onyuol ka gin thuolo.</p></body></html>")
    result = without("lxml_html_clean", ["extract", str(page)], tmp_path)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert lines[0].startswith("collie: error: a package collie needs is missing or broken")
    assert "lxml_html_clean" in lines[0] and "Traceback" not in result.stderr
    assert lines[1] == "Install it into the environment collie runs in: pip install lxml_html_clean"


def test_a_run_with_a_missing_package_stops_before_searching(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Ji duto onyuol ka gin thuolo kendo gin gi luor. " * 40)
    init = run(
        [sys.executable, "-m", "collie", "-w", str(ws), "init", "--lang", "zu", "--docs",
         str(docs), "--search", "searxng", "--search-url", "http://127.0.0.1:9"],
        tmp_path,
    )  # fmt: skip
    assert init.returncode == 0, init.stderr
    result = without("lxml_html_clean", ["-w", str(ws), "run", "--loops", "1"], tmp_path)
    assert result.returncode == 1, result.stderr
    assert "pip install lxml_html_clean" in result.stderr and "Traceback" not in result.stderr
    assert "connection refused" not in result.stderr.lower()  # no search was tried
