"""Progress on stderr for the long commands (run, scan, reprocess): bars, count lines,
and Ctrl-C as a request to stop once the work in hand is recorded. (The run's log file
in logs/ is the run's own: collie/api/mine.py.)"""

from __future__ import annotations

import contextlib
import signal
import sys
import time
from collections.abc import Iterator
from types import FrameType
from typing import Any

from tqdm import tqdm

from collie.cli.options import note
from collie.mining.records import RunEvents

PLAIN_EVERY = 30.0  # seconds between two progress lines when stderr is not a terminal


class CliEvents(RunEvents):
    """Progress bars and count lines on stderr; the first Ctrl-C asks the run to stop
    once the work in hand is recorded, a second one stops at once."""

    def __init__(self, quiet: bool, terminal: bool | None = None) -> None:
        self.quiet = quiet
        # Bars redraw a line in place; redirected output (nohup, a batch job's log)
        # gets a plain line every PLAIN_EVERY seconds instead.
        self.terminal = sys.stderr.isatty() if terminal is None else terminal
        self.bar: tqdm[Any] | None = None
        self.stop_requested = False
        self.desc = ""
        self.unit = ""
        self.done = 0
        self.total: int | None = None
        self.last_status = ""
        self.printed = time.monotonic()

    def stage(self, loop: int, name: str, total: int | None) -> None:
        self.close()
        self.unit = {"search": "queries", "scan": "files"}.get(name, "pages")
        self.desc = f"loop {loop} {name}" if loop else name
        self.done, self.total, self.last_status = 0, total, ""
        self.printed = time.monotonic()
        if not self.quiet and self.terminal:
            self.bar = tqdm(total=total, desc=self.desc, unit=" " + self.unit, leave=False)

    def advance(self, count: int = 1) -> None:
        self.done += count
        if self.bar is not None:
            self.bar.update(count)
        self._plain()

    def status(self, text: str) -> None:
        self.last_status = text
        if self.bar is not None:
            self.bar.set_postfix_str(text, refresh=False)
        self._plain()

    def _plain(self) -> None:
        """The periodic plain line when stderr is not a terminal."""
        if self.quiet or self.terminal or time.monotonic() - self.printed < PLAIN_EVERY:
            return
        self.printed = time.monotonic()
        of = f"/{self.total}" if self.total else ""
        extra = f", {self.last_status}" if self.last_status else ""
        print(f"{self.desc}: {self.done}{of} {self.unit}{extra}", file=sys.stderr, flush=True)

    def line(self, text: str) -> None:
        if not self.quiet:
            tqdm.write(text, file=sys.stderr)

    def should_stop(self) -> bool:
        return self.stop_requested

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def on_sigint(self, _signum: int, _frame: FrameType | None) -> None:
        if self.stop_requested:
            raise KeyboardInterrupt
        self.stop_requested = True
        note("\ncollie: stopping once the work in hand is recorded (Ctrl-C again to stop at once).")


@contextlib.contextmanager
def stop_on_ctrl_c(events: CliEvents) -> Iterator[None]:
    """Within: Ctrl-C asks the run to stop once the work in hand is recorded
    (`CliEvents.on_sigint`); the handler before is put back after."""
    previous = signal.signal(signal.SIGINT, events.on_sigint)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
