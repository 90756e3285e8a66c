"""The polite fetcher against the local web (a real HTTP proxy on 127.0.0.1).

Only the clock is faked, and only where a test is about waiting; pacing is checked
from the server's request log in real time.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable

import pytest

from collie.config import SETTINGS_BY_KEY
from collie.fetch.fetcher import FetchConfig, Fetcher
from collie.fetch.pool import fetch_all
from collie.fetch.robots import MemoryRobotsStore, RobotsRecord
from collie.http import looks_like_html
from collie.mininet.server import MiniWebServer, Request, Response, World
from collie.models import FetchResult

PAGE = "<!DOCTYPE html><html><head><title>t</title></head><body><p>Ber ahinya!</p></body></html>"


class FakeClock:
    """Virtual time: sleeping advances it at once."""

    def __init__(self) -> None:
        self.t = 1000.0
        self.w = 1_700_000_000.0
        self.sleeps: list[float] = []
        self._lock = threading.Lock()

    def now(self) -> float:
        return self.t

    def wall(self) -> float:
        return self.w

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            with self._lock:
                self.sleeps.append(round(seconds, 3))
                self.t += seconds
                self.w += seconds


def config(**changes: object) -> FetchConfig:
    """A fast fetcher's settings; without tdmrep.json (its request is tested on its own,
    test_tdmrep_is_read_once_per_origin_after_robots), so the requests are robots.txt's
    and the pages'."""
    base: dict[str, object] = {"delay": 0.0, "backoff": 0.01, "read_timeout": 5.0,
                               "tdmrep": False}  # fmt: skip
    return FetchConfig(**{**base, **changes})  # type: ignore[arg-type]


def counting(responses: list[Response]) -> tuple[Callable[[Request], Response], list[int]]:
    """A behaviour answering with `responses` in turn (the last one forever)."""
    calls = [0]

    def behaviour(request: Request) -> Response:
        calls[0] += 1
        return responses[min(calls[0], len(responses)) - 1]

    return behaviour, calls


def paths(web: MiniWebServer, host: str) -> list[str]:
    return [entry.path for entry in web.requests_for(host)]


def test_settings_and_config_agree() -> None:
    names = {f"fetch.{name}" for name in FetchConfig.__dataclass_fields__}
    assert {k for k in SETTINGS_BY_KEY if k.startswith("fetch.")} <= names
    cfg = FetchConfig.from_settings({"fetch.delay": 2.5, "fetch.user_agent": "collie/9"})
    assert (cfg.delay, cfg.agent_token) == (2.5, "collie")


def test_fetches_a_page_with_our_headers(web: MiniWebServer, world: World) -> None:
    world.add("http://luo.example.ke/", Response.html(PAGE))
    cfg = config(contact_url="https://example.org/crawl", email="me@example.org")
    with Fetcher(cfg) as fetcher:
        result = fetcher.fetch("http://luo.example.ke/#top")
    assert result.outcome == "fetched" and result.reason is None
    assert result.status == 200 and result.body == PAGE.encode()
    assert result.url == "http://luo.example.ke/#top"
    assert result.final_url == "http://luo.example.ke/"
    assert result.headers["content-type"] == "text/html; charset=utf-8"
    assert paths(web, "luo.example.ke") == ["/robots.txt", "/"]
    headers = web.requests_for("luo.example.ke")[1].headers
    assert headers["user-agent"] == "collie/0.1 (+https://example.org/crawl)"
    assert headers["from"] == "me@example.org"


ROBOTS = """\
User-agent: *
Disallow: /

User-agent: collie
Disallow: /private/
Disallow: /*.php$
Allow: /private/open
"""


