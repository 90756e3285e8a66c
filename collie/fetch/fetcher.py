"""Polite HTTP: robots.txt, per-host pacing, limits, retries.

`Fetcher.fetch(url)` fetches one URL; it is thread-safe, and pool.py runs many at a
time (`fetch.workers`), every host with work kept busy up to its delay. Every URL gets a
result: a response to process, or a drop with its reason (`robots`, `http-404`,
`not-html:application/pdf`, `timeout`...). Nothing raises for a
bad page or a bad host.

Politeness, per host (host name and port): one request in flight, at least
`fetch.delay` seconds between two requests (robots.txt and redirect hops included), a
robots.txt Crawl-delay honoured up to `fetch.max_crawl_delay` (hosts asking for more are
skipped), and a Retry-After on 429/503 holding back the whole host. A robots.txt that
cannot be fetched (no answer, 5xx, 429) disallows its origin for now, not for 24 h: its
URLs come back `robots-unreachable` (the caller keeps them queued), it is never stored,
and it is asked again after `fetch.robots_retry` seconds, doubling, a few times a run.
Other transient failures (connection errors, timeouts, 502/504) are retried with exponential backoff
and jitter, `fetch.retries` times (a 500 once). Redirects are followed by hand, each hop paced and
checked against robots.txt. Requests honour HTTP_PROXY/HTTPS_PROXY/NO_PROXY.

The fetcher returns data and never touches the workspace database; robots.txt records
go to a `RobotsStore` it is given (in memory by default). Reading an answer's body
within the limits, and the answer as a `FetchResult`, is response.py's.
"""

from __future__ import annotations

import ipaddress
import logging
import threading
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urldefrag, urljoin, urlsplit

import requests

from collie.config import user_agent_header
from collie.fetch.hostgate import HostGate
from collie.fetch.response import (
    ACCEPT_ENCODING,
    exchange_of,
    read_body,
    read_response,
    unread_exchange,
)
from collie.fetch.robots import (
    PARSE_LIMIT,
    RETRY_WAIT,
    TTL,
    UNREACHABLE,
    MemoryRobotsStore,
    RobotsFailures,
    RobotsRecord,
    RobotsStore,
)
from collie.fetch.tdmrep import LIMIT as TDMREP_LIMIT
from collie.fetch.tdmrep import PATH as TDMREP_PATH
from collie.fetch.tdmrep import file_text as tdmrep_text
from collie.http import (
    RETRY_STATUSES,
    Clock,
    RetryPolicy,
    parse_retry_after,
)
from collie.models import Exchange, FetchResult
from collie.reasons import ROBOTS_UNREACHABLE
from collie.urls import canonical_url

log = logging.getLogger(__name__)

# A 500 is usually the page's own bug, not the server's mood: tried again once, where
# 429, 502, 503 and 504 (overload, gateways) get every retry.
ONCE_FOR_500 = 1
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
ROBOTS_REDIRECTS = 5  # RFC 9309: follow at least five


@dataclass(frozen=True)
class FetchConfig:
    """The fetch.* settings (see collie/config.py for their meaning)."""

    user_agent: str = "collie/0.1"
    contact_url: str = ""
    email: str = ""
    delay: float = 1.0
    max_crawl_delay: float = 30.0
    workers: int = 8
    connect_timeout: float = 10.0
    read_timeout: float = 30.0
    max_bytes: int = 5 * 1024 * 1024
    max_redirects: int = 10
    retries: int = 3
    allow_private: bool = False
    backoff: float = 1.0  # first backoff step, seconds
    robots_ttl: float = TTL
    robots_retry: float = RETRY_WAIT  # first wait before an unreachable robots.txt again
    tdmrep: bool = True  # fetch.tdmrep: read each origin's /.well-known/tdmrep.json

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any], **overrides: Any) -> FetchConfig:
        names = [f for f in cls.__dataclass_fields__ if f"fetch.{f}" in settings]
        values = {name: settings[f"fetch.{name}"] for name in names}
        return cls(**{**values, **overrides})

    @property
    def agent_token(self) -> str:
        """The product token robots.txt groups are matched against ("collie")."""
        return self.user_agent.split("/")[0].strip() or "collie"

    @property
    def user_agent_header(self) -> str:
        return user_agent_header(self.user_agent, self.contact_url)

    @property
    def retry_policy(self) -> RetryPolicy:
        return RetryPolicy(self.retries, self.backoff)


@dataclass
class _Answer:
    """The final answer of one (possibly retried) request, body not read yet."""

    response: requests.Response | None
    reason: str | None = None  # why there is no response
    fetched_at: float = 0.0


