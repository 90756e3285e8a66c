"""What every search backend shares: results, errors, polite HTTP, secret redaction.

A backend turns `search(query, count, offset)` into one HTTP GET and the JSON answer into
`SearchResult`s. This module does the rest: a per-backend rate limit, retries of 429 and
5xx answers (collie.http's retry policy: Retry-After honoured, else exponential backoff
with jitter), timeouts, and keeping API keys out of every message and log line.
"""

from __future__ import annotations

import json
import logging
import re
import socket
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar
from urllib.parse import urlsplit

import requests
from urllib3.exceptions import NameResolutionError

from collie.errors import CollieError
from collie.http import RETRY_STATUSES, Clock, RetryPolicy, parse_retry_after
from collie.models import SearchResponse
from collie.version import __version__

log = logging.getLogger(__name__)

MAX_WAIT = 600.0  # a backend asking for a longer pause is treated as down for this run


class SearchError(CollieError):
    """One query failed (after retries); other queries may still succeed."""


class SearchFatal(SearchError):
    """The backend cannot be used as configured (key, quota, settings): stop searching."""


class SearchRefused(SearchFatal):
    """The backend refused the key (HTTP 401 or 403, a key it calls invalid): no query
    can succeed until the user fixes it. Unlike other fatal errors, which end a loop's
    search stage and let the loop go on, it stops the run with the loop left open
    (mining/search.py lets it through), so no loop is recorded done without its search."""


class SearchBlocked(SearchRefused):
    """The backend blocks collie: a CAPTCHA page, HTTP 429 still after the retries (or a
    wait longer than MAX_WAIT), a used-up quota, or its engines all blocked (SearXNG).
    Like a refused key it stops the run with the loop left open, and the query is stored
    as failed, never as an answer: an empty answer would lower the coverage estimate."""


class SearchEnded(SearchRefused):
    """The backend's service has ended (Google's Custom Search JSON API, 2027-01-01)."""


# What a CAPTCHA or bot challenge page says (Google's "unusual traffic", Cloudflare's
# challenge platform, reCAPTCHA, hCaptcha, "are you a robot").
_CAPTCHA = re.compile(
    rb"captcha|unusual traffic|challenge-platform|cf-chl|are you a (?:robot|human)|"
    rb"verify you are (?:a )?human|bot verification",
    re.I,
)


def is_captcha(response: requests.Response) -> bool:
    """Is this answer a CAPTCHA or bot-challenge page rather than the API's JSON?"""
    kind = response.headers.get("Content-Type", "").split(";")[0].strip().lower()
    head = response.content[:65536]
    if kind.endswith("json") or not (kind.startswith("text/") or head.lstrip()[:1] == b"<"):
        return False
    return bool(_CAPTCHA.search(head))


class Redactor(logging.Filter):
    """Replaces secret values by *** in text and in log records that pass through it."""

    def __init__(self, secrets: Iterable[str]) -> None:
        super().__init__()
        self.secrets = sorted({s for s in secrets if s}, key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, "***")
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        if self.secrets:
            record.msg, record.args = self(record.getMessage()), None
        return True


def install_log_redaction(redactor: Redactor) -> None:
    """Keep secrets out of urllib3's debug lines (they contain request URLs)."""
    # Logger filters are not inherited: every logger that may print a URL gets one.
    for name in ("urllib3.connectionpool", "urllib3.util.retry", "urllib3.poolmanager", "requests"):
        logger = logging.getLogger(name)
        if not any(
            isinstance(f, Redactor) and f.secrets == redactor.secrets for f in logger.filters
        ):
            logger.addFilter(redactor)


@dataclass
class HttpSettings:
    timeout: float = 20.0
    retries: int = 3
    rate_limit: float = 1.0  # requests per second; 0 = no limit
    backoff: float = 1.0  # first backoff step in seconds
    user_agent: str = f"collie/{__version__}"  # fetch.user_agent (+ fetch.contact_url)

    @property
    def retry_policy(self) -> RetryPolicy:
        return RetryPolicy(self.retries, self.backoff)


