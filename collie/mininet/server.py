"""The local test web: an HTTP forward proxy on 127.0.0.1 that answers from an in-memory world.

Clients reach it through ``HTTP_PROXY`` exactly as they reach the real web: ``GET
http://ramogi.example.ke/news/1.html`` arrives as an absolute-URI request and is answered
from a :class:`World` (host -> path -> :class:`Response` or callable). The proxy never opens
a connection anywhere: an unknown host gets ``502``, ``CONNECT`` (HTTPS) gets ``501``, the
closed world is http-only. Requests addressed to the server itself (``127.0.0.1:PORT``,
``localhost:PORT`` or ``World.search_host``) reach a SearXNG-compatible ``/search`` and the
request log at ``/_mininet/log``. Every request is logged (:attr:`MiniWebServer.log`).
"""

from __future__ import annotations

import contextlib
import html
import json
import socket
import sys
import threading
import time
from collections.abc import Mapping
from dataclasses import asdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Protocol, TextIO
from urllib.parse import urlsplit

from collie.mininet.messages import (
    Behaviour,
    LogEntry,
    Request,
    Response,
    normalise_host,
    normalise_path,
    split_url,
)
from collie.mininet.search import (
    CAPTCHA_PAGE,
    RESULTS_PER_PAGE,
    SearchHit,
    SearchPage,
    _Index,
    brave_json,
    google_json,
    mojeek_json,
    searx_html,
    searx_json,
)

# The search APIs the world serves: SearXNG's and Mojeek's (/search; Mojeek's with an
# api_key), Brave's and Google's Custom Search's.
API_ROUTES = frozenset({"/search", "/res/v1/web/search", "/customsearch/v1"})

__all__ = [
    "Behaviour",
    "LogEntry",
    "MiniWebServer",
    "Request",
    "Response",
    "SearchHit",
    "SearchPage",
    "ServedWorld",
    "World",
]


class ServedWorld(Protocol):
    """What the server needs of a world: in memory (`World`) or on disk (`StoredWorld`)."""

    search_host: str
    search_json_enabled: bool
    engine_error: str  # "" = the engine answers; else why it does not (SearXNG's words)
    search_block: str  # "" = the APIs answer; "captcha" or "429": they block

    def has_host(self, host: str) -> bool: ...
    def lookup(self, host: str, path: str) -> Behaviour | None: ...
    def search(
        self, query: str, pageno: int = 1, per_page: int = RESULTS_PER_PAGE
    ) -> SearchPage: ...


class World:
    """The hosts of the mini web and their pages; safe to change while it is being served.

    Lookup tries the exact path with its query string, then the path without it (like a
    static server that ignores unknown parameters). Callables are never called to index.
    """

    def __init__(self, *, search_host: str = "search.mininet", search_json_enabled: bool = True):
        self.search_host = normalise_host(search_host)
        self.search_json_enabled = search_json_enabled
        # As a real SearXNG answers when its engine fails ("HTTP connection error") or is
        # suspended after errors ("Suspended: too many requests"): 200, no results, the
        # engine and the reason in unresponsive_engines.
        self.engine_error = ""
        # "captcha" or "429": every search API of the world blocks its clients that way
        # (the search backends' tests: a block is never an empty answer).
        self.search_block = ""
        self._sites: dict[str, dict[str, Behaviour]] = {}
        self._lock = threading.Lock()
        self._version = 0
        self._index: _Index | None = None

    def add(self, url: str, behaviour: Behaviour) -> None:
        """Serve ``behaviour`` at the absolute ``url`` (``http://host/path?query``)."""
        host, path = split_url(url)
        with self._lock:
            self._sites.setdefault(host, {})[path] = behaviour
            self._version += 1

    def add_site(self, host: str, pages: Mapping[str, Behaviour]) -> None:
        """Serve ``{path: behaviour}`` on ``host``."""
        for path, behaviour in pages.items():
            self.add(f"http://{host}{path}", behaviour)

    def has_host(self, host: str) -> bool:
        """Whether ``host`` has at least one page."""
        with self._lock:
            return normalise_host(host) in self._sites

    def lookup(self, host: str, path: str) -> Behaviour | None:
        """The behaviour for ``host`` + ``path`` (query string optional), or None."""
        with self._lock:
            pages = self._sites.get(normalise_host(host), {})
            path = normalise_path(path)
            found = pages.get(path)
            return found if found is not None else pages.get(path.partition("?")[0])

    def urls(self) -> list[str]:
        """Every URL of the world, sorted."""
        with self._lock:
            return sorted(f"http://{h}{p}" for h, pages in self._sites.items() for p in pages)

    def search(self, query: str, pageno: int = 1, per_page: int = RESULTS_PER_PAGE) -> SearchPage:
        """Rank indexed pages for ``query`` (see :class:`_Index`) and return page ``pageno``."""
        hits = self._current_index().search(query)
        start = (pageno - 1) * per_page
        return SearchPage(len(hits), hits[start : start + per_page])

    def _current_index(self) -> _Index:
        with self._lock:
            if self._index is not None and self._index.version == self._version:
                return self._index
            version = self._version
            pages = [(f"http://{h}{p}", b) for h, ps in self._sites.items() for p, b in ps.items()]
        index = _Index(version, [(url, b) for url, b in pages if isinstance(b, Response)])
        with self._lock:
            if self._index is None or self._index.version < version:
                self._index = index
        return index


