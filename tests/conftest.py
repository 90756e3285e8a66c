"""Shared fixtures: the mini web, reached through HTTP_PROXY like the real web."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from collie.mininet.server import MiniWebServer, World

from .clihelp import run_collie
from .runhelp import closed_web  # noqa: F401  (a module-scoped fixture: the world behind the proxy)
from .zuluworld import zulu_workspace

_OTHER_PROXY_VARS = ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy")


@pytest.fixture
def world() -> World:
    """An empty world; add pages before or while the server runs."""
    return World()


@pytest.fixture
def web(world: World, monkeypatch: pytest.MonkeyPatch) -> Iterator[MiniWebServer]:
    """The world served on 127.0.0.1, set as the only proxy of the process."""
    with MiniWebServer(world) as server:
        monkeypatch.setenv("HTTP_PROXY", server.proxy_url)
        monkeypatch.setenv("http_proxy", server.proxy_url)
        for name in _OTHER_PROXY_VARS:
            monkeypatch.delenv(name, raising=False)
        yield server


@pytest.fixture
def mined(tmp_path: Path, capsys, web: MiniWebServer, world: World, monkeypatch):
    """A Zulu workspace after `collie run --loops 2` on the small test world."""
    root, made = zulu_workspace(tmp_path, capsys, web, world)
    monkeypatch.chdir(root)
    result = run_collie(capsys, "run", "--loops", "2")
    assert result.code == 0, result.err
    return root, made, result
