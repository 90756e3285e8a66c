"""Polite HTTP: robots.txt, per-host pacing, limits, retries. (Being built: issue 5.)

The fetcher returns data and never touches the workspace database.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class FetchResult:
    """What fetching one URL gave: a response to process, or a drop with its reason."""

    url: str  # as requested
    final_url: str  # after redirects (== url without any)
    status: int | None  # HTTP status of the final response; None when there was none
    headers: dict[str, str] = field(default_factory=dict)  # final response, lower-case names
    body: bytes = b""  # at most fetch.max_bytes
    truncated: bool = False  # the body was cut at fetch.max_bytes
    redirects: tuple[str, ...] = ()  # every hop's URL, in order
    outcome: str = "fetched"  # "fetched" or "dropped"
    reason: str | None = None  # drop reason: "robots", "not-html:application/pdf", "http-404"...
    fetched_at: float = 0.0  # wall-clock time of the final request (time.time())
    elapsed: float = 0.0  # seconds spent on this URL, waiting included
