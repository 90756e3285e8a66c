"""Brave Web Search API: GET /res/v1/web/search with the X-Subscription-Token header."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import requests

from collie.models import SearchResponse, SearchResult
from collie.search.base import (
    Backend,
    SearchBlocked,
    SearchError,
    SearchRefused,
)

# Brave's search_lang values (its documented list); ISO 639-1 -> Brave code.
SEARCH_LANGS = {
    code: code
    for code in [
        "ar",
        "eu",
        "bn",
        "bg",
        "ca",
        "hr",
        "cs",
        "da",
        "nl",
        "en",
        "et",
        "fi",
        "fr",
        "gl",
        "de",
        "gu",
        "he",
        "hi",
        "hu",
        "is",
        "it",
        "kn",
        "ko",
        "lv",
        "lt",
        "ms",
        "ml",
        "mr",
        "nb",
        "pl",
        "pa",
        "ro",
        "ru",
        "sr",
        "sk",
        "sl",
        "es",
        "sv",
        "ta",
        "te",
        "th",
        "tr",
        "uk",
        "vi",
    ]
} | {"ja": "jp", "zh": "zh-hans", "pt": "pt-pt", "no": "nb"}
MAX_PAGE = 9  # Brave's offset is a page index, 0-9


@dataclass
class Brave(Backend):
    name: ClassVar[str] = "brave"
    default_url: ClassVar[str] = "https://api.search.brave.com/res/v1/web/search"
    max_count: ClassVar[int] = 20
    # Brave Search API: $5 of free credit a month (about 1,000 requests), then $5 per
    # 1,000 (the plan as of September 2026: docs/search-backends.md).
    monthly_requests: ClassVar[int] = 1000
    price_per_1000: ClassVar[float] = 5.0
    secret_envs: ClassVar[tuple[str, ...]] = ("search.brave_key_env",)

    def build_request(
        self, query: str, count: int, offset: int
    ) -> tuple[dict[str, Any], dict[str, str]]:
        page = offset // count
        if page > MAX_PAGE:
            raise SearchError(f"brave serves at most {MAX_PAGE + 1} pages of results.")
        params: dict[str, Any] = {"q": query, "count": count, "offset": page}
        if self.country:
            params["country"] = self.country.upper()
        if self.language in SEARCH_LANGS:
            params["search_lang"] = SEARCH_LANGS[self.language]
        token = next(iter(self.secrets.values()), "")
        return params, {"X-Subscription-Token": token, "Accept": "application/json"}

    def parse(self, data: Any, offset: int) -> SearchResponse:
        raw = (data.get("web") or {}).get("results") or []
        results = [
            SearchResult(
                r["url"], r.get("title", ""), r.get("description", ""), offset + i, self.name
            )
            for i, r in enumerate(raw, start=1)
        ]
        return SearchResponse(results, raw)

    def after_response(self, response: requests.Response) -> None:
        """X-RateLimit-Remaining/Reset hold one value per window (per second, per month)."""
        remaining = _numbers(response.headers.get("X-RateLimit-Remaining"))
        reset = _numbers(response.headers.get("X-RateLimit-Reset"))
        if len(remaining) >= 2 and remaining[1] <= 0:
            # this answer still counts; the next query would be refused
            days = f" (it resets in {reset[1] / 86400:.1f} days)" if len(reset) >= 2 else ""
            self.exhausted = SearchBlocked(
                f"brave: the monthly query quota of this key is used up{days}: the loop is "
                "left open, its queries not counted as answered.",
                "Wait for the quota to reset or raise the plan's limit, then run `collie run` "
                "again.",
            )
        if remaining and remaining[0] <= 0 and reset:
            self.clock.sleep(reset[0])

    def explain_error(self, status: int, data: Any) -> SearchError | None:
        error = data.get("error") if isinstance(data, dict) else None
        code = error.get("code", "") if isinstance(error, dict) else ""
        detail = error.get("detail", "") if isinstance(error, dict) else ""
        if status in (401, 403, 422) and "TOKEN" in code.upper():
            return SearchRefused(
                f"brave rejected the API key (HTTP {status} {code}: {detail}).", self.key_hint()
            )
        if status in (401, 403):
            label = f"HTTP {status} {code}".strip()
            return SearchRefused(
                f"brave refused the request ({label}{': ' + detail if detail else ''}): the "
                "key was refused, or its plan does not include web search.",
                self.key_hint(),
            )
        return None


def _numbers(header: str | None) -> list[float]:
    values = []
    for part in (header or "").split(","):
        try:
            values.append(float(part.strip()))
        except ValueError:
            continue
    return values
