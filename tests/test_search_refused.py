"""`collie run --search brave` with a wrong key (issue 46, part 2): the run fails with
exit 1 naming the variable to set, loop 1 is left open (not recorded done with 0
pages), and once the key is right `collie run --loops 1` mines loop 1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from collie.mininet.server import MiniWebServer, Request, Response, World

from .clihelp import rows, run_collie
from .zuluworld import SETTINGS, build_zulu_world

BRAVE_URL = "http://api.brave.test/res/v1/web/search"
GOOD_KEY = "brave-good-2c7e"


def _json(data: object, status: int = 200) -> Response:
    return Response(status, [("Content-Type", "application/json")], json.dumps(data).encode())


def _brave(urls: list[str]) -> object:
    """Brave's API: results for the right key, its 401 answer for any other."""

    def answer(request: Request) -> Response:
        if request.headers.get("x-subscription-token") != GOOD_KEY:
            error = {"id": "e1", "status": 401, "code": "SUBSCRIPTION_TOKEN_INVALID",
                     "detail": "The provided subscription token is invalid."}  # fmt: skip
            return _json({"type": "ErrorResponse", "error": error}, 401)
        items = [{"url": u, "title": "Izindaba", "description": "Izindaba"} for u in urls]
        return _json({"type": "search", "web": {"type": "search", "results": items}})

    return answer


def test_a_refused_brave_key_fails_the_run_and_leaves_the_loop_open(
    tmp_path: Path, capsys, web: MiniWebServer, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = build_zulu_world(world)
    world.add(BRAVE_URL, _brave(sorted(made.target_urls - made.crawl_only)))
    docs = tmp_path / "zulu.txt"
    docs.write_text(made.seed_text, encoding="utf-8")
    root = tmp_path / "ws"
    sets = [arg for s in SETTINGS for arg in ("--set", s)]
    init = run_collie(capsys, "init", "-w", str(root), "--lang", "zul", "--docs", str(docs),
                      "--search", "brave", "--search-url", BRAVE_URL, *sets)  # fmt: skip
    assert init.code == 0, init.err

    monkeypatch.setenv("BRAVE_API_KEY", "a-wrong-key")
    wrong = run_collie(capsys, "-w", str(root), "run", "--loops", "1")
    assert wrong.code == 1, wrong.err
    assert "brave rejected the API key (HTTP 401 SUBSCRIPTION_TOKEN_INVALID" in wrong.err
    assert "Set BRAVE_API_KEY to a valid key" in wrong.err
    assert "a-wrong-key" not in wrong.err
    assert rows(root, "SELECT number, finished_at FROM loops") == [(1, None)]  # left open
    assert rows(root, "SELECT COUNT(*) FROM pages") == [(0,)]

    monkeypatch.setenv("BRAVE_API_KEY", GOOD_KEY)
    fixed = run_collie(capsys, "-w", str(root), "run", "--loops", "1")
    assert fixed.code == 0, fixed.err
    assert "nothing to do" not in fixed.err
    assert rows(root, "SELECT number, finished_at IS NOT NULL FROM loops") == [(1, 1)]
    kept = rows(root, "SELECT COUNT(*) FROM pages WHERE status = 'kept'")[0][0]
    assert isinstance(kept, int) and kept >= 3
