"""A progress bar on stderr: runs done / total, elapsed time and an estimate of the rest.

On a terminal it redraws one line; otherwise (logs, CI, pipes) it prints a
plain line per finished run.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["Progress", "fmt_seconds"]

BAR_WIDTH = 24


def fmt_seconds(s: float) -> str:
    """``75.2`` → ``1:15``; ``3725`` → ``1:02:05``."""
    s = int(round(s))
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


class Progress:
    """Counts finished runs of ``total``; ``skipped`` were complete before this invocation."""

    def __init__(self, total: int, *, skipped: int = 0, stream: TextIO | None = None, enabled: bool = True) -> None:
        self.total = total
        self.done = skipped
        self.skipped = skipped
        self.failed = 0
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self.tty = self.stream.isatty()
        self.start = time.monotonic()

    def line(self) -> str:
        """``[=====>    ] 7/12 runs, 1 failed, elapsed 0:03, eta 0:02``."""
        elapsed = time.monotonic() - self.start
        fresh = self.done - self.skipped
        left = self.total - self.done
        eta = fmt_seconds(elapsed / fresh * left) if fresh and left else ("0:00" if not left else "?")
        filled = BAR_WIDTH * self.done // max(self.total, 1)
        bar = "=" * filled + (">" if filled < BAR_WIDTH else "") + " " * (BAR_WIDTH - filled - 1)
        failed = f", {self.failed} failed" if self.failed else ""
        return f"[{bar[:BAR_WIDTH]}] {self.done}/{self.total} runs{failed}, elapsed {fmt_seconds(elapsed)}, eta {eta}"

    def advance(self, name: str, error: str | None = None) -> None:
        """One run finished (``error`` when it failed)."""
        self.done += 1
        if error is not None:
            self.failed += 1
            self.message(f'run "{name}" failed: {error}')
        if not self.enabled:
            return
        if self.tty:
            self.stream.write("\r\033[K" + self.line())
        else:
            self.stream.write(f"{self.line()}  {name}\n")
        self.stream.flush()

    def message(self, text: str) -> None:
        """A line of its own (errors are shown even when the bar is off)."""
        prefix = "\r\033[K" if self.tty and self.enabled else ""
        self.stream.write(f"{prefix}ecnlab: {text}\n")
        self.stream.flush()

    def finish(self) -> None:
        """End the redrawn line."""
        if self.enabled and self.tty:
            self.stream.write("\n")
            self.stream.flush()
