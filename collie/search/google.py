"""Google Programmable Search (Custom Search JSON API): key, cx, q, num <= 10, start.

Closed to new customers; existing ones must move by 1 January 2027. collie warns once.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, ClassVar

from collie.search.base import Backend, SearchError, SearchRefused, SearchResponse, SearchResult

log = logging.getLogger(__name__)
MAX_RESULTS = 100  # the API never returns results beyond the 100th


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
    _warned: bool = field(default=False, init=False)

    def build_request(
        self, query: str, count: int, offset: int
    ) -> tuple[dict[str, Any], dict[str, str]]:
        if not self._warned:
            log.warning(
                "Google Programmable Search is closed to new customers and existing ones must "
                "move by 1 January 2027; consider the brave or searxng backend."
            )
            self._warned = True
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
