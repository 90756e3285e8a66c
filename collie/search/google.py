"""Google Programmable Search (Custom Search JSON API): key, cx, q, num <= 10, start.

Closed to new customers; it stops for existing ones on 2027-01-01 (END). The backend
says so when it is made (a warning with the days left) and, from that date on (by the
clock's wall time, which tests set), refuses every query before sending it, saying what
to use instead.
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass
from typing import Any, ClassVar

from collie.models import SearchResponse, SearchResult
from collie.search.base import (
    Backend,
    SearchEnded,
    SearchError,
    SearchRefused,
)

log = logging.getLogger(__name__)
MAX_RESULTS = 100  # the API never returns results beyond the 100th
END = dt.date(2027, 1, 1)  # the Custom Search JSON API's last day for existing customers
INSTEAD = (
    "Use another backend: set search.backend in collie.toml (or --search) to brave (paid, "
    "its own index), mojeek (paid, its own index) or searxng (self-hosted, free; its "
    "braveapi engine takes a Brave key): docs/search-backends.md. The workspace keeps its "
    "queries and corpus."
)


def ended(wall: float) -> bool:
    """Has the API ended at `wall` (seconds since the epoch)?"""
    return dt.datetime.fromtimestamp(wall, dt.timezone.utc).date() >= END


def end_notice(wall: float) -> str:
    """What the backend says of its end, at `wall` (seconds since the epoch, UTC)."""
    today = dt.datetime.fromtimestamp(wall, dt.timezone.utc).date()
    if today >= END:
        return f"Google's Custom Search JSON API ended on {END.isoformat()}."
    left = (END - today).days
    return (
        f"Google's Custom Search JSON API ends on {END.isoformat()} ({left} "
        f"day{'s' if left != 1 else ''} from now; "
        "closed to new customers): plan to move to brave, mojeek or searxng."
    )


@dataclass
class Google(Backend):
    name: ClassVar[str] = "google"
    default_url: ClassVar[str] = "https://www.googleapis.com/customsearch/v1"
    max_count: ClassVar[int] = 10
    # Google Custom Search JSON API: 100 free queries a day (about 3,000 a month), then
    # $5 per 1,000.
    monthly_requests: ClassVar[int] = 3000
    price_per_1000: ClassVar[float] = 5.0
    secret_envs: ClassVar[tuple[str, ...]] = ("search.google_key_env", "search.google_cx_env")

    def __post_init__(self) -> None:
        super().__post_init__()
        log.warning("%s", end_notice(self.clock.wall()))

    def preflight(self) -> None:
        """Refuses every query from END on, before anything is sent."""
        if ended(self.clock.wall()):
            raise SearchEnded(end_notice(self.clock.wall()) + " No query can be sent.", INSTEAD)
        super().preflight()

    def build_request(
        self, query: str, count: int, offset: int
    ) -> tuple[dict[str, Any], dict[str, str]]:
        if offset + count > MAX_RESULTS:
            raise SearchError(f"google serves at most the first {MAX_RESULTS} results.")
        key, cx = ([*list(self.secrets.values()), "", ""])[:2]
        params: dict[str, Any] = {
            "key": key,
            "cx": cx,
            "q": query,
            "num": count,
            "start": offset + 1,
        }
        if self.country:
            params["gl"] = self.country.lower()
        return params, {"Accept": "application/json"}

    def parse(self, data: Any, offset: int) -> SearchResponse:
        raw = data.get("items") or []
        results = [
            SearchResult(r["link"], r.get("title", ""), r.get("snippet", ""), offset + i, self.name)
            for i, r in enumerate(raw, start=1)
        ]
        return SearchResponse(results, raw)

    def explain_error(self, status: int, data: Any) -> SearchError | None:
        error = data.get("error") if isinstance(data, dict) else None
        message = error.get("message", "") if isinstance(error, dict) else ""
        reasons = [
            e.get("reason", "") for e in (error or {}).get("errors", []) if isinstance(e, dict)
        ]
        if status == 400 and ("API key" in message or "keyInvalid" in reasons):
            return SearchRefused(f"google rejected the API key: {message}", self.key_hint())
        if status in (401, 403):
            return SearchRefused(
                f"google refused the request (HTTP {status}): {message or ', '.join(reasons)}; "
                "check the key, the search engine id (cx) and that the Custom Search API is "
                "enabled for the key's project.",
                self.key_hint(),
            )
        return None