def test_robots_rules_for_our_token(web: MiniWebServer, world: World) -> None:
    world.add("http://site.example/robots.txt", Response.text(ROBOTS))
    for path in ("/a", "/private/x", "/private/open/1", "/index.php", "/index.php?x=1"):
        world.add(f"http://site.example{path}", Response.html(PAGE))
    with Fetcher(config()) as fetcher:
        got = {
            r.url.removeprefix("http://site.example"): r.reason
            for r in (fetcher.fetch(f"http://site.example{p}") for p in
                      ("/a", "/private/x", "/private/open/1", "/index.php", "/index.php?x=1"))
        }  # fmt: skip
    assert got == {"/a": None, "/private/x": "robots", "/private/open/1": None,
                   "/index.php": "robots", "/index.php?x=1": None}  # fmt: skip
    # robots.txt fetched once; disallowed pages never requested
    assert paths(web, "site.example") == ["/robots.txt", "/a", "/private/open/1", "/index.php?x=1"]


@pytest.mark.parametrize(
    ("robots", "expected"),
    [
        (Response.error(404), "fetched"),  # 4xx: allow all
        (Response.error(403), "fetched"),
        (Response.error(500), "dropped"),  # 5xx: unreachable, disallow all for now
        (Response.error(429), "dropped"),
    ],
)
def test_robots_unavailable_or_unreachable(
    web: MiniWebServer, world: World, robots: Response, expected: str
) -> None:
    world.add("http://r.example/robots.txt", robots)
    world.add("http://r.example/page", Response.html(PAGE))
    store = MemoryRobotsStore()
    with Fetcher(config(retries=1), robots=store) as fetcher:
        result = fetcher.fetch("http://r.example/page")
    assert result.outcome == expected
    if expected == "dropped":  # held back, not the site's verdict: nothing stored
        assert result.reason == "robots-unreachable"
        assert "/page" not in paths(web, "r.example")
        assert store.get("http://r.example") is None and store.take_new() == []
    else:
        assert store.get("http://r.example").kind == "allow-all"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("status", "body", "kind", "allowed"),
    [
        (None, b"", "unreachable", False),  # no answer: network error, timeout, proxy
        (503, b"", "unreachable", False),
        (500, b"", "unreachable", False),
        (429, b"", "unreachable", False),
        (404, b"", "allow-all", True),
        (403, b"", "allow-all", True),
        (200, b"User-agent: *\nDisallow: /a\n", "rules", True),
    ],
)
def test_robots_record_of_each_answer(
    status: int | None, body: bytes, kind: str, allowed: bool
) -> None:
    record = RobotsRecord.from_answer("http://x.example", status, body, 1.0)
    assert record.kind == kind and record.unreachable == (kind == "unreachable")
    assert record.allows("http://x.example/b", "collie") is allowed
    if kind == "rules":
        assert not record.allows("http://x.example/a", "collie")
    store = MemoryRobotsStore()
    store.put(record)  # only a real answer is remembered (and saved to the workspace)
    assert (store.get(record.origin) is not None) == (kind != "unreachable")
    assert len(store.take_new()) == (kind != "unreachable")


def test_unreachable_robots_is_asked_again_with_backoff(web: MiniWebServer, world: World) -> None:
    robots, calls = counting([Response.error(503), Response.error(503), Response.text("")])
    world.add("http://down.example/robots.txt", robots)
    world.add("http://down.example/page", Response.html(PAGE))
    clock, store = FakeClock(), MemoryRobotsStore()
    with Fetcher(config(retries=0, robots_retry=60.0), robots=store, clock=clock) as fetcher:
        assert fetcher.fetch("http://down.example/page").reason == "robots-unreachable"
        assert fetcher.robots_unreachable() == {"http://down.example": "http-503"}
        clock.t += 59  # not before a minute
        assert fetcher.fetch("http://down.example/page").reason == "robots-unreachable"
        assert calls == [1]
        clock.t += 1
        assert fetcher.fetch("http://down.example/page").reason == "robots-unreachable"
        assert calls == [2] and store.get("http://down.example") is None
        clock.t += 119  # then two minutes
        assert fetcher.fetch("http://down.example/page").reason == "robots-unreachable"
        clock.t += 1
        assert fetcher.fetch("http://down.example/page").outcome == "fetched"
        assert calls == [3] and fetcher.robots_unreachable() == {}
    assert store.get("http://down.example").kind == "rules"  # type: ignore[union-attr]
    assert paths(web, "down.example").count("/page") == 1


