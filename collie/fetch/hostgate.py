"""Per-host pacing for the fetcher: one request in flight per host and a delay between
two requests (Crawl-delay and Retry-After stretch it); the times can be handed over
to another process (a Dask worker) and back."""

from __future__ import annotations

import threading
from dataclasses import dataclass

from collie.http import Clock


@dataclass
class _HostState:
    delay: float
    busy: bool = False
    ready_at: float = 0.0  # clock time before which no request may start
    released_at: float = 0.0  # clock time the last request ended


class HostGate:
    """Per-host pacing: one request in flight and a delay between two requests."""

    def __init__(self, clock: Clock, delay: float) -> None:
        self.clock = clock
        self.delay = delay
        self._hosts: dict[str, _HostState] = {}
        self._cond = threading.Condition()

    def _state(self, host: str) -> _HostState:
        return self._hosts.setdefault(host, _HostState(self.delay))

    def acquire(self, host: str) -> None:
        """Wait until `host` is idle and its delay has passed, then hold it."""
        while True:
            with self._cond:
                state = self._state(host)
                if state.busy:
                    self._cond.wait(0.05)
                    continue
                wait = state.ready_at - self.clock.now()
                if wait <= 0:
                    state.busy = True
                    return
            self.clock.sleep(wait)

    def release(self, host: str, hold: float = 0.0) -> None:
        """Free `host`; the next request may start `max(delay, hold)` seconds from now."""
        with self._cond:
            state = self._state(host)
            state.busy = False
            state.released_at = self.clock.now()
            state.ready_at = max(state.ready_at, state.released_at + max(state.delay, hold))
            self._cond.notify_all()

    def set_delay(self, host: str, delay: float) -> None:
        """Change the delay of `host` (a Crawl-delay), counting from its last request."""
        with self._cond:
            state = self._state(host)
            state.delay = delay
            state.ready_at = max(state.ready_at, state.released_at + delay)

    def ready_at(self, host: str) -> float:
        with self._cond:
            return self._state(host).ready_at

    def hold_until(self, host: str, when: float) -> None:
        """No request to `host` before clock time `when` (pacing handed over by the
        process that fetched from it last)."""
        with self._cond:
            state = self._state(host)
            state.ready_at = max(state.ready_at, when)

    def ready_times(self) -> dict[str, float]:
        """Every host met, with the clock time before which it must not be asked again."""
        with self._cond:
            return {host: state.ready_at for host, state in self._hosts.items()}
