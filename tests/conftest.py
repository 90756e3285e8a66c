"""Shared fixtures: the mini web, reached through HTTP_PROXY like the real web."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from collie.mininet.server import MiniWebServer, World

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