def test_unreachable_robots_given_up_for_the_run_after_three_tries(
    web: MiniWebServer, world: World
) -> None:
    robots, calls = counting([Response.error(502)])
    world.add("http://gone.example/robots.txt", robots)
    clock = FakeClock()
    with Fetcher(config(retries=0, robots_retry=1.0), clock=clock) as fetcher:
        for _ in range(3):
            assert fetcher.fetch("http://gone.example/p").reason == "robots-unreachable"
            clock.t += 10
        clock.t += 1e6
        assert fetcher.fetch("http://gone.example/p").reason == "robots-unreachable"
    assert calls == [3] and fetcher.robots_failures.retry_at("http://gone.example") == float("inf")


def test_robots_redirect_followed_and_cached_with_ttl(web: MiniWebServer, world: World) -> None:
    world.add("http://old.example/robots.txt", Response.redirect("http://new.example/robots.txt"))
    world.add("http://new.example/robots.txt", Response.text("User-agent: *\nDisallow: /x\n"))
    world.add("http://old.example/ok", Response.html(PAGE))
    world.add("http://old.example/ok2", Response.html(PAGE))
    clock = FakeClock()
    store = MemoryRobotsStore()
    with Fetcher(config(), robots=store, clock=clock) as fetcher:
        assert fetcher.fetch("http://old.example/x").reason == "robots"
        assert fetcher.fetch("http://old.example/ok").outcome == "fetched"
        assert paths(web, "old.example").count("/robots.txt") == 1
        record = store.get("http://old.example")
        assert record is not None and record.kind == "rules"
        clock.w += 24 * 3600  # a day later the record is stale
        assert fetcher.fetch("http://old.example/ok2").outcome == "fetched"
    assert paths(web, "old.example").count("/robots.txt") == 2


def test_robots_from_store_is_used_without_fetching(web: MiniWebServer, world: World) -> None:
    world.add("http://s.example/p", Response.html(PAGE))
    clock = FakeClock()
    store = MemoryRobotsStore()
    store.put(RobotsRecord("http://s.example", "rules", "User-agent: *\nDisallow: /p\n",
                           200, clock.wall() - 3600))  # fmt: skip
    with Fetcher(config(), robots=store, clock=clock) as fetcher:
        assert fetcher.fetch("http://s.example/p").reason == "robots"
    assert web.requests_for("s.example") == []


def test_crawl_delay_honoured_and_capped(web: MiniWebServer, world: World) -> None:
    world.add("http://slow.example/robots.txt", Response.text("User-agent: *\nCrawl-delay: 0.4\n"))
    world.add("http://greedy.example/robots.txt", Response.text("User-agent: *\nCrawl-delay: 45"))
    for i in range(3):
        world.add(f"http://slow.example/{i}", Response.html(PAGE))
    world.add("http://greedy.example/0", Response.html(PAGE))
    with Fetcher(config(delay=0.0, max_crawl_delay=30)) as fetcher:
        results = list(fetch_all(fetcher, [f"http://slow.example/{i}" for i in range(3)]))
        greedy = fetcher.fetch("http://greedy.example/0")
    assert all(r.outcome == "fetched" for r in results)
    times = [e.monotonic for e in web.requests_for("slow.example")]
    assert len(times) == 4
    assert min(b - a for a, b in itertools.pairwise(times)) >= 0.39
    assert greedy.reason == "crawl-delay-too-long:45s"
    assert paths(web, "greedy.example") == ["/robots.txt"]


def test_retry_after_holds_the_host(web: MiniWebServer, world: World) -> None:
    behaviour, calls = counting([Response.error(503, retry_after=7), Response.html(PAGE)])
    world.add("http://busy.example/", behaviour)
    clock = FakeClock()
    with Fetcher(config(delay=1.0), clock=clock) as fetcher:
        result = fetcher.fetch("http://busy.example/")
    assert result.outcome == "fetched" and calls[0] == 2
    assert 7.0 in clock.sleeps  # waited what the host asked, not the backoff


