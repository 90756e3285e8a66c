"""A backend that blocks collie (issue 57): a CAPTCHA page or HTTP 429 from any backend
stops `collie run` with exit 1 and one line saying so, leaves the loop open, and is never
an empty answer: the coverage estimate after the blocked run is the one before it. Each
backend is played by the mini web's search host (mininet/search.py serves the four APIs
over the same index); `World.search_block` makes them all block."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from collie.mininet.server import MiniWebServer, World
from collie.search.google import END

from .clihelp import rows, run_collie
from .zuluworld import SETTINGS, build_zulu_world

KEYS = {
    "BRAVE_API_KEY": "brave-k-51c0",
    "MOJEEK_API_KEY": "mojeek-k-a9e2",
    "GOOGLE_API_KEY": "google-k-77d1",
    "GOOGLE_CSE_ID": "cx-k-0c4f",
}
PATHS = {"searxng": "", "brave": "/res/v1/web/search", "mojeek": "/search",
         "google": "/customsearch/v1"}  # fmt: skip


def _status(root: Path, capsys) -> dict:
    shown = run_collie(capsys, "-w", str(root), "status", "--json")
    assert shown.code == 0, shown.err
    return json.loads(shown.out)


@pytest.mark.slow
@pytest.mark.parametrize("backend", sorted(PATHS))
def test_a_blocked_backend_stops_the_run_and_leaves_the_estimate_alone(
    backend: str,
    tmp_path: Path,
    capsys,
    web: MiniWebServer,
    world: World,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name, value in KEYS.items():
        monkeypatch.setenv(name, value)
    made = build_zulu_world(world)
    docs = tmp_path / "zulu.txt"
    docs.write_text(made.seed_text, encoding="utf-8")
    root = tmp_path / "ws"
    sets = [arg for s in [*SETTINGS, "search.retries=1"] for arg in ("--set", s)]
    url = web.search_url + PATHS[backend]
    init = run_collie(capsys, "init", "-w", str(root), "--lang", "zul", "--docs", str(docs),
                      "--search", backend, "--search-url", url, *sets)  # fmt: skip
    assert init.code == 0, init.err
    if backend == "google" and dt.datetime.now(dt.timezone.utc).date() >= END:
        ended = run_collie(capsys, "-w", str(root), "run", "--loops", "1")
        assert ended.code == 1 and "ended on 2027-01-01" in ended.err
        return
    if backend == "google":
        assert "ends on 2027-01-01" in init.err
    first = run_collie(capsys, "-w", str(root), "run", "--loops", "1")
    assert first.code == 0, first.err
    before = _status(root, capsys)
    answered = before["search"]["queries"]["done"]
    runs = before["search"]["runs"]
    assert [run["requests"] for run in runs] == [before["search"]["requests_sent"]]
    priced = {"searxng": "(free)", "mojeek": "(the plan's price is not known",
              "brave": "$0.00 (0 billed at $5 per 1,000; 1,000 a month free)",
              "google": "$0.00 (0 billed at $5 per 1,000; 3,000 a month free)"}  # fmt: skip
    shown = " ".join(run_collie(capsys, "-w", str(root), "status").out.split())  # unwrapped
    line = f"search cost run {runs[0]['started_at'][:16].replace('T', ' ')} UTC, {backend}: "
    assert line + f"{runs[0]['requests']} search requests" in shown
    assert priced[backend] in shown, shown
    report = " ".join(run_collie(capsys, "-w", str(root), "report").out.split())
    assert priced[backend] in report
    assert answered >= 1 and before["loops"][0]["coverage"]["observed"] >= 1

    for block, said in (("captcha", "a CAPTCHA page"), ("429", "HTTP 429")):
        world.search_block = block
        blocked = run_collie(capsys, "-w", str(root), "run", "--loops", "2")
        assert blocked.code == 1, blocked.err
        errors = [line for line in blocked.err.splitlines() if line.startswith("collie: error")]
        assert errors == [
            f"collie: error: {backend} blocked the search ({said}" + errors[0].split(said, 1)[1]
        ], blocked.err
        assert "the loop is left open" in errors[0]
        # SearXNG's preflight query (a free backend's) is blocked before loop 2 begins
        opened = [(1, 0)] if backend == "searxng" else [(1, 0), (2, 1)]
        assert rows(root, "SELECT number, finished_at IS NULL FROM loops") == opened
        after = _status(root, capsys)
        assert after["search"]["queries"]["done"] == answered  # never an (empty) answer
        assert after["search"]["queries"].get("failed", 0) >= (backend != "searxng")
        assert after["loops"][0]["coverage"] == before["loops"][0]["coverage"]
        assert all("coverage" not in loop for loop in after["loops"][1:])  # no empty answer

    world.search_block = ""
    resumed = run_collie(capsys, "-w", str(root), "run", "--loops", "2")
    assert resumed.code == 0, resumed.err
    assert rows(root, "SELECT COUNT(*) FROM loops WHERE finished_at IS NOT NULL") == [(2,)]
