"""SearXNG's JSON API: GET {base}/search?q=...&format=json&pageno=N[&language=..].

Also what the closed-world web serves, so it needs no backend of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, ClassVar

from collie.models import SearchResponse, SearchResult
from collie.search.base import (
    Backend,
    SearchError,
    SearchFatal,
    SearchRefused,
)

PAGE_SIZE = 10  # SearXNG has no count parameter; a page holds about ten results
MAX_PAGES = 5  # pages asked for one query (search.results / PAGE_SIZE, rounded up, at most)
# A query token SearXNG reads as syntax: `!bang` (an engine, or a redirect off the
# instance with `!!`), `:lang`, `<timeout`. Such tokens are sent quoted.
_SYNTAX_START = ("!", ":", "<")


@dataclass
class SearXNG(Backend):
    name: ClassVar[str] = "searxng"
    default_url: ClassVar[str] = ""  # self-hosted: there is no public default
    max_count: ClassVar[int] = PAGE_SIZE
    free_queries: ClassVar[bool] = True  # self-hosted

    def __post_init__(self) -> None:
        super().__post_init__()
        base = self.url.rstrip("/")
        self.url = base if not base or base.endswith("/search") else base + "/search"

    def search(self, query: str, count: int = 10, offset: int = 0) -> SearchResponse:
        """Pages of results until `count` are in, a page brings nothing new, or the
        pages `count` needs (at most MAX_PAGES) were asked: a count up to PAGE_SIZE is one
        request (the mining loop asks for a query's pages one at a time, each counted).
        A later page that fails ends the paging with what came before."""
        first = super().search(query, count, offset)
        results, raw = list(first.results), list(first.raw)
        seen = {r.url for r in results}
        page = offset // PAGE_SIZE + 1
        pages = min(MAX_PAGES, -(-count // PAGE_SIZE))
        while results and len(results) < count and page < offset // PAGE_SIZE + pages:
            page += 1
            try:
                more = super().search(query, PAGE_SIZE, (page - 1) * PAGE_SIZE)
            except SearchRefused:
                raise  # blocked: the query is not answered, whatever came before
            except SearchError:
                break
            new = [r for r in more.results if r.url not in seen]
            if not new:
                break
            for result in new[: count - len(results)]:
                seen.add(result.url)
                results.append(replace(result, rank=offset + len(results) + 1))
            raw += more.raw
        return SearchResponse(results, raw)

    def build_request(
        self, query: str, count: int, offset: int
    ) -> tuple[dict[str, Any], dict[str, str]]:
        params: dict[str, Any] = {
            "q": quote_syntax(query),
            "format": "json",
            "pageno": offset // PAGE_SIZE + 1,
        }
        if self.language:
            params["language"] = self.language
        # What a browser sends: SearXNG's bot limiter penalises a bare Accept and no
        # Accept-Language.
        headers = {
            "Accept": "application/json, text/html;q=0.9, */*;q=0.8",
            "Accept-Language": f"{self.language or 'en'},en;q=0.8",
        }
        return params, headers

    def parse(self, data: Any, offset: int) -> SearchResponse:
        raw = data["results"]
        if not isinstance(raw, list):
            raise ValueError("'results' is not a list")
        failed = data.get("unresponsive_engines") or []
        if not raw and failed:  # not an answer: the engines failed (or are suspended)
            reasons = ", ".join(
                f"{e[0]} ({e[1]})" if isinstance(e, list) and len(e) > 1 else str(e) for e in failed
            )
            if all(_blocks(e) for e in failed):
                raise self.blocked(f"every engine blocked: {reasons}")
            raise SearchError(
                f"searxng: no results, and its engines did not answer: {reasons}.",
                "The query is not stored as answered and is sent again in a later run; "
                "check the engines in SearXNG (it suspends an engine after errors).",
            )
        skip = offset % PAGE_SIZE
        results = [
            SearchResult(r["url"], r.get("title", ""), r.get("content", ""), offset + i, self.name)
            for i, r in enumerate(raw[skip:], start=1)
        ]
        return SearchResponse(results, raw[skip:])

    def explain_error(self, status: int, data: Any) -> SearchError | None:
        if status == 403:
            return SearchRefused(
                "searxng answered 403 Forbidden to format=json: JSON output is disabled in "
                "the instance's settings.yml.",
                "Add json to search.formats in settings.yml (formats: [html, json]) and "
                "restart SearXNG.",
            )
        if status == 404:
            return SearchFatal(
                f"searxng: {self.url} was not found (404).",
                "Set search.url to the instance's base URL, e.g. http://localhost:8888.",
            )
        return None

    def blocked_hint(self, what: str) -> str:
        if "HTTP 429" in what:
            return (
                "SearXNG's bot limiter refuses collie: set server.limiter: false in its "
                "settings.yml, or pass collie's address in limiter.toml (botdetection.ip_lists."
                "pass_ip = ['127.0.0.1']), then restart it and run `collie run` again."
            )
        if "every engine blocked" in what:
            return (
                "The engines SearXNG scrapes block it (CAPTCHAs, rate limits); a keyed engine "
                "keeps working: enable `braveapi` with a Brave API key in its settings.yml "
                "(docs/search-backends.md), or use --search brave or mojeek, then run `collie "
                "run` again."
            )
        return super().blocked_hint(what)

    def preflight(self) -> None:
        if not self.url:
            raise SearchFatal(
                "The searxng backend needs the URL of a SearXNG instance.",
                "Set search.url in collie.toml, or give --search-url http://HOST:PORT.",
            )
        super().preflight()


# What SearXNG says of an engine that was blocked (its error messages, or "Suspended: "
# and one of them): a CAPTCHA, too many requests, access denied.
_BLOCKED = ("captcha", "too many requests", "access denied")


def _blocks(engine: object) -> bool:
    """Is this unresponsive engine (SearXNG's [name, reason]) blocked rather than down?"""
    reason = engine[1] if isinstance(engine, list) and len(engine) > 1 else ""
    return any(word in str(reason).lower() for word in _BLOCKED)


def quote_syntax(query: str) -> str:
    """The query with every token SearXNG would read as syntax (`!bang`, `:lang`,
    `<timeout`) in double quotes, so it is searched as a word."""
    return " ".join(
        f'"{token}"' if token.startswith(_SYNTAX_START) else token for token in query.split(" ")
    )