def test_retry_after_too_long_gives_up(web: MiniWebServer, world: World) -> None:
    behaviour, calls = counting([Response.error(429, retry_after=3600)])
    world.add("http://quota.example/", behaviour)
    with Fetcher(config(), clock=FakeClock()) as fetcher:
        result = fetcher.fetch("http://quota.example/")
    assert (result.outcome, result.reason, result.status, calls[0]) == (
        "dropped", "http-429", 429, 1)  # fmt: skip


def test_transient_errors_retried_with_backoff(web: MiniWebServer, world: World) -> None:
    flaky, flaky_calls = counting([Response.error(500), Response.error(502), Response.html(PAGE)])
    down, down_calls = counting([Response.error(502)])
    broken, broken_calls = counting([Response.error(500)])
    world.add("http://flaky.example/", flaky)
    world.add("http://down.example/", down)
    world.add("http://broken.example/", broken)
    clock = FakeClock()
    with Fetcher(config(retries=3, backoff=1.0), clock=clock) as fetcher:
        assert fetcher.fetch("http://flaky.example/").outcome == "fetched"
        result = fetcher.fetch("http://down.example/")
        page_bug = fetcher.fetch("http://broken.example/")
    assert flaky_calls[0] == 3 and down_calls[0] == 4  # a gateway error: every retry
    assert (result.reason, result.status) == ("http-502", 502)
    assert broken_calls[0] == 2 and page_bug.reason == "http-500"  # a 500: tried again once
    backoffs = [s for s in clock.sleeps if s >= 1.0]
    assert backoffs[:2] and 1.0 <= backoffs[0] <= 1.5 and 2.0 <= backoffs[1] <= 3.0


def test_permanent_errors_not_retried(web: MiniWebServer, world: World) -> None:
    gone, calls = counting([Response.error(404)])
    world.add("http://e.example/gone", gone)
    with Fetcher(config()) as fetcher:
        result = fetcher.fetch("http://e.example/gone")
    assert (result.outcome, result.reason, calls[0]) == ("dropped", "http-404", 1)


def test_redirects_followed_paced_and_checked(web: MiniWebServer, world: World) -> None:
    world.add("http://a.example/start", Response.redirect("/middle", 302))
    world.add("http://a.example/middle", Response.redirect("http://b.example/end#frag"))
    world.add("http://b.example/end", Response.html(PAGE))
    world.add("http://c.example/robots.txt", Response.text("User-agent: *\nDisallow: /no\n"))
    world.add("http://a.example/to-c", Response.redirect("http://c.example/no"))
    with Fetcher(config(delay=0.3)) as fetcher:
        result = fetcher.fetch("http://a.example/start")
        blocked = fetcher.fetch("http://a.example/to-c")
    assert result.outcome == "fetched" and result.final_url == "http://b.example/end"
    assert result.redirects == ("http://a.example/middle", "http://b.example/end")
    assert blocked.reason == "robots" and blocked.final_url == "http://c.example/no"
    assert paths(web, "c.example") == ["/robots.txt"]
    times = [e.monotonic for e in web.requests_for("a.example")]
    assert min(b - a for a, b in itertools.pairwise(times)) >= 0.29


def test_redirect_loop_and_limit(web: MiniWebServer, world: World) -> None:
    world.add("http://loop.example/a", Response.redirect("/b"))
    world.add("http://loop.example/b", Response.redirect("/a"))
    for i in range(20):
        world.add(f"http://chain.example/{i}", Response.redirect(f"/{i + 1}"))
    with Fetcher(config(max_redirects=10)) as fetcher:
        loop = fetcher.fetch("http://loop.example/a")
        chain = fetcher.fetch("http://chain.example/0")
    assert loop.reason == "redirect-loop"
    assert chain.reason == "too-many-redirects" and len(chain.redirects) == 10
    assert len(paths(web, "chain.example")) == 1 + 11  # robots + the first 11 hops


