"""Progress on stderr for the long commands (run, reprocess): bars, count lines, and
Ctrl-C as a request to stop after the current batch."""

from __future__ import annotations

import sys
from types import FrameType
from typing import Any

from tqdm import tqdm

from collie import pipeline
from collie.cli.options import note


class CliEvents(pipeline.RunEvents):
    """Progress bars and count lines on stderr; the first Ctrl-C asks the run to stop
    after the current batch, a second one stops at once."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.bar: tqdm[Any] | None = None
        self.stop_requested = False

    def stage(self, loop: int, name: str, total: int | None) -> None:
        self.close()
        if not self.quiet:
            unit = " queries" if name == "search" else " pages"
            desc = f"loop {loop} {name}" if loop else name
            self.bar = tqdm(total=total, desc=desc, unit=unit, leave=False)

    def advance(self, count: int = 1) -> None:
        if self.bar is not None:
            self.bar.update(count)

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
        note("\ncollie: stopping after the current batch (Ctrl-C again to stop at once).")
