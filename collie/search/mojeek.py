"""Mojeek Search API (its own index, not a reseller of Google's or Bing's): GET /search
with api_key, q, t (results, at most MAX_COUNT), s (the first result, 1-based), fmt=json;
lb and lbb prefer pages in the target language, rb and rbb pages of the country.

The answer is {"response": {"status": "OK", "head": {...}, "results": [{"url", "title",
"desc"}, ...]}}; a problem is a status "ERROR: ..." (e.g. "ERROR: Daily Limit Reached"),
sometimes on an HTTP 200 answer, so the status is read before the results.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from collie.models import SearchResponse, SearchResult
from collie.search.base import (
    Backend,
    SearchError,
    SearchRefused,
)

MAX_COUNT = 20  # results asked for in one request (collie's pages; the API takes more)
LANGUAGE_BOOST = 10  # lbb and rbb: Mojeek's recommended boost (1-100)


@dataclass
class Mojeek(Backend):
    name: ClassVar[str] = "mojeek"
    default_url: ClassVar[str] = "https://api.mojeek.com/search"
    max_count: ClassVar[int] = MAX_COUNT
    # Mojeek sells its API by plan and volume, on request: collie knows no price (set
    # search.monthly_requests and search.price_per_1000 to your plan's).
    monthly_requests: ClassVar[int] = 0
    price_per_1000: ClassVar[float] = 0.0
    price_known: ClassVar[bool] = False
    secret_envs: ClassVar[tuple[str, ...]] = ("search.mojeek_key_env",)

    def build_request(
        self, query: str, count: int, offset: int
    ) -> tuple[dict[str, Any], dict[str, str]]:
        key = next(iter(self.secrets.values()), "")
        params: dict[str, Any] = {"q": query, "t": count, "s": offset + 1, "fmt": "json"}
        if self.language:
            params |= {"lb": self.language.upper(), "lbb": LANGUAGE_BOOST}
        if self.country:
            params |= {"rb": self.country.upper(), "rbb": LANGUAGE_BOOST}
        params["api_key"] = key
        return params, {"Accept": "application/json"}

    def parse(self, data: Any, offset: int) -> SearchResponse:
        response = data["response"]
        status = str(response.get("status", ""))
        if status.upper() != "OK":
            raise self._status_error(status)
        raw = response.get("results") or []
        if not isinstance(raw, list):
            raise ValueError("'results' is not a list")
        results = [
            SearchResult(r["url"], r.get("title", ""), r.get("desc", ""), offset + i, self.name)
            for i, r in enumerate(raw, start=1)
        ]
        return SearchResponse(results, raw)

    def explain_error(self, status: int, data: Any) -> SearchError | None:
        message = ""
        if isinstance(data, dict) and isinstance(data.get("response"), dict):
            message = str(data["response"].get("status", ""))
        if message.upper().startswith("ERROR"):
            return self._status_error(message)
        if status in (401, 403):
            return SearchRefused(
                f"mojeek refused the request (HTTP {status}{': ' + message if message else ''})"
                ": the key was refused, or its plan has ended.",
                self.key_hint(),
            )
        return None

    def _status_error(self, status: str) -> SearchError:
        """The error a status other than OK says (a SearchError is not one of the
        exceptions `search` turns into "an unexpected answer")."""
        said = self.redact(status or "no status")
        lowered = said.lower()
        if "limit" in lowered or "quota" in lowered:
            return self.blocked(f"its answer: {said}")
        if "key" in lowered or "auth" in lowered:
            return SearchRefused(f"mojeek rejected the API key ({said}).", self.key_hint())
        return SearchError(f"mojeek: {said}")