def host_key(url: str) -> str:
    """The unit of politeness: host name and explicit port, lower-cased."""
    parts = urlsplit(url)
    host = (parts.hostname or "").rstrip(".")
    try:
        port = parts.port
    except ValueError:
        port = None
    return f"{host}:{port}" if port else host


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}"


def _is_private_literal(host: str) -> bool:
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return bool(
        address.is_private
        or address.is_loopback
        or address.is_link_local
        or address.is_unspecified
        or address.is_reserved
        or address.is_multicast
    )


class Fetcher:
    """Polite fetching of URLs; see the module docstring. Thread-safe."""

    def __init__(
        self,
        config: FetchConfig | None = None,
        robots: RobotsStore | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.config = config or FetchConfig()
        self.robots = robots if robots is not None else MemoryRobotsStore()
        self.clock = clock or Clock()
        self.gate = HostGate(self.clock, self.config.delay)
        self.robots_failures = RobotsFailures(self.config.robots_retry)
        self._local = threading.local()
        self._sessions: list[requests.Session] = []
        self._robots_locks: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()
        # URLs (canonical) this fetcher got an answer for: a redirect to one of them is not
        # followed (the page is recorded already; requesting it again is a repeat).
        self.answered: set[str] = set()

    # -- sessions -----------------------------------------------------------------
    def _session(self) -> requests.Session:
        session: requests.Session | None = getattr(self._local, "session", None)
        if session is None:
            session = requests.Session()  # trust_env: HTTP_PROXY/HTTPS_PROXY/NO_PROXY
            session.headers["User-Agent"] = self.config.user_agent_header
            session.headers["Accept"] = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5"
            # what response.Decoder undoes (requests would add br or zstd when their
            # libraries happen to be installed)
            session.headers["Accept-Encoding"] = ACCEPT_ENCODING
            if self.config.email:
                session.headers["From"] = self.config.email
            self._local.session = session
            with self._lock:
                self._sessions.append(session)
        return session

    def close(self) -> None:
        with self._lock:
            for session in self._sessions:
                session.close()
            self._sessions.clear()

    def __enter__(self) -> Fetcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- one URL --------------------------------------------------------------------
    def fetch(self, url: str, accept: frozenset[str] | None = None) -> FetchResult:
        """Fetch one URL (following redirects); never raises for network or HTTP trouble.
        `accept`: the content types wanted instead of HTML (a sitemap's, a feed's: taken
        as they are, not sniffed, and not counted as a page answered)."""
        started = self.clock.now()
        self._local.exchanges = exchanges = list[Exchange]()
        try:
            result = self._fetch(urldefrag(url.strip())[0] or url, accept)
        except Exception as exc:  # a bug must not stop a run: record it and go on
            log.exception("fetching %s failed", url)
            result = FetchResult(url, url, None, outcome="dropped", reason=f"error:{exc!r}"[:200])
        finally:
            self._local.exchanges = None
        return replace(
            result, url=url, elapsed=self.clock.now() - started, exchanges=tuple(exchanges)
        )

    def _exchanged(self, exchange: Exchange) -> None:
        """Keep an exchange with the result of the fetch under way in this thread."""
        exchanges: list[Exchange] | None = getattr(self._local, "exchanges", None)
        if exchanges is not None:
            exchanges.append(exchange)

    def _fetch(self, url: str, accept: frozenset[str] | None = None) -> FetchResult:
        if accept is None and canonical_url(url) in self.answered:  # an earlier redirect's
            return self._dropped(url, url, "fetched-already", [])
        current, hops = url, list[str]()
        while True:
            refused = self._refusal(current)
            if refused:
                return self._dropped(url, current, refused, hops)
            answer = self._send(current)
            if answer.response is None:
                return self._dropped(url, current, answer.reason or "error", hops)
            resp, host = answer.response, host_key(current)
            try:
                status = resp.status_code
                location = resp.headers.get("Location")
                if status in REDIRECT_STATUSES and location:
                    self._exchanged(unread_exchange(resp, current, answer.fetched_at))
                    target = urldefrag(urljoin(current, location.strip()))[0]
                    if len(hops) >= self.config.max_redirects:
                        return self._dropped(url, target, "too-many-redirects", hops, status)
                    if target == url or target in hops:
                        return self._dropped(url, target, "redirect-loop", hops, status)
                    if accept is None and canonical_url(target) in self.answered:
                        return self._dropped(url, target, "fetched-already", hops, status)
                    hops.append(target)
                    current = target
                    continue
                if accept is None:
                    with self._lock:
                        self.answered.add(canonical_url(current))
                result, exchange = read_response(
                    resp,
                    url,
                    current,
                    hops,
                    answer.fetched_at,
                    accept=accept,
                    max_bytes=self.config.max_bytes,
                    read_timeout=self.config.read_timeout,
                )
                self._exchanged(exchange)
                known = self.robots.get(origin_of(current))
                return replace(result, tdmrep=known.tdm_reservation(current) if known else None)
            finally:
                resp.close()
                self.gate.release(host)

    def _dropped(
        self, url: str, final: str, reason: str, hops: list[str], status: int | None = None
    ) -> FetchResult:
        return FetchResult(
            url,
            final,
            status,
            redirects=tuple(hops),
            outcome="dropped",
            reason=reason,
            fetched_at=self.clock.wall(),
        )

    def _refusal(self, url: str) -> str | None:
        """Why `url` must not be requested at all, or None."""
        parts = urlsplit(url)
        if parts.scheme.lower() not in ("http", "https"):
            return f"unsupported-scheme:{parts.scheme.lower() or 'none'}"
        if not parts.hostname:
            return "bad-url"
        if not self.config.allow_private and _is_private_literal(parts.hostname):
            return "private-address"
        record = self.robots_for(url)
        if record.unreachable:
            return ROBOTS_UNREACHABLE
        delay = record.crawl_delay(self.config.agent_token)
        if delay is not None and delay > self.config.max_crawl_delay:
            return f"crawl-delay-too-long:{delay:g}s"
        if not record.allows(url, self.config.agent_token):
            return "robots"
        return None

    # -- requests, retries ------------------------------------------------------------
    def _send(self, url: str) -> _Answer:
        """GET `url` (no redirects), retrying transient failures. On success the host
        stays held by the gate: the caller reads the body and releases it."""
        host = host_key(url)
        timeout = (self.config.connect_timeout, self.config.read_timeout)
        policy, reason = self.config.retry_policy, "error"
        for attempt in range(policy.retries + 1):
            failed = attempt + 1  # failed tries, should this one fail
            self.gate.acquire(host)
            fetched_at = self.clock.wall()
            try:
                resp = self._session().get(url, stream=True, allow_redirects=False, timeout=timeout)
            except requests.Timeout:
                reason, hold = "timeout", policy.backoff_wait(failed)
            except requests.ConnectionError:
                reason, hold = "connection-error", policy.backoff_wait(failed)
            except requests.RequestException as exc:  # invalid URL and the like: permanent
                self.gate.release(host)
                return _Answer(None, f"bad-url:{type(exc).__name__}")
            else:
                if resp.status_code not in RETRY_STATUSES:
                    return _Answer(resp, None, fetched_at)
                wait = None
                if resp.status_code in (429, 503):
                    wait = parse_retry_after(resp.headers.get("Retry-After"))
                if (
                    policy.gives_up(failed)
                    or (wait is not None and wait > self.config.max_crawl_delay)
                    or (resp.status_code == 500 and failed > ONCE_FOR_500)
                ):
                    return _Answer(resp, None, fetched_at)  # recorded as http-STATUS
                self._exchanged(unread_exchange(resp, url, fetched_at))
                resp.close()
                # A Retry-After of 0 still backs off.
                reason, hold = (
                    f"http-{resp.status_code}",
                    policy.wait_before_retry(failed, wait or None),
                )
            log.info("%s: %s, retrying in %.1f s", url, reason, hold)
            self.gate.release(host, hold)
        return _Answer(None, reason)

    # -- robots.txt -------------------------------------------------------------------
    def robots_for(self, url: str) -> RobotsRecord:
        """The robots.txt record of `url`'s origin: from the store while fresh, else
        fetched (once per origin even when several threads ask), with the origin's
        tdmrep.json (fetch.tdmrep: fetched once, right after robots.txt)."""
        origin = origin_of(url)
        record = self.robots.get(origin)
        if self._stale(record):
            with self._lock:
                lock = self._robots_locks.setdefault(origin, threading.Lock())
            with lock:
                record = self.robots.get(origin)
                if record is None or not record.is_fresh(self.clock.wall(), self.config.robots_ttl):
                    record = self._robots_now(origin)
                if self.config.tdmrep and record.tdmrep is None and not record.unreachable:
                    record = replace(record, tdmrep=self._download_tdmrep(record))
                    self.robots.put(record)
        assert record is not None
        delay = record.crawl_delay(self.config.agent_token)
        if delay is not None and delay <= self.config.max_crawl_delay:
            self.gate.set_delay(host_key(url), max(self.config.delay, delay))
        return record

    def _stale(self, record: RobotsRecord | None) -> bool:
        """Must the origin's robots.txt (or its tdmrep.json, never asked) be fetched?"""
        if record is None or not record.is_fresh(self.clock.wall(), self.config.robots_ttl):
            return True
        return self.config.tdmrep and record.tdmrep is None

    def _robots_now(self, origin: str) -> RobotsRecord:
        """robots.txt of `origin` fetched now, unless it failed lately and its retry time
        has not come (RobotsFailures). Only a real answer is put in the store."""
        retry_at = self.robots_failures.retry_at(origin)
        if retry_at is not None and self.clock.now() < retry_at:
            return RobotsRecord(origin, UNREACHABLE, fetched_at=self.clock.wall())
        record = self._download_robots(origin)
        if not record.unreachable:
            self.robots_failures.succeeded(origin)
            self.robots.put(record)
            return record
        cause = f"http-{record.status}" if record.status else "no answer"
        again = self.robots_failures.failed(origin, self.clock.now(), cause)
        log.warning(
            "%s/robots.txt could not be fetched (%s): its pages are held back %s",
            origin,
            cause,
            f"for {again - self.clock.now():g} s" if again != float("inf") else "in this run",
        )
        return record

    def reaches(self, origin: str) -> bool:
        """Does `origin` answer GET /robots.txt now, with any status below 500 (a proxy
        that cannot reach it answers 502)? The loop's probe of a host that answered
        before, when every robots.txt it met failed: is the network down, or only those
        hosts? One request, paced as any (not retried: a network that is down would
        keep the run waiting); nothing is stored."""
        url, host = f"{origin}/robots.txt", host_key(origin)
        timeout = (self.config.connect_timeout, self.config.read_timeout)
        self.gate.acquire(host)
        try:
            with self._session().get(url, stream=True, allow_redirects=False, timeout=timeout) as r:
                return bool(r.status_code < 500)
        except requests.RequestException:
            return False
        finally:
            self.gate.release(host)

    def robots_unreachable(self) -> dict[str, str]:
        """The origins whose robots.txt could not be fetched (and not since), with why."""
        return self.robots_failures.failing()

    def _download_tdmrep(self, record: RobotsRecord) -> str:
        """The origin's /.well-known/tdmrep.json (tdmrep.py), paced like any request and
        only if robots.txt allows it: its text, or "" (absent, an error, disallowed)."""
        url = f"{record.origin}{TDMREP_PATH}"
        if not record.allows(url, self.config.agent_token):
            return ""
        got = self._get_file(url, TDMREP_LIMIT)
        if got is None or got[0] is None or not 200 <= got[0] < 300:
            return ""
        return tdmrep_text(got[0], got[1])

    def _download_robots(self, origin: str) -> RobotsRecord:
        got = self._get_file(f"{origin}/robots.txt", PARSE_LIMIT)
        if got is None:  # too many redirects: RFC 9309 treats it as "unavailable" (allow all)
            return RobotsRecord.from_answer(origin, 404, b"", self.clock.wall())
        return RobotsRecord.from_answer(origin, *got)

    def _get_file(self, url: str, limit: int) -> tuple[int | None, bytes, float] | None:
        """A site's file (robots.txt, tdmrep.json) fetched, paced, with at most
        ROBOTS_REDIRECTS redirects followed and every exchange kept: (status, body, when)
        of the final answer (status None when none came or its body could not be read;
        the body empty unless 2xx), or None after too many redirects."""
        current = url
        for _ in range(ROBOTS_REDIRECTS + 1):
            if urlsplit(current).scheme not in ("http", "https"):
                break
            answer = self._send(current)
            if answer.response is None:
                return None, b"", self.clock.wall()
            resp, host = answer.response, host_key(current)
            try:
                location = resp.headers.get("Location")
                if resp.status_code in REDIRECT_STATUSES and location:
                    self._exchanged(unread_exchange(resp, current, answer.fetched_at))
                    current = urldefrag(urljoin(current, location.strip()))[0]
                    continue
                if not 200 <= resp.status_code < 300:
                    self._exchanged(unread_exchange(resp, current, answer.fetched_at))
                    return resp.status_code, b"", answer.fetched_at
                body = read_body(resp, False, limit, self.config.read_timeout)
                self._exchanged(exchange_of(resp, current, answer.fetched_at, body))
                if body.problem:
                    return None, b"", self.clock.wall()
                return resp.status_code, body.text, answer.fetched_at
            finally:
                resp.close()
                self.gate.release(host)
        return None
