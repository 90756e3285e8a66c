"""robots.txt per RFC 9309: what one fetch of it means, and where it is remembered.

The fetcher (fetch.py) downloads robots.txt itself (paced like any other request, at
most 5 redirects) and turns the answer into a `RobotsRecord`:

- 2xx: the rules, parsed by protego (wildcards, `$`, longest match, Allow precedence),
  from at most the first 500 KiB;
- 4xx (429 excepted): no rules, everything allowed;
- 5xx, 429 or no answer at all (network error, timeout): "unreachable", everything
  disallowed *for now* (RFC 9309 2.3.1.4). That is not the site's rules: it is never
  put in a store, and `RobotsFailures` says when to ask again (backoff, doubling) and
  when to give the origin up for this run. Its pages are held back, not dropped.

Records are kept in a `RobotsStore` for at most `ttl` seconds (24 h by default, the
RFC's upper bound). The store is an interface: the fetcher never touches the workspace
database; `MemoryRobotsStore` serves one process, the pipeline may pass one backed by
the workspace.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

from protego import Protego

from collie.fetch.tdmrep import reservation

PARSE_LIMIT = 500 * 1024  # RFC 9309: parse at least 500 KiB
TTL = 24 * 3600.0  # RFC 9309: do not use a cached robots.txt for more than 24 hours
RULES, ALLOW_ALL, UNREACHABLE = "rules", "allow-all", "unreachable"
# Written by collie before 0.2 for an unreachable robots.txt (kept 24 h as if it were the
# site's answer): never written now, ignored when read (store/robots.py; removed by the migration
# "robots-failures-forgotten").
LEGACY_DISALLOW_ALL = "disallow-all"
KEPT_KINDS = frozenset({RULES, ALLOW_ALL})  # what a store may remember
RETRY_WAIT = 60.0  # first wait before an unreachable robots.txt is asked again, seconds
RETRY_CAP = 600.0  # the wait doubles up to this
RETRY_ATTEMPTS = 3  # fetches of an unreachable robots.txt a run makes before giving up


@dataclass(frozen=True)
class RobotsRecord:
    """One origin's robots.txt as fetched: `kind` is "rules", "allow-all" or "disallow-all"."""

    origin: str  # "http://host.example" (scheme://host[:port])
    kind: str
    body: str = ""  # the robots.txt text when kind == "rules"
    status: int | None = None  # HTTP status of the final answer; None when there was none
    fetched_at: float = 0.0  # wall-clock time (time.time())
    # the origin's /.well-known/tdmrep.json as fetched with it (tdmrep.py): its text, ""
    # when it has none (or robots.txt disallows it), None when not asked yet
    tdmrep: str | None = None
    _parser: Protego | None = field(default=None, compare=False, repr=False)

    @classmethod
    def from_answer(
        cls, origin: str, status: int | None, body: bytes, fetched_at: float
    ) -> RobotsRecord:
        """Interpret the final answer to GET /robots.txt (`status` None: no answer)."""
        if status is None or status >= 500 or status == 429:
            return cls(origin, UNREACHABLE, status=status, fetched_at=fetched_at)
        if status >= 400:
            return cls(origin, ALLOW_ALL, status=status, fetched_at=fetched_at)
        if 200 <= status < 300:
            text = body[:PARSE_LIMIT].decode("utf-8", errors="replace").lstrip("\ufeff")
            return cls(origin, RULES, text, status, fetched_at)
        # 3xx after the redirect limit, 1xx...: RFC 9309 treats unresolved redirects
        # like 4xx ("unavailable").
        return cls(origin, ALLOW_ALL, status=status, fetched_at=fetched_at)

    @property
    def unreachable(self) -> bool:
        """No answer, or a 5xx or 429: everything disallowed for now, not a verdict."""
        return self.kind == UNREACHABLE

    def parser(self) -> Protego:
        if self._parser is None:
            object.__setattr__(self, "_parser", Protego.parse(self.body))
        assert self._parser is not None
        return self._parser

    def allows(self, url: str, agent: str) -> bool:
        """May `agent` (the product token, e.g. "collie") fetch `url`?"""
        if self.kind == ALLOW_ALL:
            return True
        if self.kind != RULES:  # unreachable (or a legacy disallow-all)
            return False
        if url.endswith("/robots.txt"):
            return True
        return bool(self.parser().can_fetch(url, agent))

    def crawl_delay(self, agent: str) -> float | None:
        """The Crawl-delay asked of `agent`, in seconds, or None."""
        if self.kind != RULES:
            return None
        delay = self.parser().crawl_delay(agent)
        return float(delay) if delay is not None else None

    def sitemaps(self) -> list[str]:
        """The URLs of its `Sitemap:` lines."""
        return list(self.parser().sitemaps) if self.kind == RULES else []

    def tdm_reservation(self, url: str) -> int | None:
        """What the origin's tdmrep.json says of `url`: 1 reserved, 0 not, None nothing."""
        return reservation(self.tdmrep, url)

    def is_fresh(self, now: float, ttl: float = TTL) -> bool:
        return 0 <= now - self.fetched_at < ttl