def _json_response(data: Any, status: int = 200) -> Response:
    body = json.dumps(data, ensure_ascii=False).encode("utf-8")
    return Response(status, [("Content-Type", "application/json; charset=utf-8")], body)


class _HTTPServer(ThreadingHTTPServer):
    """ThreadingHTTPServer that can close its open connections and wake sleeping handlers."""

    daemon_threads = True
    request_queue_size = 128  # the default 5 makes bursts of connections wait a SYN retry (1 s)
    app: MiniWebServer

    def __init__(self, address: tuple[str, int], app: MiniWebServer):
        super().__init__(address, _Handler)
        self.app = app
        self.stopping = threading.Event()
        self._open: set[socket.socket] = set()
        self._idle = threading.Condition()

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._idle:
            self._open.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        super().shutdown_request(request)
        with self._idle:
            self._open.discard(request)
            self._idle.notify_all()

    def close_connections(self, timeout: float = 2.0) -> None:
        """Hang up on every client and wait (up to ``timeout``) for handlers to finish."""
        self.stopping.set()
        with self._idle:
            for sock in self._open:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
            self._idle.wait_for(lambda: not self._open, timeout)

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    """Answers one connection: proxied GET/HEAD from the world, self requests, errors."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are separate writes: no 40 ms stalls
    server_version = "mininet/0.1"
    server: _HTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the default stderr log (requests go to :attr:`MiniWebServer.log`)."""

    def handle(self) -> None:
        try:
            super().handle()
        except (ConnectionError, TimeoutError):
            self.close_connection = True

    def do_GET(self) -> None:
        request = self._request()
        self._answer(request, self.server.app.respond(request))

    def do_HEAD(self) -> None:
        request = self._request()
        self._answer(request, self.server.app.respond(request), head=True)

    def do_CONNECT(self) -> None:
        text = "CONNECT is not supported: the mini web is http-only (no HTTPS tunnelling).\n"
        self.close_connection = True
        self._answer(self._request(), Response.text(text, status=501))

    def do_POST(self) -> None:
        self.close_connection = True
        refusal = Response(405, [("Allow", "GET, HEAD")], b"Method Not Allowed\n")
        self._answer(self._request(), refusal)

    do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_TRACE = do_POST

    def _request(self) -> Request:
        target = self.path
        if self.command == "CONNECT":  # authority-form: host:443
            host, path = normalise_host(target), ""
        elif target.startswith("/"):  # origin-form: not proxied, route by Host header
            host, path = normalise_host(self.headers.get("Host", "")), normalise_path(target)
        else:
            try:
                host, path = split_url(target)
            except ValueError:  # https://... or garbage: answered 400
                host, path = "", normalise_path(urlsplit(target).path)
        headers = {k.lower(): v for k, v in self.headers.items()}
        url = target if self.command == "CONNECT" else f"http://{host}{path}"
        client = f"{self.client_address[0]}:{self.client_address[1]}"
        return Request(
            self.command, url, host, path, headers, client, time.time(), time.monotonic()
        )

    def _answer(self, request: Request, resp: Response, head: bool = False) -> None:
        self._drain_body()
        body = b"" if head or resp.status in (204, 304) else resp.body
        self.server.app.record(request, resp.status, len(body))
        if self.server.stopping.wait(resp.delay):
            self.close_connection = True
            return
        self.send_response(resp.status)
        for name, value in resp.headers:
            self.send_header(name, value)
        declared = resp.header("Content-Length")
        if declared is None and resp.status not in (204, 304):
            self.send_header("Content-Length", str(len(resp.body)))
        elif declared is not None and declared.strip() != str(len(resp.body)):
            self.close_connection = True
        self.end_headers()
        self._write_body(memoryview(body), resp)

    def _write_body(self, body: memoryview, resp: Response) -> None:
        size = max(resp.chunk_size, 1)
        for start in range(0, len(body), size):
            if start and resp.body_delay and self.server.stopping.wait(resp.body_delay):
                self.close_connection = True
                return
            self.wfile.write(body[start : start + size])

    def _drain_body(self) -> None:
        length = self.headers.get("Content-Length", "0")
        if length.isdigit() and 0 < int(length) <= 1 << 20:
            self.rfile.read(int(length))
        elif length != "0" or "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            self.close_connection = True