def test_a_url_answered_once_is_never_requested_again(web: MiniWebServer, world: World) -> None:
    world.add("http://r.example/news/1.html", Response.html(PAGE))
    world.add("http://r.example/old/1.html", Response.redirect("/news/1.html"))
    world.add("http://r.example/old/2.html", Response.redirect("/news/2.html"))
    world.add("http://r.example/news/2.html", Response.html(PAGE))
    with Fetcher(config()) as fetcher:
        assert fetcher.fetch("http://r.example/news/1.html").outcome == "fetched"
        again = fetcher.fetch("http://r.example/old/1.html")  # redirects to what was fetched
        first = fetcher.fetch("http://r.example/old/2.html")  # fetches /news/2.html
        alias = fetcher.fetch("http://r.example/news/2.html")  # queued too: not asked twice
    assert (again.outcome, again.reason) == ("dropped", "fetched-already")
    assert again.final_url == "http://r.example/news/1.html"
    assert first.outcome == "fetched" and first.final_url == "http://r.example/news/2.html"
    assert (alias.outcome, alias.reason) == ("dropped", "fetched-already")
    requested = paths(web, "r.example")
    assert requested.count("/news/1.html") == 1 and requested.count("/news/2.html") == 1


def test_body_cap_truncates(web: MiniWebServer, world: World) -> None:
    big = b"<html><body>" + b"<p>ber</p>" * 50_000 + b"</body></html>"
    world.add("http://big.example/", Response.html(big))
    with Fetcher(config(max_bytes=100_000)) as fetcher:
        result = fetcher.fetch("http://big.example/")
    assert result.outcome == "fetched" and result.truncated
    assert result.body == big[:100_000]


def test_slow_body_and_slow_answer_time_out(web: MiniWebServer, world: World) -> None:
    trickle = Response.html(b"<html><body>" + b"x" * 4000 + b"</body></html>")
    world.add("http://trickle.example/", trickle.slowed(body_delay=0.2, chunk_size=200))
    world.add("http://mute.example/", Response.html(PAGE).slowed(delay=3.0))
    with Fetcher(config(read_timeout=0.5, retries=0)) as fetcher:
        started = time.monotonic()
        trickled = fetcher.fetch("http://trickle.example/")
        mute = fetcher.fetch("http://mute.example/")
    assert (trickled.outcome, trickled.reason) == ("dropped", "timeout")
    assert (mute.outcome, mute.reason) == ("dropped", "timeout")
    assert time.monotonic() - started < 3.0


@pytest.mark.parametrize(
    ("response", "reason"),
    [
        (
            Response.binary(b"%PDF-1.7\n" + b"\0" * 5000, "application/pdf"),
            "not-html:application/pdf",
        ),
        (Response.binary(b"\x89PNG\r\n" + b"\0" * 100, "image/png"), "not-html:image/png"),
        (
            Response.binary(b"%PDF-1.4 ...", "application/octet-stream"),
            "not-html:application/octet-stream",
        ),
        (
            Response.binary(b"  <!DOCTYPE html><html><p>ok</p></html>", "application/octet-stream"),
            None,
        ),
        (Response(200, [], b"<html><body><p>no type at all</p></body></html>"), None),
        (
            Response.html(PAGE, headers=[]).__class__(
                200, [("Content-Type", "application/xhtml+xml")], PAGE.encode()
            ),
            None,
        ),
        (Response.text("just words, no markup"), "not-html:text/plain"),
    ],
)
def test_only_html_is_kept(
    web: MiniWebServer, world: World, response: Response, reason: str | None
) -> None:
    world.add("http://t.example/x", response)
    with Fetcher(config()) as fetcher:
        result = fetcher.fetch("http://t.example/x")
    assert result.reason == reason
    assert (result.outcome == "fetched") == (reason is None)


def test_sniffing() -> None:
    assert looks_like_html(b"\xef\xbb\xbf\n <HTML lang=luo>")
    assert looks_like_html("<!doctype html>".encode("utf-16"))
    assert looks_like_html(b"<?xml version='1.0'?><html xmlns='x'>")
    assert not looks_like_html(b"<?xml version='1.0'?><rss>")
    assert not looks_like_html(b"<abbr>") and not looks_like_html(b"GIF89a")


