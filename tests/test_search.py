"""Search backends over real HTTP (the local web plays each API), cache, budgets, secrets."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from collie.config import load_settings
from collie.http import parse_retry_after
from collie.mininet.server import MiniWebServer, Request, Response, World
from collie.mining.search import SearchBudget, search_one, search_queries
from collie.search import (
    HttpSettings,
    SearchBlocked,
    SearchEnded,
    SearchError,
    SearchFatal,
    SearchRefused,
    make_backend,
)
from collie.search.brave import Brave
from collie.search.google import Google
from collie.search.mojeek import Mojeek
from collie.search.searxng import SearXNG
from collie.workspace.folder import open_workspace

from .clihelp import run_collie

BRAVE_URL = "http://api.brave.test/res/v1/web/search"
MOJEEK_URL = "http://api.mojeek.test/search"
MOJEEK_KEY = "mojeek-secret-3b8e"
GOOGLE_URL = "http://customsearch.google.test/customsearch/v1"
BRAVE_KEY = "brave-secret-4f1d9a"
GOOGLE_KEY = "google-secret-77ab02"
GOOGLE_CX = "cx-secret-0193"


class FakeClock:
    """The only thing these tests mock: time."""

    def __init__(self, wall: float = 1_795_000_000.0) -> None:  # 2026-11-18 UTC
        self.t = 1000.0
        self.wall_start = wall
        self.sleeps: list[float] = []

    def now(self) -> float:
        return self.t

    def wall(self) -> float:
        return self.wall_start + self.t - 1000.0

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            self.sleeps.append(round(seconds, 3))
            self.t += seconds


def json_response(
    data: Any, status: int = 200, headers: list[tuple[str, str]] | None = None
) -> Response:
    body = json.dumps(data).encode()
    return Response(status, [("Content-Type", "application/json"), *(headers or [])], body)


def brave_results(n: int, prefix: str = "http://ramogi.example.ke/") -> dict[str, Any]:
    items = [{"url": f"{prefix}{i}", "title": f"T{i}", "description": f"D{i}"} for i in range(n)]
    return {"type": "search", "web": {"type": "search", "results": items}}


def fast(retries: int = 2, timeout: float = 2.0) -> HttpSettings:
    return HttpSettings(timeout=timeout, retries=retries, rate_limit=0, backoff=1.0)


def sequence(*responses: Response) -> Callable[[Request], Response]:
    """A behaviour answering with each response in turn (the last one repeats)."""
    calls: list[Request] = []

    def answer(request: Request) -> Response:
        calls.append(request)
        return responses[min(len(calls), len(responses)) - 1]

    answer.calls = calls  # type: ignore[attr-defined]
    return answer


def test_brave_request_and_results(world: World, web: MiniWebServer) -> None:
    seen = sequence(json_response(brave_results(3)))
    world.add(BRAVE_URL, seen)
    brave = Brave(
        url=BRAVE_URL,
        secrets={"BRAVE_API_KEY": BRAVE_KEY},
        country="ke",
        language="sw",
        http=fast(),
    )
    response = brave.search("ng'ato thuolo piny", count=5, offset=10)
    request = seen.calls[0]  # type: ignore[attr-defined]
    assert request.headers["x-subscription-token"] == BRAVE_KEY
    assert request.query == {
        "q": ["ng'ato thuolo piny"],
        "count": ["5"],
        "offset": ["2"],
        "country": ["KE"],
    }  # sw is not a Brave search_lang
    assert [(r.rank, r.url, r.title, r.snippet) for r in response.results] == [
        (11, "http://ramogi.example.ke/0", "T0", "D0"),
        (12, "http://ramogi.example.ke/1", "T1", "D1"),
        (13, "http://ramogi.example.ke/2", "T2", "D2"),
    ]
    assert Brave(url=BRAVE_URL, language="ja").build_request("q", 20, 0)[0]["search_lang"] == "jp"


def test_brave_empty_and_malformed(world: World, web: MiniWebServer) -> None:
    world.add(
        BRAVE_URL,
        sequence(
            json_response({"type": "search"}),
            Response(200, [("Content-Type", "application/json")], b"{oops"),
        ),
    )
    brave = Brave(url=BRAVE_URL, secrets={"BRAVE_API_KEY": BRAVE_KEY}, http=fast())
    assert brave.search("a b c").results == []
    with pytest.raises(SearchError, match="not JSON"):
        brave.search("a b c")


def test_brave_bad_token_is_fatal_without_retry(world: World, web: MiniWebServer) -> None:
    error = {
        "type": "ErrorResponse",
        "error": {
            "id": "x",
            "status": 422,
            "code": "SUBSCRIPTION_TOKEN_INVALID",
            "detail": "The provided subscription token is invalid.",
        },
    }
    seen = sequence(json_response(error, 422))
    world.add(BRAVE_URL, seen)
    brave = Brave(url=BRAVE_URL, secrets={"BRAVE_API_KEY": BRAVE_KEY}, http=fast())
    with pytest.raises(SearchFatal, match="SUBSCRIPTION_TOKEN_INVALID") as info:
        brave.search("a b c")
    assert "search.brave_key_env" in str(info.value)
    assert len(seen.calls) == 1  # type: ignore[attr-defined]


def test_429_retry_after_is_honoured(world: World, web: MiniWebServer) -> None:
    limited = json_response({"error": "slow down"}, 429, [("Retry-After", "7")])
    seen = sequence(limited, json_response(brave_results(1)))
    world.add(BRAVE_URL, seen)
    clock = FakeClock()
    brave = Brave(url=BRAVE_URL, secrets={"BRAVE_API_KEY": BRAVE_KEY}, http=fast(), clock=clock)
    assert len(brave.search("a b c").results) == 1
    assert clock.sleeps == [7.0]
    assert len(seen.calls) == 2  # type: ignore[attr-defined]


def test_5xx_backs_off_then_gives_up(world: World, web: MiniWebServer) -> None:
    seen = sequence(Response.error(503))
    world.add(BRAVE_URL, seen)
    clock = FakeClock()
    brave = Brave(
        url=BRAVE_URL, secrets={"BRAVE_API_KEY": BRAVE_KEY}, http=fast(retries=3), clock=clock
    )
    with pytest.raises(SearchError, match="HTTP 503, still failing after 3 retries"):
        brave.search("a b c")
    assert len(seen.calls) == 4  # type: ignore[attr-defined]
    assert [1 <= s / 2**i <= 1.5 for i, s in enumerate(clock.sleeps)] == [True] * 3


def test_slow_response_past_the_timeout(world: World, web: MiniWebServer) -> None:
    world.add(BRAVE_URL, json_response(brave_results(1)).slowed(delay=1.0))
    brave = Brave(
        url=BRAVE_URL,
        secrets={"BRAVE_API_KEY": BRAVE_KEY},
        http=fast(retries=1, timeout=0.2),
        clock=FakeClock(),
    )
    with pytest.raises(SearchError, match=r"no answer within 0\.2 s") as info:
        brave.search("a b c")
    assert not isinstance(info.value, SearchFatal) and "search.timeout" in info.value.hint


def test_brave_rate_limit_headers(world: World, web: MiniWebServer) -> None:
    per_second = [("X-RateLimit-Remaining", "0, 1000"), ("X-RateLimit-Reset", "1, 86400")]
    monthly = [("X-RateLimit-Remaining", "0, 0"), ("X-RateLimit-Reset", "1, 172800")]
    world.add(
        BRAVE_URL,
        sequence(
            json_response(brave_results(1), headers=per_second),
            json_response(brave_results(1), headers=monthly),
        ),
    )
    clock = FakeClock()
    brave = Brave(url=BRAVE_URL, secrets={"BRAVE_API_KEY": BRAVE_KEY}, http=fast(), clock=clock)
    brave.search("a b c")
    assert clock.sleeps == [1.0]
    assert len(brave.search("d e f").results) == 1  # the last query of the quota counts
    with pytest.raises(SearchFatal, match=r"monthly query quota .* resets in 2\.0 days"):
        brave.search("g h i")
    assert len(web.requests_for("api.brave.test")) == 2


def test_rate_limit_spaces_requests(world: World, web: MiniWebServer) -> None:
    world.add(BRAVE_URL, json_response(brave_results(1)))
    clock = FakeClock()
    brave = Brave(
        url=BRAVE_URL,
        secrets={"BRAVE_API_KEY": BRAVE_KEY},
        http=HttpSettings(rate_limit=2.0),
        clock=clock,
    )
    for _ in range(3):
        brave.search("a b c")
    assert clock.sleeps == [0.5, 0.5]


def test_searxng_against_the_local_search_endpoint(world: World, web: MiniWebServer) -> None:
    for i in range(15):
        world.add(
            f"http://dala.example.ke/{i:02d}",
            Response.html(f"<title>Dala {i}</title><p>{'thuolo ' * (i + 1)} piny</p>"),
        )
    searx = SearXNG(url=web.search_url, http=fast())
    assert searx.url == f"{web.search_url}/search"
    first = searx.search("thuolo", count=10)
    assert [r.rank for r in first.results] == list(range(1, 11))
    assert first.results[0].url == "http://dala.example.ke/14"
    second = searx.search("thuolo", count=10, offset=10)
    assert [r.rank for r in second.results] == [11, 12, 13, 14, 15]
    # a count of one page is one request: page 3 is not asked to fill it
    assert [e.path.split("pageno=")[1][:1] for e in web.log[-2:]] == ["1", "2"]


def test_searxng_pages_until_search_results_are_in(world: World, web: MiniWebServer) -> None:
    """search.results = 20: page 2 is asked for; a page that fails or brings nothing new
    ends the paging with what came before (issue 20)."""
    for i in range(25):
        world.add(f"http://dala.example.ke/{i:02d}", Response.html(f"<p>{'thuolo ' * (i + 1)}</p>"))
    searx = SearXNG(url=web.search_url, http=fast(retries=0))
    twenty = searx.search("thuolo", count=20)
    assert [r.rank for r in twenty.results] == list(range(1, 21))
    assert len({r.url for r in twenty.results}) == 20 and len(twenty.raw) == 20
    pages = [e.path.split("pageno=")[1][:1] for e in web.log if e.path.startswith("/search")]
    assert pages == ["1", "2"]
    world.add("http://few.example.ke/", Response.html("<p>nyadhi</p>"))
    assert len(searx.search("nyadhi", count=20).results) == 1  # page 2 empty: one result


def test_searxng_json_disabled_says_what_to_do(world: World, web: MiniWebServer) -> None:
    world.search_json_enabled = False
    searx = SearXNG(url=web.search_url, http=fast())
    with pytest.raises(SearchFatal, match="JSON output is disabled") as info:
        searx.search("thuolo")
    assert "settings.yml" in str(info.value) and "formats" in str(info.value)


def test_preflight_check(world: World, web: MiniWebServer) -> None:
    SearXNG(url=web.search_url, http=fast()).check()
    assert web.log[-1].path.startswith("/search?q=collie+preflight&format=json")
    world.search_json_enabled = False
    with pytest.raises(SearchFatal, match="JSON output is disabled"):
        SearXNG(url=web.search_url, http=fast()).check()
    requests_before = len(web.log)
    with pytest.raises(SearchFatal, match="BRAVE_API_KEY"):
        Brave(url=BRAVE_URL, secrets={"BRAVE_API_KEY": ""}).check()
    Brave(url=BRAVE_URL, secrets={"BRAVE_API_KEY": BRAVE_KEY}).check()
    assert len(web.log) == requests_before, "no paid query is spent on a check"


def test_searxng_needs_a_url() -> None:
    with pytest.raises(SearchFatal, match=r"search\.url"):
        SearXNG().search("a")


def test_google_request_results_and_one_warning(
    world: World, web: MiniWebServer, caplog: pytest.LogCaptureFixture
) -> None:
    items = {"items": [{"link": "http://a.ke/1", "title": "A", "snippet": "S"}]}
    seen = sequence(json_response(items), json_response({}))
    world.add(GOOGLE_URL, seen)
    google = Google(
        url=GOOGLE_URL,
        secrets={"GOOGLE_API_KEY": GOOGLE_KEY, "GOOGLE_CSE_ID": GOOGLE_CX},
        country="KE",
        http=fast(),
    )
    with caplog.at_level(logging.WARNING, logger="collie.search"):
        assert [r.url for r in google.search("a b c", count=20, offset=10).results] == [
            "http://a.ke/1"
        ]
        assert google.search("d e f").results == []
    query = seen.calls[0].query  # type: ignore[attr-defined]
    assert query == {
        "key": [GOOGLE_KEY],
        "cx": [GOOGLE_CX],
        "q": ["a b c"],
        "num": ["10"],
        "start": ["11"],
        "gl": ["ke"],
    }
    assert [r.message for r in caplog.records].count(caplog.records[0].message) == 1
    assert "ends on 2027-01-01" in caplog.records[0].message


def test_google_bad_key_and_quota(world: World, web: MiniWebServer) -> None:
    bad_key = {
        "error": {
            "code": 400,
            "message": "API key not valid. Please pass a valid API key.",
            "errors": [{"reason": "badRequest"}],
            "status": "INVALID_ARGUMENT",
        }
    }
    quota = {
        "error": {
            "code": 403,
            "message": "Quota exceeded.",
            "errors": [{"reason": "dailyLimitExceeded"}],
        }
    }
    world.add(GOOGLE_URL, sequence(json_response(bad_key, 400), json_response(quota, 403)))
    google = Google(
        url=GOOGLE_URL,
        secrets={"GOOGLE_API_KEY": GOOGLE_KEY, "GOOGLE_CSE_ID": GOOGLE_CX},
        http=fast(),
    )
    with pytest.raises(SearchFatal, match="rejected the API key"):
        google.search("a")
    with pytest.raises(SearchFatal, match="Quota exceeded"):
        google.search("a")


def test_missing_key_names_the_variable() -> None:
    settings = load_settings({"search.backend": "google"}, {}, {})
    google = make_backend(settings, {"GOOGLE_API_KEY": GOOGLE_KEY})
    with pytest.raises(SearchFatal, match="GOOGLE_CSE_ID"):
        google.preflight()


def test_domain_restriction_and_retry_after_dates() -> None:
    brave = Brave()
    assert brave.restrict_to_domains("a b c", [".ke", ".com"]) == "a b c (site:.ke OR site:.com)"
    assert brave.restrict_to_domains("a b c", []) == "a b c"
    assert parse_retry_after("120") == 120.0
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0) == 10.0
    assert parse_retry_after("soon") is None


# -- the workspace: cache, crash, budgets, stage stop, secrets ---------------------------


@pytest.fixture
def workspace(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> Path:
    doc = tmp_path / "doc.txt"
    doc.write_text("Ng'ato ka ng'ato nyalo bedo gi thuolo.\n", encoding="utf-8")
    root = tmp_path / "ws"
    result = run_collie(
        capsys,
        "init",
        "-w",
        str(root),
        "--lang",
        "luo",
        "--force",
        "--docs",
        str(doc),
        "--search",
        "brave",
        "--search-url",
        BRAVE_URL,
    )
    assert result.code == 0, result.err
    monkeypatch.setenv("BRAVE_API_KEY", BRAVE_KEY)
    monkeypatch.setenv("COLLIE_WORKSPACE", str(root))
    monkeypatch.setenv("COLLIE_SEARCH_RATE_LIMIT", "0")
    return root


def brave_hits(web: MiniWebServer) -> int:
    return len(web.requests_for("api.brave.test"))


def test_a_query_is_sent_once_then_answered_from_the_store(
    world: World, web: MiniWebServer, workspace: Path, capsys
) -> None:
    world.add(BRAVE_URL, json_response(brave_results(2)))
    first = run_collie(capsys, "search", "ng'ato thuolo piny", "--json")
    assert first.code == 0, first.err
    second = run_collie(capsys, "search", "ng'ato thuolo piny", "--json")
    assert json.loads(second.out)["results"] == json.loads(first.out)["results"]
    assert json.loads(second.out)["status"] == "from the workspace's store"
    assert brave_hits(web) == 1
    status = json.loads(run_collie(capsys, "status", "--json").out)
    assert status["search"]["queries"] == {"done": 1}
    assert status["search"]["result_urls"] == 2


def test_crash_between_sending_and_storing_never_resends(
    world: World, web: MiniWebServer, workspace: Path, capsys, monkeypatch
) -> None:
    world.add(BRAVE_URL, json_response(brave_results(2)))

    def crash(*args: object) -> None:
        raise KeyboardInterrupt  # the process dies after the answer, before storing it

    with monkeypatch.context() as patch:
        patch.setattr("collie.store.search.QueryCache.finish_query", crash)
        assert run_collie(capsys, "search", "a b c").code == 130
    assert brave_hits(web) == 1
    again = run_collie(capsys, "search", "a b c")
    assert again.code == 1 and "does not send a query twice" in again.err
    assert brave_hits(web) == 1
    with open_workspace(workspace, os.environ, {}) as ws:
        assert ws.queries.mark_pending_lost() == 1
        assert ws.queries.query_counts() == {"lost": 1}
        backend = make_backend(ws.settings, {"BRAVE_API_KEY": BRAVE_KEY})
        report = search_queries(ws, backend, [("a b c", None), ("d e f", ["d", "e", "f"])], 10, 5)
    assert [o.status for o in report.outcomes] == ["lost", "sent"]
    assert brave_hits(web) == 2


def test_failed_queries_may_be_retried(world: World, web: MiniWebServer, workspace: Path) -> None:
    world.add(BRAVE_URL, sequence(Response.error(500), json_response(brave_results(1))))
    with open_workspace(workspace, {**os.environ, "COLLIE_SEARCH_RETRIES": "0"}, {}) as ws:
        backend = make_backend(ws.settings, {"BRAVE_API_KEY": BRAVE_KEY})
        assert search_one(ws, backend, "a b c", 10).status == "failed"
        assert search_one(ws, backend, "a b c", 10).status == "sent"
        assert search_one(ws, backend, "a b c", 10).status == "cached"
        assert ws.queries.requests_sent() == 2


def test_budgets_and_failures_stop_the_stage(
    world: World, web: MiniWebServer, workspace: Path
) -> None:
    world.add(BRAVE_URL, json_response(brave_results(1)))
    queries = [(f"q{i}", None) for i in range(5)]
    with open_workspace(workspace, os.environ, {}) as ws:
        backend = make_backend(ws.settings, {"BRAVE_API_KEY": BRAVE_KEY})
        report = search_queries(ws, backend, queries, 10, 5, SearchBudget(workspace_limit=2))
        assert report.count("sent") == 2 and "query budget (2)" in (report.stopped or "")
        again = search_queries(ws, backend, queries[:2], 10, 5, SearchBudget(workspace_limit=2))
        assert again.count("cached") == 2 and again.stopped is None
        run = search_queries(ws, backend, queries, 10, 5, SearchBudget(run_limit=1))
        assert run.count("sent") == 1 and "run's query budget" in (run.stopped or "")
    world.add(BRAVE_URL, Response.error(500))
    with open_workspace(workspace, {**os.environ, "COLLIE_SEARCH_RETRIES": "0"}, {}) as ws:
        backend = make_backend(ws.settings, {"BRAVE_API_KEY": BRAVE_KEY})
        failing = [(f"x{i}", None) for i in range(6)]
        report = search_queries(ws, backend, failing, 10, max_failures=3)
    assert report.count("failed") == 3
    assert "failed 3 queries in a row" in (report.stopped or "")
    assert brave_hits(web) == 2 + 1 + 3
    world.add(BRAVE_URL, json_response(brave_results(0)))  # answers, never a result
    with open_workspace(workspace, os.environ, {}) as ws:
        backend = make_backend(ws.settings, {"BRAVE_API_KEY": BRAVE_KEY})
        empty = [(f"y{i}", None) for i in range(10)]
        report = search_queries(ws, backend, empty, 10, 5, max_empty=4)
    assert report.count("sent") == 4 and "4 queries in a row with no result" in (
        report.stopped or ""
    )
    assert brave_hits(web) == 2 + 1 + 3 + 4  # no quota burnt beyond them


def test_result_urls_are_deduplicated_across_queries(
    world: World, web: MiniWebServer, workspace: Path
) -> None:
    answers = {
        "one": ["http://A.example.ke/x#top", "http://b.example.ke/"],
        "two": ["http://a.example.ke/x", "http://c.example.ke/?utm_source=z"],
    }

    def answer(request: Request) -> Response:
        urls = answers[request.query["q"][0]]
        return json_response({"web": {"results": [{"url": u, "title": u} for u in urls]}})

    world.add(BRAVE_URL, answer)
    with open_workspace(workspace, os.environ, {}) as ws:
        backend = make_backend(ws.settings, {"BRAVE_API_KEY": BRAVE_KEY})
        search_queries(ws, backend, [("one", None), ("two", None)], 10, 5)
        found = {u.canonical_url: u.query_ids for u in ws.queries.result_urls()}
    assert found == {
        "http://a.example.ke/x": [1, 2],
        "http://b.example.ke/": [1],
        "http://c.example.ke/": [2],
    }


def test_keys_never_stored_or_printed(
    world: World, web: MiniWebServer, workspace: Path, capsys, monkeypatch, caplog
) -> None:
    world.add(BRAVE_URL, json_response(brave_results(2)))
    world.add(GOOGLE_URL, json_response({"items": [{"link": "http://a.ke/", "title": "A"}]}))
    monkeypatch.setenv("GOOGLE_API_KEY", GOOGLE_KEY)
    monkeypatch.setenv("GOOGLE_CSE_ID", GOOGLE_CX)
    printed = []
    with caplog.at_level(logging.DEBUG):
        for args in (
            ["search", "a b c", "--json"],
            ["-v", "-v", "search", "--search", "google", "--search-url", GOOGLE_URL, "d e f"],
            ["status", "--json"],
            ["config"],
        ):
            result = run_collie(capsys, *args)
            assert result.code == 0, result.err
            printed += [result.out, result.err]
        # a connection failure: requests puts the whole URL, key included, in its message
        monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
        monkeypatch.setenv("http_proxy", "http://127.0.0.1:9")
        monkeypatch.setenv("COLLIE_SEARCH_RETRIES", "0")
        failed = run_collie(capsys, "search", "--search", "google", "--search-url", GOOGLE_URL, "g")
        assert failed.code == 1 and "ProxyError" in failed.err
        printed += [failed.out, failed.err]
    printed += [record.getMessage() for record in caplog.records]
    assert any("customsearch" in line for line in printed), "debug logs were captured"
    stored = b"".join(p.read_bytes() for p in workspace.rglob("*") if p.is_file())
    for secret in (BRAVE_KEY, GOOGLE_KEY, GOOGLE_CX):
        assert secret.encode() not in stored
        assert not [text for text in printed if secret in text]


SEARX_URL = "http://searx.example.test/search"
SHAPES: dict[str, tuple[Callable[..., Any], str, Callable[[list[str]], dict[str, Any]]]] = {
    "brave": (lambda **kw: Brave(secrets={"BRAVE_API_KEY": BRAVE_KEY}, **kw), BRAVE_URL,
              lambda urls: {"web": {"results": [{"url": u, "title": u} for u in urls]}}),
    "searxng": (lambda **kw: SearXNG(**kw), SEARX_URL,
                lambda urls: {"results": [{"url": u, "title": u, "content": ""} for u in urls]}),
    "google": (lambda **kw: Google(secrets={"GOOGLE_API_KEY": GOOGLE_KEY,
                                            "GOOGLE_CSE_ID": GOOGLE_CX}, **kw), GOOGLE_URL,
               lambda urls: {"items": [{"link": u, "title": u} for u in urls]}),
    "mojeek": (lambda **kw: Mojeek(secrets={"MOJEEK_API_KEY": MOJEEK_KEY}, **kw), MOJEEK_URL,
               lambda urls: {"response": {"status": "OK",
                                          "results": [{"url": u, "title": u} for u in urls]}}),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_every_backend_parses_and_survives_bad_answers(
    name: str, world: World, web: MiniWebServer
) -> None:
    make, url, shape = SHAPES[name]
    clock = FakeClock()
    world.add(
        url,
        sequence(
            json_response(shape(["http://a.ke/1", "http://a.ke/2"])),
            json_response(shape([])),
            Response(200, [("Content-Type", "application/json")], b"<html>not json"),
            json_response({"oops": True}, 429, [("Retry-After", "3")]),
            json_response(shape(["http://a.ke/3"])),
            json_response(shape(["http://a.ke/4"])).slowed(delay=1.0),
        ),
    )
    backend = make(url=url, http=fast(retries=1, timeout=0.3), clock=clock)
    # count=2: all that was asked for is in, so SearXNG asks for no second page
    assert [(r.rank, r.url, r.backend) for r in backend.search("a b c", count=2).results] == [
        (1, "http://a.ke/1", name),
        (2, "http://a.ke/2", name),
    ]
    assert backend.search("a b c").results == []
    with pytest.raises(SearchError, match="not JSON"):
        backend.search("a b c")
    assert [r.url for r in backend.search("a b c", count=1).results] == ["http://a.ke/3"]
    assert clock.sleeps == [3.0]
    with pytest.raises(SearchError, match="no answer within"):
        backend.search("a b c")


SEARX = "http://searx.test"


def test_searxng_empty_answer_with_failed_engines_is_a_failed_query(
    world: World, web: MiniWebServer
) -> None:
    failed = {
        "query": "a",
        "results": [],
        "unresponsive_engines": [["bing", "HTTP connection error"]],
    }
    answer = sequence(json_response(failed), json_response({"results": [], "answers": []}))
    world.add(f"{SEARX}/search", answer)
    searx = SearXNG(url=SEARX, http=fast())
    with pytest.raises(
        SearchError, match=r"engines did not answer: bing \(HTTP connection error\)"
    ):
        searx.search("thuolo")
    assert searx.search("thuolo").results == []  # no engine failed: a real empty answer


def test_searxng_requests_look_like_a_browser_and_quote_its_syntax(
    world: World, web: MiniWebServer
) -> None:
    answer = sequence(json_response({"results": []}))
    world.add(f"{SEARX}/search", answer)
    SearXNG(url=SEARX, language="sw", http=fast()).search("!!g :en <3 habari")
    request = answer.calls[-1]  # type: ignore[attr-defined]
    headers = request.headers
    assert headers["user-agent"].startswith("collie/")
    assert headers["accept-language"].startswith("sw") and "json" in headers["accept"]
    assert "q=%22%21%21g%22+%22%3Aen%22+%22%3C3%22+habari" in request.path


def test_searxng_limiter_429_ends_with_the_fix(world: World, web: MiniWebServer) -> None:
    world.add(f"{SEARX}/search", Response(429, [("Content-Type", "text/plain")], b"Too Many"))
    clock = FakeClock()
    with pytest.raises(SearchError) as info:
        SearXNG(url=SEARX, http=fast(retries=1), clock=clock).search("a")
    assert "limiter" in str(info.value) and "127.0.0.1" in str(info.value)


def test_connection_problems_are_said_plainly(monkeypatch, caplog) -> None:
    """Nothing listening at the port: said, retried, then the fix; a host name that does
    not resolve: said at once, no retries (issue 20)."""
    import socket

    for name in ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again: nothing listens there
    clock = FakeClock()
    searx = SearXNG(url=f"http://127.0.0.1:{port}", http=fast(retries=2), clock=clock)
    with caplog.at_level(logging.WARNING), pytest.raises(SearchError) as info:
        searx.search("a b c")
    assert f"connection refused at 127.0.0.1:{port}" in info.value.message
    assert "Start the backend" in info.value.hint
    assert len([r for r in caplog.records if "trying again" in r.getMessage()]) == 2
    unknown = SearXNG(url="http://no-such-host.invalid:8888", http=fast(retries=3), clock=clock)
    with pytest.raises(SearchFatal, match=r"host not found: no-such-host\.invalid") as fatal:
        unknown.search("a b c")
    assert "search.url" in fatal.value.hint


CAPTCHA = Response.html(
    "<html><title>Sorry</title><body>Our systems have detected unusual traffic. "
    '<div class="g-recaptcha"></div></body></html>'
)


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_every_backend_is_blocked_by_a_captcha_or_a_429_never_answered_empty(
    name: str, world: World, web: MiniWebServer
) -> None:
    """A CAPTCHA page (on a 200 or a 403) and a 429 still there after the retries are
    SearchBlocked (a SearchRefused: the run stops, the loop left open), never results."""
    make, url, _ = SHAPES[name]
    limited = json_response({"error": "rate limited"}, 429)
    forbidden = Response(403, [("Content-Type", "text/html")], CAPTCHA.body)
    seen = sequence(CAPTCHA, forbidden, limited)
    world.add(url, seen)
    clock = FakeClock()
    backend = make(url=url, http=fast(retries=2), clock=clock)
    for status in (200, 403):
        with pytest.raises(SearchBlocked, match=rf"^{name} blocked the search \(a CAPTCHA page, "
                           rf"HTTP {status}\)") as info:  # fmt: skip
            backend.search("a b c")
        assert isinstance(info.value, SearchRefused) and "run `collie run` again" in str(info.value)
    with pytest.raises(SearchBlocked, match=r"HTTP 429 still after 2 retries"):
        backend.search("a b c")
    assert len(seen.calls) == 2 + 3  # type: ignore[attr-defined]
    world.add(url, json_response({}, 429, [("Retry-After", "3600")]))
    with pytest.raises(SearchBlocked, match="asking to wait 3600 s"):
        backend.search("a b c")


def test_searxng_engines_all_blocked_is_a_block_not_an_empty_answer(
    world: World, web: MiniWebServer
) -> None:
    engines = [["google", "CAPTCHA"], ["duckduckgo", "Suspended: too many requests"],
               ["qwant", "access denied"]]  # fmt: skip
    blocked = {"results": [], "unresponsive_engines": engines}
    mixed = {"results": [], "unresponsive_engines": [["google", "CAPTCHA"], ["bing", "timeout"]]}
    world.add(f"{SEARX}/search", sequence(json_response(blocked), json_response(mixed)))
    searx = SearXNG(url=SEARX, http=fast())
    with pytest.raises(SearchBlocked, match="every engine blocked: google \\(CAPTCHA\\)") as info:
        searx.search("thuolo")
    assert "braveapi" in str(info.value)
    with pytest.raises(SearchError) as failed:  # one engine merely down: a failed query
        searx.search("thuolo")
    assert not isinstance(failed.value, SearchRefused)


def test_mojeek_request_results_and_errors(world: World, web: MiniWebServer) -> None:
    answer = {"response": {"status": "OK", "head": {"query": "a b c", "start": 11},
              "results": [{"url": "http://a.ke/1", "title": "A", "desc": "D"}]}}  # fmt: skip
    seen = sequence(
        json_response(answer),
        json_response({"response": {"status": "ERROR: Daily Limit Reached"}}),
        json_response({"response": {"status": "ERROR: Invalid API key"}}, 401),
        json_response({"response": {"status": "ERROR: Bad query"}}),
    )
    world.add(MOJEEK_URL, seen)
    mojeek = Mojeek(url=MOJEEK_URL, secrets={"MOJEEK_API_KEY": MOJEEK_KEY}, country="ke",
                    language="sw", http=fast())  # fmt: skip
    found = mojeek.search("a b c", count=5, offset=10).results
    assert [(r.rank, r.url, r.title, r.snippet, r.backend) for r in found] == [
        (11, "http://a.ke/1", "A", "D", "mojeek")
    ]
    assert seen.calls[0].query == {  # type: ignore[attr-defined]
        "q": ["a b c"], "t": ["5"], "s": ["11"], "fmt": ["json"], "lb": ["SW"], "lbb": ["10"],
        "rb": ["KE"], "rbb": ["10"], "api_key": [MOJEEK_KEY],
    }  # fmt: skip
    with pytest.raises(SearchBlocked, match="Daily Limit Reached"):
        mojeek.search("a")
    with pytest.raises(SearchRefused, match="rejected the API key") as info:
        mojeek.search("a")
    assert "MOJEEK_API_KEY" in str(info.value) and MOJEEK_KEY not in str(info.value)
    with pytest.raises(SearchError, match="mojeek: ERROR: Bad query"):
        mojeek.search("a")
    settings = load_settings({"search.backend": "mojeek"}, {}, {})
    with pytest.raises(SearchFatal, match="MOJEEK_API_KEY"):
        make_backend(settings, {}).preflight()


def test_google_says_its_end_and_refuses_after_it(
    world: World, web: MiniWebServer, caplog: pytest.LogCaptureFixture
) -> None:
    seen = sequence(json_response({"items": []}))
    world.add(GOOGLE_URL, seen)
    secrets = {"GOOGLE_API_KEY": GOOGLE_KEY, "GOOGLE_CSE_ID": GOOGLE_CX}
    eve = FakeClock(wall=1_798_761_599.0)  # 2026-12-31 23:59:59 UTC
    with caplog.at_level(logging.WARNING, logger="collie.search"):
        google = Google(url=GOOGLE_URL, secrets=secrets, http=fast(), clock=eve)
    assert "ends on 2027-01-01 (1 day from now" in caplog.records[-1].message
    assert google.search("a").results == []
    eve.t += 1.0  # midnight: 2027-01-01
    with pytest.raises(SearchEnded, match=r"ended on 2027-01-01\. No query can be sent") as info:
        google.search("a")
    assert "brave" in str(info.value) and "mojeek" in str(info.value)
    assert isinstance(info.value, SearchRefused)  # the run stops, the loop left open
    assert len(seen.calls) == 1  # type: ignore[attr-defined]
    with pytest.raises(SearchEnded):
        Google(url=GOOGLE_URL, secrets=secrets, clock=FakeClock(wall=1_830_000_000.0)).check()
