"""`collie run` when a few hosts' robots.txt is broken (issue 46, part 1): the loop that
meets only their pages finishes, names the hosts and leaves their pages queued; a
network that is really down still stops the run with the network-down error."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from collie.mininet.server import MiniWebServer, Response, World
from collie.udhr import load_declarations

from .clihelp import rows, run_collie
from .zuluworld import page, zulu_workspace

BROKEN = tuple(f"http://broken-robots-{i}.example.za" for i in range(3))


def _add_broken_hosts(world: World) -> None:
    """Three Zulu hosts of one site (example.za) search finds (all the seed text on
    one page), whose robots.txt answers 500 every time."""
    zul = load_declarations()["zul"].training_paragraphs()
    for i, origin in enumerate(BROKEN):
        world.add(f"{origin}/robots.txt", Response.error(500))
        world.add(f"{origin}/", Response.html(page(f"Ikhasi {i}", zul)))


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_loop_with_only_broken_robots_hosts_left_finishes_and_names_them(
    tmp_path: Path, capsys, web: MiniWebServer, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, _ = zulu_workspace(tmp_path, capsys, web, world)
    _add_broken_hosts(world)
    monkeypatch.setenv("COLLIE_FETCH_RETRIES", "0")
    first = run_collie(capsys, "-w", str(root), "run", "--loops", "1")
    assert first.code == 0, first.err
    queued = "SELECT url FROM pages WHERE status = 'queued' AND url LIKE '%broken-%' ORDER BY url"
    assert [u for (u,) in rows(root, queued)] == [f"{o}/" for o in sorted(BROKEN)]

    spent = "search.max_queries=4"  # loop 1's queries: loop 2 sends none, only they are left
    again = run_collie(capsys, "-w", str(root), "run", "--loops", "2", "--set", spent)
    assert again.code == 0, again.err  # was: "is the network, or HTTP_PROXY, down?"
    assert "loop 2: 0 pages fetched" in again.err  # only the broken hosts' pages were left
    assert "network" not in again.err
    assert (
        "loop 2: finished without the 3 host(s) whose robots.txt could not be fetched" in again.err
    )
    for origin in BROKEN:
        assert f"{origin} (http-500)" in again.err
    assert rows(root, "SELECT COUNT(*) FROM loops WHERE finished_at IS NOT NULL") == [(2,)]
    assert [u for (u,) in rows(root, queued)] == [f"{o}/" for o in sorted(BROKEN)]  # kept

    with monkeypatch.context() as offline:  # the sites' proxy is gone; search still answers
        dead = f"http://127.0.0.1:{_closed_port()}"
        for name in ("HTTP_PROXY", "http_proxy"):
            offline.setenv(name, dead)
        for name in ("NO_PROXY", "no_proxy"):
            offline.setenv(name, "127.0.0.1")
        down = run_collie(capsys, "-w", str(root), "run", "--loops", "3")
    assert down.code == 1, down.err
    assert "is the network, or HTTP_PROXY, down?" in down.err
    assert "nor from a host that answered before" in down.err
    assert "finished without" not in down.err
    assert rows(root, "SELECT number FROM loops WHERE finished_at IS NULL") == [(3,)]
    assert [u for (u,) in rows(root, queued)] == [f"{o}/" for o in sorted(BROKEN)]