def test_refused_without_any_request(web: MiniWebServer) -> None:
    with Fetcher(config()) as fetcher:
        literals = (
            "http://127.0.0.1:9/",
            "http://10.1.2.3/",
            "http://[::1]/",
            "http://169.254.1.1/",
        )
        private = [fetcher.fetch(u) for u in literals]
        ftp = fetcher.fetch("ftp://files.example/a.txt")
        mail = fetcher.fetch("mailto:someone@example.org")
    assert {r.reason for r in private} == {"private-address"}
    assert ftp.reason == "unsupported-scheme:ftp" and mail.reason == "unsupported-scheme:mailto"
    assert web.log == []


def test_private_addresses_allowed_when_asked(web: MiniWebServer, world: World) -> None:
    # The proxy's own address: reachable only with fetch.allow_private.
    url = f"http://127.0.0.1:{web.port}/search?q=x&format=json"
    with Fetcher(config(allow_private=True)) as fetcher:
        result = fetcher.fetch(url)
    assert result.status == 200 and result.reason == "not-html:application/json"


def test_unknown_host_is_an_error_not_a_crash(web: MiniWebServer) -> None:
    with Fetcher(config(retries=1)) as fetcher:
        result = fetcher.fetch("http://nowhere.example/")
    assert result.outcome == "dropped" and result.reason == "robots-unreachable"  # robots: 502


def test_fetch_all_many_hosts_in_parallel(web: MiniWebServer, world: World) -> None:
    slow = Response.html(PAGE).slowed(delay=0.2)
    hosts = [f"h{i}.example" for i in range(6)]
    for host in hosts:
        world.add(f"http://{host}/robots.txt", Response.error(404))
        world.add(f"http://{host}/1", slow)
        world.add(f"http://{host}/2", slow)
    urls = [f"http://{h}/{n}" for n in (1, 2) for h in hosts] + ["http://h0.example/missing"]
    started = time.monotonic()
    with Fetcher(config(workers=6)) as fetcher:
        results: list[FetchResult] = list(fetch_all(fetcher, urls))
    elapsed = time.monotonic() - started
    assert sorted(r.url for r in results) == sorted(urls)
    assert sum(r.outcome == "fetched" for r in results) == 12
    assert elapsed < 12 * 0.2  # sequential would take 2.4 s
    for host in hosts:  # one request in flight per host
        entries = web.requests_for(host)
        starts = [e.monotonic for e in entries if e.path != "/robots.txt"]
        assert min(b - a for a, b in itertools.pairwise(sorted(starts))) >= 0.19


@pytest.mark.slow
def test_default_delay_one_second_per_host(web: MiniWebServer, world: World) -> None:
    """Issue 5: with the default 1 s delay no host sees two requests closer than 1 s."""
    assert SETTINGS_BY_KEY["fetch.delay"].default == 1.0
    hosts = [f"p{i}.example" for i in range(4)]
    for host in hosts:
        for n in range(3):
            world.add(f"http://{host}/{n}", Response.html(PAGE))
    urls = [f"http://{h}/{n}" for h in hosts for n in range(3)]
    with Fetcher(FetchConfig(workers=4)) as fetcher:
        results = list(fetch_all(fetcher, urls))
    assert all(r.outcome == "fetched" for r in results)
    for host in hosts:
        times = sorted(e.monotonic for e in web.requests_for(host))
        assert len(times) == 5  # robots.txt, tdmrep.json and 3 pages, all paced
        assert min(b - a for a, b in itertools.pairwise(times)) >= 1.0


def test_closing_fetch_all_early_stops_new_requests(web: MiniWebServer, world: World) -> None:
    for n in range(20):
        world.add(f"http://one.example/{n}", Response.html(PAGE))
    with Fetcher(config(delay=0.05, workers=1)) as fetcher:
        stream = fetch_all(fetcher, [f"http://one.example/{n}" for n in range(20)])
        first = next(stream)
        stream.close()
        time.sleep(0.3)
    assert first.outcome == "fetched"
    assert len(web.requests_for("one.example")) <= 4