class MiniWebServer:
    """Serves a :class:`World` as an HTTP forward proxy on ``host``:``port`` (0 = free port)."""

    def __init__(
        self,
        world: ServedWorld,
        host: str = "127.0.0.1",
        port: int = 0,
        log_file: Path | None = None,
    ):
        self.world = world
        self._log_path = log_file
        self._log_file: TextIO | None = None  # opened once the port is bound
        self._bind = (host, port)
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._port = 0
        self._log: list[LogEntry] = []
        self._log_lock = threading.Lock()

    def start(self) -> MiniWebServer:
        """Bind and serve in a background thread; returns self."""
        if self._httpd is None:
            httpd = _HTTPServer(self._bind, self)  # OSError on a busy port: no log made
            if self._log_path is not None:
                try:
                    self._log_file = self._log_path.open("a", encoding="utf-8")
                except OSError:
                    httpd.server_close()
                    raise
            self._httpd = httpd
            self._port = int(httpd.server_address[1])
            self._thread = threading.Thread(
                target=httpd.serve_forever, args=(0.05,), name="mininet", daemon=True
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, hang up on clients and wait for handler threads."""
        httpd, thread, self._httpd, self._thread = self._httpd, self._thread, None, None
        if httpd is None or thread is None:
            return
        httpd.shutdown()
        httpd.close_connections()
        httpd.server_close()
        thread.join()
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None

    def __enter__(self) -> MiniWebServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The bound port (after :meth:`start`)."""
        if not self._port:
            raise RuntimeError("MiniWebServer was never started: call start() first")
        return self._port

    @property
    def address(self) -> str:
        """``127.0.0.1:PORT``."""
        return f"{self._bind[0]}:{self.port}"

    @property
    def proxy_url(self) -> str:
        """The value for ``HTTP_PROXY``."""
        return f"http://{self.address}"

    @property
    def search_url(self) -> str:
        """Base URL of the SearXNG-compatible endpoint (append ``/search?q=...``)."""
        return f"http://{self.address}"

    @property
    def log(self) -> list[LogEntry]:
        """A copy of the request log, oldest first."""
        with self._log_lock:
            return list(self._log)

    def requests_for(self, host: str) -> list[LogEntry]:
        """Logged requests for ``host`` (normalised), oldest first."""
        wanted = normalise_host(host)
        return [entry for entry in self.log if entry.host == wanted]

    def clear_log(self) -> None:
        """Forget every logged request."""
        with self._log_lock:
            self._log.clear()

    def record(self, request: Request, status: int, body_bytes: int) -> None:
        """Append one request to the log."""
        entry = LogEntry.of(request, status, body_bytes)
        with self._log_lock:
            self._log.append(entry)
            if self._log_file is not None:
                self._log_file.write(json.dumps(asdict(entry), ensure_ascii=False) + "\n")
                self._log_file.flush()

    def respond(self, request: Request) -> Response:
        """The answer to a GET/HEAD ``request``: self, world page, 404 or 502."""
        if not request.host:
            return Response.error(400)
        if request.host in self._self_hosts():
            return self._respond_self(request)
        behaviour = self.world.lookup(request.host, request.path)
        if behaviour is None:
            if self.world.has_host(request.host):
                return Response.error(404)
            resp = Response.error(502)
            resp.headers.append(("X-Mininet-Error", "unknown-host"))
            return resp
        if isinstance(behaviour, Response):
            return behaviour
        try:
            return behaviour(request)
        except Exception as exc:  # a broken test behaviour must not kill the server
            resp = Response.text(f"behaviour raised {exc!r}\n", status=500)
            resp.headers.append(("X-Mininet-Error", "behaviour-error"))
            return resp

    def _self_hosts(self) -> set[str]:
        names = (f"127.0.0.1:{self.port}", f"localhost:{self.port}", self.address)
        return {normalise_host(n) for n in names} | {self.world.search_host}

    def _respond_self(self, request: Request) -> Response:
        route = urlsplit(request.path).path
        if route in API_ROUTES and self.world.search_block:
            if self.world.search_block == "captcha":
                return Response.html(CAPTCHA_PAGE)
            return _json_response({"error": "Too Many Requests"}, status=429)
        if route == "/search" and "api_key" in request.query:
            return self._mojeek(request)
        if route == "/search":
            return self._search(request)
        if route == "/res/v1/web/search":
            return self._brave(request)
        if route == "/customsearch/v1":
            return self._google(request)
        if route == "/_mininet/log":
            return _json_response([asdict(entry) for entry in self.log])
        return Response.error(404)

    def _paid_page(self, query: str, count: str, first: str) -> SearchPage:
        """The page of `count` results from the `first` (0-based) of a paid API's query."""
        per_page = max(1, min(int(count) if count.isdigit() else 10, 100))
        start = int(first) if first.isdigit() else 0
        return self.world.search(query, start // per_page + 1, per_page)

    def _brave(self, request: Request) -> Response:
        params = {k: v[-1] for k, v in request.query.items()}
        count = params.get("count", "20")
        page = params.get("offset", "0")
        first = str(int(page) * int(count)) if page.isdigit() and count.isdigit() else "0"
        return _json_response(brave_json(self._paid_page(params.get("q", ""), count, first)))

    def _google(self, request: Request) -> Response:
        params = {k: v[-1] for k, v in request.query.items()}
        start = params.get("start", "1")
        first = str(int(start) - 1) if start.isdigit() and int(start) > 0 else "0"
        page = self._paid_page(params.get("q", ""), params.get("num", "10"), first)
        return _json_response(google_json(page))

    def _mojeek(self, request: Request) -> Response:
        params = {k: v[-1] for k, v in request.query.items()}
        query, start = params.get("q", ""), params.get("s", "1")
        first = str(int(start) - 1) if start.isdigit() and int(start) > 0 else "0"
        page = self._paid_page(query, params.get("t", "10"), first)
        return _json_response(mojeek_json(query, page, int(first) + 1))

    def _search(self, request: Request) -> Response:
        params = {k: v[-1] for k, v in request.query.items()}
        fmt = params.get("format", "html")
        if fmt == "json" and not self.world.search_json_enabled:
            return Response.error(403)
        query, pageno = params.get("q", "").strip(), params.get("pageno", "1")
        problem = "No query" if not query else None
        if not pageno.isdigit() or int(pageno) < 1:
            problem = f"Invalid value for pageno: {pageno!r}"
        if problem:
            if fmt == "json":
                return _json_response({"error": problem}, status=400)
            return Response.html(
                f"<html><body><p>{html.escape(problem)}</p></body></html>", status=400
            )
        if self.world.engine_error:
            page = SearchPage(0, [])
            if fmt == "json":
                failed = [["mininet", self.world.engine_error]]
                return _json_response(searx_json(query, page, int(pageno), failed))
            return Response.html(searx_html(query, page, int(pageno)))
        page = self.world.search(query, int(pageno))
        if fmt == "json":
            return _json_response(searx_json(query, page, int(pageno)))
        return Response.html(searx_html(query, page, int(pageno)))
