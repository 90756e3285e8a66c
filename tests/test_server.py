"""The mini web, exercised over real HTTP through HTTP_PROXY (requests with trust_env)."""

from __future__ import annotations

import http.client
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
from hypothesis import given
from hypothesis import strategies as st

from collie.mininet.server import MiniWebServer, Request, Response, World, split_url

PAGE = "http://ramogi.example.ke/news/1.html"
PAGE_A = "a.example.ke"
LUO = "<html><head><title>Wach Ramogi</title></head><body><p>{}</p></body></html>"


def luo_page(text: str) -> Response:
    return Response.html(LUO.format(text))


def search(web: MiniWebServer, **params: str) -> requests.Response:
    return requests.get(f"{web.search_url}/search", params=params, timeout=5)


def raw_exchange(port: int, data: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(data)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def test_page_through_proxy_keeps_exact_headers_and_bytes(world: World, web: MiniWebServer) -> None:
    body = b"<html><body>Nyasaye ohero piny</body></html>"
    headers = [("Content-Type", "text/html; charset=utf-8"), ("X-Tag", "One"), ("X-Tag", "Two")]
    world.add(PAGE, Response(200, headers, body))
    r = requests.get(PAGE, timeout=5)
    assert r.status_code == 200
    assert r.content == body
    assert r.headers["Content-Type"] == "text/html; charset=utf-8"
    assert r.headers["Content-Length"] == str(len(body))
    assert [v for k, v in r.raw.headers.items() if k == "X-Tag"] == ["One", "Two"]
    entry = web.log[-1]
    assert (entry.host, entry.path, entry.url) == ("ramogi.example.ke", "/news/1.html", PAGE)


def test_unknown_path_is_404_and_unknown_host_is_502(world: World, web: MiniWebServer) -> None:
    world.add(PAGE, luo_page("wach"))
    missing = requests.get("http://ramogi.example.ke/news/2.html", timeout=5)
    assert missing.status_code == 404
    assert missing.headers["Content-Type"].startswith("text/html")
    nowhere = requests.get("http://nowhere.example.ke/", timeout=5)
    assert nowhere.status_code == 502
    assert nowhere.headers["X-Mininet-Error"] == "unknown-host"
    assert "Bad Gateway" in nowhere.text


def test_host_is_case_insensitive_and_default_port_is_dropped(
    world: World, web: MiniWebServer
) -> None:
    world.add("http://Ramogi.Example.KE:80/news/1.html", luo_page("wach"))
    assert requests.get("http://RAMOGI.example.ke:80/news/1.html", timeout=5).status_code == 200
    assert requests.get(PAGE, timeout=5).status_code == 200
    assert {e.host for e in web.log} == {"ramogi.example.ke"}


def test_query_string_exact_match_first_then_without_query(
    world: World, web: MiniWebServer
) -> None:
    world.add("http://ramogi.example.ke/list", luo_page("plain"))
    world.add("http://ramogi.example.ke/list?page=2", luo_page("second"))
    assert "second" in requests.get("http://ramogi.example.ke/list?page=2", timeout=5).text
    assert "plain" in requests.get("http://ramogi.example.ke/list?utm=x", timeout=5).text
    assert web.log[-1].path == "/list?utm=x"


def test_non_ascii_paths_match_what_requests_sends(world: World, web: MiniWebServer) -> None:
    world.add("http://a.example.ke/wach/ŋato dhok.html?piny=ŋ", luo_page("ŋ"))
    assert requests.get("http://a.example.ke/wach/ŋato dhok.html?piny=ŋ", timeout=5).ok
    assert web.log[-1].path == "/wach/%C5%8Bato%20dhok.html?piny=%C5%8B"


@given(st.text(st.characters(codec="utf-8", exclude_categories=["Cc"]), max_size=20))
def test_world_keys_equal_the_paths_requests_sends(segment: str) -> None:
    # control characters excluded: urllib.parse strips tab/CR/LF, requests encodes them
    url = f"http://a.example.ke/{segment}"
    sent = requests.Request("GET", url).prepare().path_url
    assert split_url(url) == ("a.example.ke", sent)


def test_redirect_chain_across_two_hosts(world: World, web: MiniWebServer) -> None:
    world.add("http://a.example.ke/start", Response.redirect("http://b.example.ke/hop1"))
    world.add("http://b.example.ke/hop1", Response.redirect("/hop2", status=302))
    world.add("http://b.example.ke/hop2", Response.redirect("http://a.example.ke/end", 307))
    world.add("http://a.example.ke/end", luo_page("giko"))
    r = requests.get("http://a.example.ke/start", timeout=5)
    assert r.status_code == 200
    assert r.url == "http://a.example.ke/end"
    assert [h.status_code for h in r.history] == [301, 302, 307]
    assert [e.host for e in web.log] == ["a.example.ke", "b.example.ke", "b.example.ke", PAGE_A]


def test_503_with_retry_after_reaches_the_client(world: World, web: MiniWebServer) -> None:
    world.add(PAGE, Response.error(503, retry_after=120))
    r = requests.get(PAGE, timeout=5)
    assert r.status_code == 503
    assert r.headers["Retry-After"] == "120"


def test_wrong_and_missing_charsets_pass_through_untouched(
    world: World, web: MiniWebServer
) -> None:
    utf8 = "<p>Jaluo ma ŋeyo dhok</p>".encode()
    world.add("http://a.example.ke/wrong", Response.html(utf8, charset="iso-8859-1"))
    world.add("http://a.example.ke/none", Response.html(utf8, charset=None))
    wrong = requests.get("http://a.example.ke/wrong", timeout=5)
    assert wrong.headers["Content-Type"] == "text/html; charset=iso-8859-1"
    assert wrong.content == utf8
    none = requests.get("http://a.example.ke/none", timeout=5)
    assert none.headers["Content-Type"] == "text/html"
    assert none.content == utf8


def test_binary_and_robots_txt(world: World, web: MiniWebServer) -> None:
    pdf = b"%PDF-1.4\n\x00\xff\xfe binary"
    world.add("http://a.example.ke/doc.pdf", Response.binary(pdf, "application/pdf"))
    world.add("http://a.example.ke/robots.txt", Response.text("User-agent: *\nDisallow: /x/\n"))
    r = requests.get("http://a.example.ke/doc.pdf", timeout=5)
    assert (r.headers["Content-Type"], r.content) == ("application/pdf", pdf)
    robots = requests.get("http://a.example.ke/robots.txt", timeout=5)
    assert robots.headers["Content-Type"] == "text/plain"
    assert robots.text == "User-agent: *\nDisallow: /x/\n"
    assert [e.path for e in web.requests_for("a.example.ke")] == ["/doc.pdf", "/robots.txt"]


def test_slow_status_line_triggers_read_timeout(world: World, web: MiniWebServer) -> None:
    world.add(PAGE, luo_page("mos").slowed(delay=2.0))
    started = time.monotonic()
    with pytest.raises(requests.exceptions.ReadTimeout):
        requests.get(PAGE, timeout=0.3)
    assert time.monotonic() - started < 1.5


def test_slow_body_arrives_in_chunks_or_times_out(world: World, web: MiniWebServer) -> None:
    body = b"x" * 40
    world.add("http://a.example.ke/slow", Response.binary(body, "text/plain").slowed(0, 0.05, 10))
    world.add("http://a.example.ke/stuck", Response.binary(body, "text/plain").slowed(0, 2, 10))
    started = time.monotonic()
    assert requests.get("http://a.example.ke/slow", timeout=1).content == body
    assert time.monotonic() - started >= 0.15
    with pytest.raises(requests.exceptions.ConnectionError, match="timed out"):
        requests.get("http://a.example.ke/stuck", timeout=0.3)


def test_large_body_is_streamed_whole(world: World, web: MiniWebServer) -> None:
    body = bytes(range(256)) * (8 * 4096)  # 8 MiB
    world.add("http://a.example.ke/big.bin", Response.binary(body, "application/octet-stream"))
    r = requests.get("http://a.example.ke/big.bin", timeout=10)
    assert r.content == body
    assert web.log[-1].bytes_sent == len(body)


def test_head_sends_headers_without_body(world: World, web: MiniWebServer) -> None:
    world.add(PAGE, luo_page("wach"))
    r = requests.head(PAGE, timeout=5)
    assert r.status_code == 200
    assert r.content == b""
    assert r.headers["Content-Length"] == str(len(luo_page("wach").body))
    assert (web.log[-1].method, web.log[-1].bytes_sent) == ("HEAD", 0)


def test_post_is_405(world: World, web: MiniWebServer) -> None:
    world.add(PAGE, luo_page("wach"))
    r = requests.post(PAGE, data={"a": "b"}, timeout=5)
    assert r.status_code == 405
    assert r.headers["Allow"] == "GET, HEAD"


def test_connect_is_501(web: MiniWebServer) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", web.port, timeout=5)
    conn.set_tunnel("ramogi.example.ke", 443)
    with pytest.raises(OSError, match="501"):
        conn.request("GET", "/")
    conn.close()
    raw = raw_exchange(web.port, b"CONNECT a.example.ke:443 HTTP/1.1\r\nHost: a.example.ke\r\n\r\n")
    assert raw.startswith(b"HTTP/1.1 501 ")
    assert b"http-only" in raw
    assert web.log[-1].method == "CONNECT"


def test_origin_form_request_is_routed_by_host_header(world: World, web: MiniWebServer) -> None:
    world.add(PAGE, luo_page("wach"))
    with requests.Session() as session:
        session.trust_env = False  # talk to the server directly, not as a proxy
        url = f"http://{web.address}/news/1.html"
        r = session.get(url, headers={"Host": "ramogi.example.ke"}, timeout=5)
    assert r.status_code == 200
    assert web.log[-1].url == PAGE


def test_callable_behaviour_fails_twice_then_succeeds(world: World, web: MiniWebServer) -> None:
    seen: list[Request] = []

    def flaky(request: Request) -> Response:
        seen.append(request)
        return Response.error(503) if len(seen) <= 2 else luo_page(request.query["id"][0])

    world.add("http://a.example.ke/item", flaky)
    statuses = [requests.get("http://a.example.ke/item?id=7a", timeout=5) for _ in range(3)]
    assert [r.status_code for r in statuses] == [503, 503, 200]
    assert "7a" in statuses[-1].text
    assert seen[0].host == "a.example.ke"
    assert seen[0].headers["user-agent"].startswith("python-requests")


def test_raising_behaviour_is_500(world: World, web: MiniWebServer) -> None:
    world.add(PAGE, lambda request: 1 / 0)  # type: ignore[arg-type,return-value]
    r = requests.get(PAGE, timeout=5)
    assert r.status_code == 500
    assert r.headers["X-Mininet-Error"] == "behaviour-error"


def test_concurrent_requests_all_succeed(world: World, web: MiniWebServer) -> None:
    for i in range(20):
        world.add(f"http://site{i % 4}.example.ke/p{i}", luo_page(f"page{i}"))

    def fetch(i: int) -> str:
        return requests.get(f"http://site{i % 4}.example.ke/p{i}", timeout=5).text

    with ThreadPoolExecutor(20) as pool:
        texts = list(pool.map(fetch, range(20)))
    assert all(f"page{i}" in text for i, text in enumerate(texts))
    assert len(web.log) == 20


def test_request_log_records_host_path_status_and_time(world: World, web: MiniWebServer) -> None:
    world.add(PAGE, luo_page("wach"))
    before = time.time()
    requests.get(PAGE, timeout=5)
    requests.get("http://ramogi.example.ke/missing", timeout=5)
    requests.get("http://other.example.ke/", timeout=5)
    entries = web.requests_for("RAMOGI.example.ke")
    assert [(e.method, e.path, e.status) for e in entries] == [
        ("GET", "/news/1.html", 200),
        ("GET", "/missing", 404),
    ]
    assert before <= entries[0].time <= entries[1].time <= time.time()
    assert entries[0].monotonic <= entries[1].monotonic
    served = requests.get(f"http://{web.address}/_mininet/log", timeout=5).json()
    assert [e["status"] for e in served] == [200, 404, 502]
    web.clear_log()
    assert web.log == []


def _search_world(world: World) -> None:
    world.add("http://a.example.ke/all", luo_page("Nyasaye ohero piny duto. Piny ni maber."))
    world.add("http://a.example.ke/one", luo_page("Nyasaye en Nyasaye kende"))
    world.add("http://b.example.ke/none", luo_page("Habari za asubuhi"))
    world.add("http://b.example.ke/gone", Response.error(404))
    world.add("http://b.example.ke/file.pdf", Response.binary(b"Nyasaye ohero piny", "text/plain"))


def test_search_finds_and_ranks_pages(world: World, web: MiniWebServer) -> None:
    _search_world(world)
    data = search(web, q="nyasaye ohero piny", format="json").json()
    assert [r["url"] for r in data["results"]] == [
        "http://a.example.ke/all",
        "http://a.example.ke/one",
    ]
    assert "number_of_results" not in data  # current SearXNG has no such key
    assert data["query"] == "nyasaye ohero piny"
    top = data["results"][0]
    assert (top["title"], top["engine"], top["positions"]) == ("Wach Ramogi", "mininet", [1])
    assert "ohero" in top["content"]
    assert top["score"] > data["results"][1]["score"]
    for key in ("answers", "corrections", "infoboxes", "suggestions", "unresponsive_engines"):
        assert data[key] == []
    assert web.log[-1].path.startswith("/search?")


def test_search_sees_pages_added_while_running_and_paginates(
    world: World, web: MiniWebServer
) -> None:
    assert search(web, q="dala", format="json").json()["results"] == []
    for i in range(25):
        world.add(f"http://c.example.ke/{i:02d}", luo_page("dala " * (i + 1) + "word " * 30))
    first = search(web, q="dala", format="json", pageno="1").json()
    second = search(web, q="dala", format="json", pageno="2").json()
    third = search(web, q="dala", format="json", pageno="3").json()
    assert [len(p["results"]) for p in (first, second, third)] == [10, 10, 5]
    assert first["results"][0]["url"] == "http://c.example.ke/24"  # highest term frequency
    assert second["results"][0]["positions"] == [11]
    urls = {r["url"] for p in (first, second, third) for r in p["results"]}
    assert len(urls) == 25


def test_search_html_errors_and_disabled_json(world: World, web: MiniWebServer) -> None:
    _search_world(world)
    page = search(web, q="ohero")
    assert page.headers["Content-Type"].startswith("text/html")
    assert "http://a.example.ke/all" in page.text
    assert search(web, format="json").status_code == 400
    assert search(web, q="piny", format="json", pageno="0").status_code == 400
    via_name = requests.get("http://search.mininet/search?q=ohero&format=json", timeout=5)
    assert len(via_name.json()["results"]) == 1
    assert requests.get(f"{web.search_url}/other", timeout=5).status_code == 404
    world.search_json_enabled = False
    assert search(web, q="ohero", format="json").status_code == 403


def test_a_failing_engine_answers_as_searxng_does(world: World, web: MiniWebServer) -> None:
    """200, no results, the engine and its reason in unresponsive_engines (as a real
    SearXNG answers when its engine fails or is suspended)."""
    _search_world(world)
    world.engine_error = "Suspended: too many requests"
    failed = search(web, q="ohero", format="json")
    assert failed.status_code == 200 and failed.json()["results"] == []
    assert failed.json()["unresponsive_engines"] == [["mininet", "Suspended: too many requests"]]
    world.engine_error = ""
    assert search(web, q="ohero", format="json").json()["results"]


def test_stop_wakes_slow_handlers_and_leaves_no_threads(world: World) -> None:
    baseline = threading.active_count()
    world.add(PAGE, luo_page("mos").slowed(delay=30))
    keep_alive = requests.Session()
    keep_alive.trust_env = False  # no web fixture here: ignore the environment's proxies
    with MiniWebServer(world) as server:
        keep_alive.proxies = {"http": server.proxy_url}
        with pytest.raises(requests.exceptions.ReadTimeout):
            keep_alive.get(PAGE, timeout=0.2)
        keep_alive.get(f"http://{server.address}/_mininet/log", timeout=5)  # stays open
        started = time.monotonic()
    assert time.monotonic() - started < 3
    assert threading.active_count() == baseline
    keep_alive.close()