def test_pool_takes_new_hosts_while_a_big_one_is_paced(web: MiniWebServer, world: World) -> None:
    """No batch barrier: a host added while another is still being fetched (its delay
    between pages) is fetched at once, and each host keeps its delay."""
    from collie.fetch.pool import FetchPool

    for n in range(6):
        world.add(f"http://big.example/{n}", Response.html(PAGE))
    world.add("http://late.example/", Response.html(PAGE))
    with Fetcher(config(delay=0.2)) as fetcher, FetchPool(fetcher, workers=4) as pool:
        for n in range(6):
            pool.add(n, f"http://big.example/{n}")
        first = pool.take(timeout=5.0)
        pool.add("late", "http://late.example/")
        keys = [key for key, _ in first]
        while len(keys) < 7:
            keys += [key for key, _ in pool.take(timeout=5.0)]
    assert sorted(map(str, keys)) == sorted([*map(str, range(6)), "late"])
    late = web.requests_for("late.example")[-1].monotonic
    big = [e.monotonic for e in web.requests_for("big.example")]
    assert late < big[-1] - 0.3  # not after the big host's last page
    assert min(b - a for a, b in itertools.pairwise(big)) >= 0.19


def test_pool_close_returns_what_never_started(web: MiniWebServer, world: World) -> None:
    from collie.fetch.pool import FetchPool

    for n in range(10):
        world.add(f"http://one.example/{n}", Response.html(PAGE))
    with Fetcher(config(delay=0.3)) as fetcher:
        pool = FetchPool(fetcher, workers=2)
        for n in range(10):
            pool.add(n, f"http://one.example/{n}")
        done = pool.take(timeout=5.0)
        never = pool.close()
        done += pool.take()
    assert sorted([key for key, _ in done] + never) == list(range(10))  # type: ignore[type-var]
    assert len(never) >= 7
    assert len(web.requests_for("one.example")) == 1 + len(done)  # robots.txt + pages


def test_pool_fetches_just_ahead_of_a_slow_caller(web: MiniWebServer, world: World) -> None:
    """With `ahead`, the pool starts no more requests than the caller has not taken yet
    (a kill -9 costs only those on the wire), one more for each result taken; the bound
    doubles when the caller finds nothing while it holds URLs back, and `keep` sees each
    result before the caller can take it."""
    from collie.fetch.pool import FetchPool

    hosts = [f"http://h{n}.example" for n in range(12)]
    for host in hosts:
        world.add(f"{host}/robots.txt", Response.text("User-agent: *\nAllow: /\n"))
        world.add(f"{host}/", Response.html(PAGE).slowed(delay=1.0))
    kept: list[object] = []

    def pages() -> int:
        return sum(1 for e in web.log if not e.url.endswith("/robots.txt"))

    def settles(value: Callable[[], int], expected: int) -> bool:
        """`value` reaches `expected` (within 10 s) and stays there for 0.3 s."""
        deadline = time.monotonic() + 10
        while value() != expected and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.3)
        return value() == expected

    with Fetcher(config(delay=0)) as fetcher:
        pool = FetchPool(fetcher, workers=8, keep=lambda key, _: kept.append(key), ahead=2)
        for n, host in enumerate(hosts):
            pool.add(n, f"{host}/")
        assert settles(pages, 2)  # two ahead of a caller who took nothing
        taken = pool.take(timeout=5.0)  # nothing in yet, URLs held back: the bound doubles
        assert taken and settles(pages, 4 + len(taken))  # one more for each result taken
        assert settles(lambda: len(kept), 4 + len(taken))  # a slow caller: no more asked
        assert pages() == 4 + len(taken)
        while len(taken) < len(hosts):
            taken += pool.take(timeout=5.0)
        pool.close()
    assert sorted(key for key, _ in taken) == list(range(12)) == sorted(kept)  # type: ignore[type-var]


# --- the exchanges as they went over the wire (issue 33: the WARC files keep them) -------


