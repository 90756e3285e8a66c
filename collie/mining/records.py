"""What a run reports: the per-run options (RunLimits), what each loop counted
(LoopReport, the line a run prints as a loop ends), the run's report (RunReport), and
what a run tells its caller as it goes (RunEvents). Plain records: the loop fills them,
the command line and the corpus report read them.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field

from collie.models import PageOutcome, SearchResult
from collie.reasons import NEAR_DUPLICATE, RELATIVE_SUSPECTED, kind_of
from collie.search.coverage import Estimate

HOSTS_NAMED = 5  # hosts a loop's line names, at most (the run's log has them all)


@dataclass
class RunLimits:
    """Per-run limits of `collie run` (run.loops, run.max_pages, run.max_time: its flags
    over the settings)."""

    loops: int
    max_pages: int = 0  # pages fetched per loop; 0 = no limit
    max_time: float = 0.0  # seconds per run; 0 = no limit


class Deadline:
    """A run's time limit (RunLimits.max_time, from when the run began; 0: none)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.started = time.monotonic()

    def passed(self) -> bool:
        return bool(self.seconds) and time.monotonic() - self.started >= self.seconds

    def describe(self) -> str:
        """Why the run stops when it has `passed`."""
        return f"the run's time limit ({self.seconds:g} s) was reached"


@dataclass(frozen=True)
class QueryOutcome:
    """A search request's answer: from the workspace's cache, sent, failed or lost."""

    query: str
    query_id: int | None
    status: str  # sent, cached, failed, lost
    results: list[SearchResult]
    error: str | None = None
    words: list[str] | None = None  # the seed words it was made of


@dataclass
class LoopReport:
    number: int
    queries: Counter[str] = field(default_factory=Counter)  # sent, cached, failed, lost
    search_urls: int = 0
    pages: Counter[str] = field(default_factory=Counter)  # kept, duplicate, wronglang, dropped
    reasons: Counter[str] = field(default_factory=Counter)
    languages: Counter[str] = field(default_factory=Counter)  # of the pages with text
    search_stopped: str | None = None
    requests: int = 0  # search requests sent (a query's later pages too)
    coverage: Estimate | None = None  # the coverage estimate when the search stage ended
    unreachable: Counter[str] = field(default_factory=Counter)  # robots.txt failed: cause -> hosts
    held: int = 0  # pages held back by them (still queued)
    held_hosts: dict[str, str] = field(default_factory=dict)  # their origins -> cause

    def line(self) -> str:
        """The line a run prints when a loop ends."""
        pages = self.pages
        reasons = ", ".join(
            f"{r} {n}" for r, n in self.reasons.most_common(6) if r != NEAR_DUPLICATE
        )
        why = f" ({reasons})" if reasons else ""
        return (
            f"loop {self.number}: {sum(pages.values())} pages fetched: {pages['kept']} "
            f"target documents, {pages['duplicate']} near-duplicates, {pages['wronglang']} in "
            f"other languages, {pages['dropped']} dropped{why}" + self.unreachable_text()
        )

    def unreachable_text(self) -> str:
        """What robots.txt that could not be fetched held back ("" when none did)."""
        if not self.held:
            return ""
        causes = ", ".join(f"{c} {n}" for c, n in self.unreachable.most_common())
        return (
            f"; robots.txt could not be fetched from {sum(self.unreachable.values())} "
            f"host(s) ({causes}): their {self.held} pages were not fetched and stay queued"
        )

    def given_up_line(self) -> str:
        """The line of a loop that ends without the pages of hosts whose robots.txt could
        not be fetched, naming the hosts (HOSTS_NAMED at most)."""
        hosts = [f"{o} ({c})" for o, c in sorted(self.held_hosts.items())]
        more = len(hosts) - HOSTS_NAMED
        named = ", ".join(hosts[:HOSTS_NAMED]) + (f" and {more} more" if more > 0 else "")
        return (
            f"loop {self.number}: finished without the {len(hosts)} host(s) whose robots.txt "
            f"could not be fetched: {named}; a later loop asks them again"
        )

    def nothing_found_line(self, target: str) -> str:
        """What a loop that found no target document saw instead."""
        seen = ", ".join(f"{code} {n}" for code, n in self.languages.most_common(8))
        suspected = self.reasons[RELATIVE_SUSPECTED]
        return (
            f"loop {self.number}: no {target} document among {sum(self.pages.values())} "
            f"pages fetched; their languages: {seen or 'none (no page had text)'}"
            + (
                f"; {suspected} pages look like a close relative of {target} "
                "(`collie export --suspects`)"
                if suspected
                else ""
            )
        )

    def count(self, outcome: PageOutcome, sign: int = 1) -> None:
        """Count a page (`sign` -1: take it out again): by status, reason and language."""
        self.pages[outcome.status] += sign
        if outcome.reason and outcome.status != "kept":
            self.reasons[kind_of(outcome.reason)] += sign
        if outcome.lang is not None:
            self.languages[outcome.lang] += sign
        if sign < 0:  # no zero counts
            self.pages, self.reasons, self.languages = +self.pages, +self.reasons, +self.languages


# How the stop reason of a run that found no site answering begins (mining/loop.py).
OFFLINE_STOP = "robots.txt could not be fetched from any of the"


@dataclass
class RunReport:
    loops: list[LoopReport] = field(default_factory=list)
    stopped: str | None = None  # a budget or time limit ended the run early
    already_done: bool = False
    requests: int = 0  # search requests sent in the run

    @property
    def offline(self) -> bool:
        """The run stopped because no site answered: its last loop recorded no page and
        held pages back for an unreachable robots.txt, and that is why it stopped
        (`_held_back`; a time limit met while a few hosts' pages wait is not it)."""
        last = self.loops[-1] if self.loops else None
        return bool(
            self.stopped
            and self.stopped.startswith(OFFLINE_STOP)
            and last
            and last.held
            and not sum(last.pages.values())
        )


class RunEvents:
    """What a run tells its caller (progress bars, count lines); all optional."""

    def stage(self, loop: int, name: str, total: int | None) -> None: ...

    def advance(self, count: int = 1) -> None: ...

    def line(self, text: str) -> None: ...

    def status(self, text: str) -> None:
        """What the stage in progress holds now (hosts in flight, the queue...)."""
        return None

    def should_stop(self) -> bool:
        return False
