"""A status line on stderr for long work: rewritten in place on a terminal, else one line each
time it is shown (a log), at most once a second either way."""

from __future__ import annotations

import sys
import time

__all__ = ["StatusLine"]

EVERY = 1.0
"""Seconds between two lines."""


class StatusLine:
    def __init__(self) -> None:
        self.terminal = sys.stderr.isatty()
        self.width = 0
        self.last = float("-inf")

    def due(self) -> bool:
        """Whether a line shown now would be seen (a second since the last)."""
        return time.monotonic() - self.last >= EVERY

    def show(self, line: str) -> None:
        self.last = time.monotonic()
        if self.terminal:
            sys.stderr.write("\r" + line.ljust(self.width))
            self.width = len(line)
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()

    def done(self) -> None:
        """End the line in place, so what follows starts on a line of its own."""
        if self.terminal and self.width:
            sys.stderr.write("\n")
            sys.stderr.flush()
            self.width = 0