def test_every_exchange_of_a_fetch_is_kept_as_received(web: MiniWebServer, world: World) -> None:
    """robots.txt, a redirect hop and the page, in order; a gzip body is undone for the
    result and kept compressed, byte for byte, for the archive, with the headers in their
    order (repeats kept)."""
    import gzip

    packed = gzip.compress(PAGE.encode(), mtime=0)
    page = Response(200, [("Content-Type", "text/html; charset=utf-8"),
                          ("Content-Encoding", "gzip"), ("Set-Cookie", "a=1"),
                          ("Set-Cookie", "b=2")], packed)  # fmt: skip
    world.add("http://gz.example/old", Response.redirect("/new"))
    world.add("http://gz.example/new", page)
    with Fetcher(config()) as fetcher:
        result = fetcher.fetch("http://gz.example/old")
    assert result.outcome == "fetched" and result.body == PAGE.encode()
    robots, hop, final = result.exchanges
    assert (robots.url, robots.status) == ("http://gz.example/robots.txt", 404)
    assert (hop.url, hop.status, hop.truncated) == ("http://gz.example/old", 301, "")
    assert b"moved" in hop.body  # a redirect's note is kept
    assert (final.url, final.status, final.truncated) == ("http://gz.example/new", 200, "")
    assert final.body == packed  # the bytes received, not the decoded page
    cookies = [value for name, value in final.headers if name.lower() == "set-cookie"]
    assert cookies == ["a=1", "b=2"]
    assert final.http_version == "HTTP/1.1" and final.reason == "OK"
    sent = dict(final.request_headers)
    assert sent["Accept-Encoding"] == "gzip, deflate"
    assert web.requests_for("gz.example")[-1].headers["accept-encoding"] == "gzip, deflate"


def test_a_body_cut_at_the_size_limit_is_marked_truncated(web: MiniWebServer, world: World) -> None:
    big = "<html><body>" + "<p>Ber ahinya!</p>" * 2000 + "</body></html>"
    world.add("http://big.example/", Response.html(big))
    world.add("http://big.example/doc.pdf", Response.binary(b"%PDF-1.4" * 5000, "application/pdf"))
    with Fetcher(config(max_bytes=5000)) as fetcher:
        page = fetcher.fetch("http://big.example/")
        pdf = fetcher.fetch("http://big.example/doc.pdf")
    assert page.truncated and len(page.body) == 5000
    assert page.exchanges[-1].truncated == "length"
    assert big.encode().startswith(page.exchanges[-1].body)
    # a type collie does not take is not downloaded: headers only
    assert pdf.reason == "not-html:application/pdf"
    assert (pdf.exchanges[-1].body, pdf.exchanges[-1].truncated) == (b"", "unspecified")


@pytest.mark.parametrize("raw_deflate", [False, True])
def test_deflate_bodies_are_undone_with_or_without_the_zlib_header(
    web: MiniWebServer, world: World, raw_deflate: bool
) -> None:
    import zlib

    packer = zlib.compressobj(wbits=-zlib.MAX_WBITS if raw_deflate else zlib.MAX_WBITS)
    packed = packer.compress(PAGE.encode()) + packer.flush()
    headers = [("Content-Type", "text/html"), ("Content-Encoding", "deflate")]
    world.add("http://df.example/", Response(200, headers, packed))
    with Fetcher(config()) as fetcher:
        result = fetcher.fetch("http://df.example/")
    assert result.body == PAGE.encode() and result.exchanges[-1].body == packed


def test_a_compressed_body_cannot_expand_past_the_limit(web: MiniWebServer, world: World) -> None:
    """A 10 MB page of one letter gzips to ~10 kB: reading stops at fetch.max_bytes."""
    import gzip

    bomb = gzip.compress(b"<html>" + b"a" * 10_000_000, mtime=0)
    headers = [("Content-Type", "text/html"), ("Content-Encoding", "gzip")]
    world.add("http://bomb.example/", Response(200, headers, bomb))
    with Fetcher(config(max_bytes=100_000)) as fetcher:
        result = fetcher.fetch("http://bomb.example/")
    assert result.truncated and len(result.body) == 100_000


def test_a_coding_collie_did_not_ask_for_drops_the_page(web: MiniWebServer, world: World) -> None:
    headers = [("Content-Type", "text/html"), ("Content-Encoding", "br")]
    world.add("http://br.example/", Response(200, headers, b"\x1b\x00\x00"))
    with Fetcher(config()) as fetcher:
        result = fetcher.fetch("http://br.example/")
    assert (result.outcome, result.reason) == ("dropped", "content-encoding:br")
    assert result.exchanges[-1].status == 200 and result.exchanges[-1].truncated == "unspecified"
