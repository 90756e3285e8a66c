"""mining/search.py: the SearchStage over a real HTTP search API (Brave's, served by
the mini web): each query's outcome and its entries, next pages while they bring new
target results, the stop rules, the loop marked searched."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from collie.langid.model import LangModel
from collie.mininet.messages import Request
from collie.mininet.server import MiniWebServer, Response, World
from collie.mining.config import RunConfig
from collie.mining.records import LoopReport, RunEvents
from collie.mining.search import SEARCH_PRIORITY, SearchBudget, SearchStage
from collie.search import make_backend
from collie.store import Store

from .conftest import Lines, open_copy
from .pages import paragraphs

BRAVE_URL = "http://api.brave.test/res/v1/web/search"
KEY = "brave-secret-mining"


def brave(same: bool) -> object:
    """Brave's API: 20 Zulu results a page, on sites new with every request (or, `same`,
    the same 20 for every query)."""
    calls = []

    def answer(request: Request) -> Response:
        calls.append(request)
        page = int(parse_qs(urlsplit(request.url).query).get("offset", ["0"])[0])
        batch = 0 if same else len(calls)
        zulu = paragraphs("zul")
        items = [
            {
                "url": f"http://site{batch}x{page}x{i}.co.za/",
                "title": "Izindaba",
                "description": zulu[(batch + i) % len(zulu)][:200],
            }
            for i in range(20)
        ]
        body = json.dumps({"type": "search", "web": {"type": "search", "results": items}})
        return Response(200, [("Content-Type", "application/json")], body.encode())

    answer.calls = calls  # type: ignore[attr-defined]
    return answer


@pytest.fixture
def searching(template_ws: Path, tmp_path: Path, world: World, web: MiniWebServer):
    def make(same: bool = False, **flags: object):
        world.add(BRAVE_URL, brave(same))  # type: ignore[arg-type]
        chosen = {
            "search__backend": "brave",
            "search__url": BRAVE_URL,
            "search__rate_limit": 0,
            "search__saturation": 0,
            "queries__count": 3,
            "queries__words": 1,
            **flags,
        }
        return open_copy(template_ws, tmp_path / str(len(world.__dict__)), **chosen)

    return make


def stage_of(ws, model: LangModel, events: RunEvents) -> tuple[SearchStage, LoopReport]:
    config = RunConfig.of(ws, model)
    Store(ws.db).frontier.open_loop()
    backend = make_backend(ws.settings, {"BRAVE_API_KEY": KEY})
    report = LoopReport(1)
    budget = SearchBudget.of(config.search)
    return SearchStage(ws, backend, config, budget, model, report, events), report


def test_each_query_yields_its_outcome_and_entries_and_the_loop_is_searched(
    searching, model: LangModel
) -> None:
    events = Lines()
    with searching(search__results=40) as ws:
        stage, report = stage_of(ws, model, events)
        steps = list(stage)
        assert [s.done for s in steps] == [1, 2, 3] and {s.planned for s in steps} == {3}
        # a first page of new Zulu results deserves the next page: 40 entries a query
        assert [len(s.entries) for s in steps] == [40, 40, 40]
        assert {e.priority for s in steps for e in s.entries} == {SEARCH_PRIORITY}
        assert report.queries == {"sent": 3} and report.requests == 6
        assert ws.queries.query_counts() == {"done": 3}  # queries; their next pages are requests
        assert ws.queries.requests_sent() == 6
        assert Store(ws.db).frontier.open_loop().searched
        assert events.lines[0].startswith("loop 1: 3 queries (3 sent; 6 search requests)")


def test_queries_that_bring_no_new_url_stop_the_stage(searching, model: LangModel) -> None:
    with searching(same=True, search__max_fruitless=1, queries__count=5) as ws:
        stage, report = stage_of(ws, model, Lines())
        steps = list(stage)
        assert len(steps) == 2  # the second query brought only URLs the first had
        assert "search.max_fruitless" in (report.search_stopped or "")


def test_a_caller_that_stops_asking_leaves_the_loop_unsearched(searching, model) -> None:
    with searching() as ws:
        stage, report = stage_of(ws, model, Lines())
        for _ in stage:
            break
        assert not Store(ws.db).frontier.open_loop().searched and report.search_stopped is None


class Knows:
    """A model that has learnt the relatives: it takes every result for `code` (one of
    them), none for the target."""

    def __init__(self, code: str) -> None:
        self.code = code

    def identify_batch(self, texts: list[str]) -> list[tuple[str, float]]:
        return [(self.code, 1.0) for _ in texts]


def test_results_judged_again_replay_the_incidence_and_a_resume_keeps_it(
    searching, model: LangModel
) -> None:
    """The relatives' contrast during the search (loop.py): every result so far judged
    again by the new model, stored, and the incidence replayed from the stored
    judgements, this loop's too; a resumed run's stage starts from them."""
    from collie.mining.coverage import SearchCoverage

    with searching() as ws:
        stage, _ = stage_of(ws, model, Lines())
        steps = list(stage)
        found = stage.coverage.estimate().observed
        assert len(steps) == 3 and found >= 30  # 20 Zulu results a query, on new sites
        assert stage.coverage.loop_queries == 3 and stage.coverage.loop_new == found
        stage.coverage.judge_again(Knows("xho"))  # type: ignore[arg-type]
        after = stage.coverage.estimate()
        assert (after.observed, after.queries) == (0, 3)
        assert stage.coverage.loop_queries == 3 and stage.coverage.loop_new == 0
        assert stage.coverage.quiet == 3
        stored = [t for q in range(1, 4) for t in ws.queries.judgements(q)]
        assert stored and not any(stored)
        # a resumed run (the loop's queries answered from the cache) replays them
        config = RunConfig.of(ws, model)
        again = SearchCoverage(ws, model, 1, config.search)
        for step in steps:
            again.take(step.outcome)
        assert again.estimate().observed == 0 and again.loop_queries == 3