@dataclass
class Backend:
    """A search API. Subclasses set `name`, `default_url`, `max_count` and implement
    `build_request`, `parse` and (optionally) `explain_error`."""

    name: ClassVar[str] = ""
    default_url: ClassVar[str] = ""
    max_count: ClassVar[int] = 10
    secret_envs: ClassVar[tuple[str, ...]] = ()  # settings keys naming env vars
    free_queries: ClassVar[bool] = False  # may a test query be spent on a preflight check?
    monthly_requests: ClassVar[int] = 0  # the plan's free requests a month (0: no limit)
    price_per_1000: ClassVar[float] = 0.0  # US dollars per 1,000 requests beyond them
    price_known: ClassVar[bool] = True  # False: the plan's price is not public (mojeek)

    url: str = ""
    secrets: dict[str, str] = field(default_factory=dict)  # env var name -> value
    country: str = ""  # ISO 3166-1 alpha-2, or ""
    language: str = ""  # ISO 639-1 of the target language, or ""
    http: HttpSettings = field(default_factory=HttpSettings)
    clock: Clock = field(default_factory=Clock)
    session: requests.Session = field(default_factory=requests.Session)
    _last_request: float | None = field(default=None, init=False)
    exhausted: SearchFatal | None = field(default=None, init=False)  # set by after_response

    def __post_init__(self) -> None:
        self.url = self.url or self.default_url
        self.session.headers["User-Agent"] = self.http.user_agent  # not python-requests/...
        self.redact = Redactor(self.secrets.values())
        install_log_redaction(self.redact)

    # -- for subclasses -------------------------------------------------------------
    def build_request(
        self, query: str, count: int, offset: int
    ) -> tuple[dict[str, Any], dict[str, str]]:
        """(query parameters, headers) of one request."""
        raise NotImplementedError

    def parse(self, data: Any, offset: int) -> SearchResponse:
        """Results from the decoded JSON answer; raise ValueError when it is malformed."""
        raise NotImplementedError

    def explain_error(self, status: int, data: Any) -> SearchError | None:
        """A backend-specific error for a non-retryable answer, or None for the default."""
        return None

    def cache_params(self, count: int, offset: int) -> dict[str, Any]:
        """What identifies a query's results besides its text (never a secret)."""
        return {
            "count": min(count, self.max_count),
            "offset": offset,
            "country": self.country,
            "language": self.language,
        }

    def restrict_to_domains(self, query: str, domains: list[str]) -> str:
        """The query limited to domain extensions, e.g. `... (site:.ke OR site:.com)`."""
        if not domains:
            return query
        return f"{query} ({' OR '.join(f'site:{d}' for d in domains)})"

    def key_hint(self) -> str:
        """What to do when the backend refused the key: which variable to set."""
        names = " and ".join(self.secrets) or "the key's environment variable"
        return (
            f"Set {names} to a valid key (export {next(iter(self.secrets), 'NAME')}=...; "
            f"search.{self.name}_key_env names the variable), then run `collie run` again: "
            "the loop is left open and its queries are sent again."
        )

    def blocked(self, what: str) -> SearchBlocked:
        """The error for a backend that blocks collie (`what`: "a CAPTCHA page", ...)."""
        return SearchBlocked(
            f"{self.name} blocked the search ({what}): the loop is left open, its queries "
            "not counted as answered.",
            self.blocked_hint(what),
        )

    def blocked_hint(self, what: str) -> str:
        """What to do when the backend blocks collie."""
        return (
            "Wait (a rate limit or a quota resets), lower search.rate_limit, or use another "
            "backend (search.backend; docs/search-backends.md), then run `collie run` again."
        )

    def missing_secrets(self) -> list[str]:
        return [name for name, value in self.secrets.items() if not value]

    # -- the shared machinery ---------------------------------------------------------
    def preflight(self) -> None:
        """Fail fast on what can be checked without spending a query."""
        if self.exhausted is not None:
            raise self.exhausted
        missing = self.missing_secrets()
        if missing:
            raise SearchFatal(
                f"The {self.name} backend needs the environment variable "
                f"{' and '.join(missing)}, which is not set.",
                f"export {missing[0]}=... (the key is read from the environment only, "
                "never stored).",
            )
        if not self.url:
            raise SearchFatal(
                f"The {self.name} backend has no endpoint URL.",
                "Set search.url in collie.toml or give --search-url URL.",
            )

    def check(self) -> None:
        """The preflight at the start of a run: configuration, keys, and (where a query
        costs nothing) one test query, so that e.g. disabled JSON output fails now.
        Paid backends spend no query here: their first real query fails fast (no
        retries) when the key is rejected."""
        self.preflight()
        if self.free_queries:
            self.search("collie preflight", count=1)

    def search(self, query: str, count: int = 10, offset: int = 0) -> SearchResponse:
        """One page of results for `query`, skipping the first `offset` results."""
        self.preflight()
        params, headers = self.build_request(query, min(count, self.max_count), offset)
        data = self._get_json(params, headers)
        try:
            response = self.parse(data, offset)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise SearchError(self.redact(f"{self.name}: unexpected answer ({exc}).")) from None
        return SearchResponse(response.results[:count], response.raw)

    def _pace(self) -> None:
        if self.http.rate_limit > 0 and self._last_request is not None:
            wait = self._last_request + 1.0 / self.http.rate_limit - self.clock.now()
            self.clock.sleep(wait)
        self._last_request = self.clock.now()

    def _get_json(self, params: dict[str, Any], headers: Mapping[str, str]) -> Any:
        policy, failed = self.http.retry_policy, 0
        while True:
            self._pace()
            try:
                response = self.session.get(
                    self.url, params=params, headers=dict(headers), timeout=self.http.timeout
                )
            except requests.RequestException as exc:
                problem, fatal = self._connection_problem(exc)
                if fatal is not None:
                    raise fatal from None
                wait = None
            else:
                if is_captcha(response):
                    raise self.blocked(f"a CAPTCHA page, HTTP {response.status_code}")
                self.after_response(response)
                if response.status_code == 200:
                    return self._decode(response)
                if response.status_code not in RETRY_STATUSES:
                    raise self._error(response)
                problem = f"HTTP {response.status_code}"
                wait = parse_retry_after(response.headers.get("Retry-After"))
            failed += 1
            if policy.gives_up(failed) and problem == "HTTP 429":
                raise self.blocked(f"HTTP 429 still after {self.http.retries} retries")
            if policy.gives_up(failed):
                raise SearchError(
                    self.redact(
                        f"{self.name} at {self.url}: {problem}, still failing after "
                        f"{self.http.retries} retries."
                    ),
                    self.give_up_hint(problem),
                )
            wait = policy.wait_before_retry(failed, wait)
            if wait > MAX_WAIT and problem == "HTTP 429":
                raise self.blocked(f"HTTP 429, asking to wait {wait:.0f} s")
            if wait > MAX_WAIT:
                raise SearchFatal(
                    f"{self.name} asks to wait {wait:.0f} s before the next query.",
                    "Its quota or rate limit is exhausted for now; run again later.",
                )
            log.warning(
                "%s: %s; trying again in %.0f s (%d of %d)",
                self.name,
                self.redact(problem),
                wait,
                failed,
                self.http.retries,
            )
            self.clock.sleep(wait)

    def _connection_problem(self, exc: requests.RequestException) -> tuple[str, SearchFatal | None]:
        """What went wrong before any answer, said plainly: (the problem, to retry), or a
        SearchFatal when retrying cannot help (a host name that does not resolve)."""
        parts = urlsplit(self.url)
        where = f"{parts.hostname}:{parts.port or (443 if parts.scheme == 'https' else 80)}"
        causes: list[BaseException] = []
        cause: BaseException | None = exc
        while cause is not None and len(causes) < 8:
            causes.append(cause)
            cause = cause.__cause__ or cause.__context__
        if isinstance(exc, requests.exceptions.ProxyError):
            return f"ProxyError: the proxy (HTTP_PROXY/HTTPS_PROXY) failed: {exc}", None
        if isinstance(exc, requests.Timeout):
            return f"no answer within {self.http.timeout:g} s (search.timeout) from {where}", None
        if any(isinstance(c, (NameResolutionError, socket.gaierror)) for c in causes):
            return "", SearchFatal(
                f"{self.name}: host not found: {parts.hostname} (from search.url {self.url}).",
                "Check the host name in search.url (collie.toml or --search-url), and the "
                "network or proxy settings.",
            )
        if any(isinstance(c, ConnectionRefusedError) for c in causes):
            return (
                f"connection refused at {where}: nothing listens there (is the backend "
                "running? is search.url's port right?)"
            ), None
        return f"{type(exc).__name__}: {exc}", None

    def after_response(self, response: requests.Response) -> None:
        """Hook: read rate-limit headers (Brave)."""

    def give_up_hint(self, problem: str) -> str:
        """What to do when retries did not help (`problem`: "HTTP 429", an exception...)."""
        if problem.startswith("connection refused"):
            return (
                "Start the backend (for SearXNG, its container or service), or point "
                "search.url at where it listens."
            )
        if problem.startswith("ProxyError"):
            return "Check the proxy settings (HTTP_PROXY, HTTPS_PROXY, NO_PROXY)."
        if problem.startswith("no answer within"):
            return (
                "The backend accepted the connection but did not answer: check it, or "
                "raise search.timeout if it is slow."
            )
        return (
            "The backend may be down or overloaded: try again later, or check search.url "
            "(--search-url)."
        )

    def _decode(self, response: requests.Response) -> Any:
        try:
            return response.json()
        except ValueError:
            snippet = self.redact(response.text[:80])
            raise SearchError(
                f"{self.name}: the answer is not JSON: {snippet!r}",
                "Check that search.url points at the API endpoint.",
            ) from None

    def _error(self, response: requests.Response) -> SearchError:
        try:
            data = response.json()
        except ValueError:
            data = None
        specific = self.explain_error(response.status_code, data)
        if specific is not None:
            return type(specific)(self.redact(specific.message), specific.hint)
        if response.status_code in (401, 403):
            return SearchRefused(
                f"{self.name} refused the request (HTTP {response.status_code}): the key "
                "or the plan it belongs to was refused.",
                self.key_hint(),
            )
        detail = self.redact(json.dumps(data)[:200]) if data is not None else ""
        return SearchError(f"{self.name}: HTTP {response.status_code} {detail}".strip())