class RobotsStore(Protocol):
    """Where robots.txt records are remembered between fetches (and runs)."""

    def get(self, origin: str) -> RobotsRecord | None: ...

    def put(self, record: RobotsRecord) -> None: ...


class MemoryRobotsStore:
    """A thread-safe in-memory store: the default, for one process."""

    def __init__(self, known: Iterable[RobotsRecord] = ()) -> None:
        self._records: dict[str, RobotsRecord] = {r.origin: r for r in known}
        self._new: dict[str, RobotsRecord] = {}
        self._lock = threading.Lock()

    def get(self, origin: str) -> RobotsRecord | None:
        with self._lock:
            return self._records.get(origin)

    def put(self, record: RobotsRecord) -> None:
        if record.kind not in KEPT_KINDS:
            return  # an unreachable robots.txt is not the site's rules
        with self._lock:
            self._records[record.origin] = record
            self._new[record.origin] = record

    def load(self, records: Iterable[RobotsRecord]) -> None:
        """Remember records fetched earlier (e.g. kept in the workspace); not new."""
        with self._lock:
            self._records.update((r.origin, r) for r in records if r.kind in KEPT_KINDS)

    def take_new(self) -> list[RobotsRecord]:
        """The records put since the last call (what a caller has yet to persist)."""
        with self._lock:
            new, self._new = list(self._new.values()), {}
            return new


@dataclass
class _Failing:
    attempts: int
    retry_at: float  # clock time; inf once given up
    cause: str = ""  # "no answer", "http-503"...


class RobotsFailures:
    """The origins whose robots.txt could not be fetched in this run (in memory only):
    when each may be asked again (`wait`, doubling up to `cap`), and which are given up
    for the run after `attempts` failures. Thread-safe."""

    def __init__(
        self, wait: float = RETRY_WAIT, cap: float = RETRY_CAP, attempts: int = RETRY_ATTEMPTS
    ) -> None:
        self.wait, self.cap, self.attempts = wait, cap, max(1, attempts)
        self._failing: dict[str, _Failing] = {}
        self._lock = threading.Lock()

    def failed(self, origin: str, now: float, cause: str = "") -> float:
        """Count a failure at clock time `now`; returns when to ask again (inf: not in
        this run)."""
        with self._lock:
            state = self._failing.setdefault(origin, _Failing(0, now))
            state.attempts += 1
            state.cause = cause
            if state.attempts >= self.attempts:
                state.retry_at = float("inf")
            else:
                state.retry_at = now + min(self.cap, self.wait * 2 ** (state.attempts - 1))
            return state.retry_at

    def succeeded(self, origin: str) -> None:
        with self._lock:
            self._failing.pop(origin, None)

    def retry_at(self, origin: str) -> float | None:
        """When robots.txt of `origin` may be asked again (inf: given up for this run);
        None when it is not failing."""
        with self._lock:
            state = self._failing.get(origin)
            return state.retry_at if state else None

    def failing(self) -> dict[str, str]:
        """The origins failing now (given up included), with the last failure's cause."""
        with self._lock:
            return {origin: state.cause for origin, state in sorted(self._failing.items())}
