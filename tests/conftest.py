"""Shared fixtures: the mini web, reached through HTTP_PROXY like the real web."""

from __future__ import annotations

import io
import shutil
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from collie.cli import main
from collie.mininet.server import MiniWebServer, World

from .clihelp import Run, run_collie
from .runhelp import closed_web  # noqa: F401  (a module-scoped fixture: the world behind the proxy)
from .zuluworld import SETTINGS, build_zulu_world, zulu_workspace

_OTHER_PROXY_VARS = ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy")


@pytest.fixture
def world() -> World:
    """An empty world; add pages before or while the server runs."""
    return World()


def _only_proxy(patch: pytest.MonkeyPatch, server: MiniWebServer) -> None:
    patch.setenv("HTTP_PROXY", server.proxy_url)
    patch.setenv("http_proxy", server.proxy_url)
    for name in _OTHER_PROXY_VARS:
        patch.delenv(name, raising=False)


def _quietly(*args: str) -> Run:
    """The `collie` entry point run in-process, its output kept (no capsys: for fixtures
    wider than a test)."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err), pytest.raises(SystemExit) as info:
        main(list(args))
    code = info.value.code if isinstance(info.value.code, int) else 1
    return Run(code, out.getvalue(), err.getvalue())


@pytest.fixture
def web(world: World, monkeypatch: pytest.MonkeyPatch) -> Iterator[MiniWebServer]:
    """The world served on 127.0.0.1, set as the only proxy of the process."""
    with MiniWebServer(world) as server:
        _only_proxy(monkeypatch, server)
        yield server


@pytest.fixture(scope="session")
def mined_template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Run, str]:
    """A Zulu workspace after `collie run --loops 2` on this worker's own small test
    world, made once (the run takes seconds); `mined` hands each test a copy. Returns
    the workspace, the run's output and the search URL its settings name."""
    folder = tmp_path_factory.mktemp("mined-template")
    world = World()
    with MiniWebServer(world) as server, pytest.MonkeyPatch.context() as patch:
        _only_proxy(patch, server)
        made = build_zulu_world(world)
        docs = folder / "zulu.txt"
        docs.write_text(made.seed_text, encoding="utf-8")
        root = folder / "ws"
        sets = [arg for s in SETTINGS for arg in ("--set", s)]
        search = ("--search", "searxng", "--search-url", server.search_url)
        init = _quietly(
            "init", "-w", str(root), "--lang", "zul", "--docs", str(docs), *search, *sets
        )
        assert init.code == 0, init.err
        patch.chdir(root)
        result = _quietly("run", "--loops", "2")
        assert result.code == 0, result.err
        return root, result, server.search_url


@pytest.fixture
def mined(tmp_path: Path, web: MiniWebServer, world: World, mined_template, monkeypatch):
    """A Zulu workspace after `collie run --loops 2` on the small test world: a copy of
    `mined_template`, searching this test's server (the same world, built again here);
    returns the workspace, the world and the run's output."""
    template, result, search_url = mined_template
    made = build_zulu_world(world)
    (tmp_path / "zulu.txt").write_text(made.seed_text, encoding="utf-8")
    root = tmp_path / "ws"
    shutil.copytree(template, root)
    settings = root / "collie.toml"
    settings.write_text(settings.read_text(encoding="utf-8").replace(search_url, web.search_url),
                        encoding="utf-8")  # fmt: skip
    monkeypatch.chdir(root)
    return root, made, result


@pytest.fixture
def mined_here(tmp_path: Path, capsys, web: MiniWebServer, world: World, monkeypatch):
    """As `mined`, the run made in the test on its own server (whose log then holds
    the run's requests)."""
    root, made = zulu_workspace(tmp_path, capsys, web, world)
    monkeypatch.chdir(root)
    result = run_collie(capsys, "run", "--loops", "2")
    assert result.code == 0, result.err
    return root, made, result
