"""Search backends behind one interface: `backend.search(query, count, offset)`.

    backend = make_backend(settings, os.environ, language)
    response = backend.search("ng'ato thuolo piny", count=10)

Backends: brave, mojeek, searxng (also the closed-world web), google (ends 2027-01-01).
API keys are read from the environment variables that settings name; they are never
stored or printed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from collie.config import user_agent_header
from collie.errors import ConfigError
from collie.http import Clock
from collie.models import SearchResponse, SearchResult
from collie.search.base import (
    Backend,
    HttpSettings,
    SearchBlocked,
    SearchEnded,
    SearchError,
    SearchFatal,
    SearchRefused,
)
from collie.search.brave import Brave
from collie.search.google import Google
from collie.search.mojeek import Mojeek
from collie.search.searxng import SearXNG

BACKENDS: dict[str, type[Backend]] = {
    "brave": Brave,
    "mojeek": Mojeek,
    "searxng": SearXNG,
    "google": Google,
}

__all__ = [
    "BACKENDS",
    "Backend",
    "HttpSettings",
    "SearchBlocked",
    "SearchEnded",
    "SearchError",
    "SearchFatal",
    "SearchRefused",
    "SearchResponse",
    "SearchResult",
    "make_backend",
]


def make_backend(
    settings: Mapping[str, Any],
    environ: Mapping[str, str],
    language: str = "",
    clock: Clock | None = None,
) -> Backend:
    """The backend named by search.backend, configured from settings and environment.

    `language` is the target's ISO 639-1 code (or ""), passed where a backend supports it.
    """
    name = settings["search.backend"]
    if name not in BACKENDS:
        raise ConfigError(f"Unknown search backend {name!r}.", f"Use one of {', '.join(BACKENDS)}.")
    cls = BACKENDS[name]
    secrets = {settings[key]: environ.get(settings[key], "") for key in cls.secret_envs}
    http = HttpSettings(
        timeout=settings["search.timeout"],
        retries=settings["search.retries"],
        rate_limit=settings["search.rate_limit"],
        user_agent=user_agent_header(settings["fetch.user_agent"], settings["fetch.contact_url"]),
    )
    return cls(
        url=settings["search.url"],
        secrets=secrets,
        country=settings["search.country"],
        language=language,
        http=http,
        clock=clock or Clock(),
    )
