"""Consumes finished runs one by one, produces a progress indicator on stderr that never spams a
CI log: one line rewritten in place on a terminal; elsewhere nothing for a short command, then
at most a line per `LOG_EVERY_PERCENT`.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

__all__ = ["LOG_EVERY_PERCENT", "QUIET_SECONDS", "Progress"]

LOG_EVERY_PERCENT = 10
"""Off a terminal, at most 100 / 10 = 10 lines per command, however many runs."""
QUIET_SECONDS = 2.0
"""Off a terminal, a command that finishes sooner prints no progress at all (the whole built-in
library takes about that long): a log reader only needs it for long runs."""
CLEAR_LINE = "\r\033[K"


class Progress:
    """Counts finished runs and shows ``unsolvable: 37/246 runs (15%)``.

    Usage::

        progress = Progress(total=len(jobs))
        for job in jobs:
            ...
            progress.advance()
        progress.close()
    """

    def __init__(
        self,
        total: int,
        *,
        stream: TextIO | None = None,
        enabled: bool = True,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total, self.done = total, 0
        self.stream = stream or sys.stderr
        self.enabled = enabled and total > 0
        self.is_tty = self.stream.isatty()
        self.clock, self.started = clock, clock()
        self._shown_percent = 0

    def _text(self, percent: int) -> str:
        return f"unsolvable: {self.done}/{self.total} runs ({percent}%)"

    def _should_log(self, percent: int) -> bool:
        due = percent >= self._shown_percent + LOG_EVERY_PERCENT
        return due and self.clock() - self.started >= QUIET_SECONDS

    def advance(self) -> None:
        self.done += 1
        if not self.enabled:
            return
        percent = self.done * 100 // self.total
        if self.is_tty and percent != self._shown_percent:
            self.stream.write(CLEAR_LINE + self._text(percent))
        elif not self.is_tty and self._should_log(percent):
            self.stream.write(self._text(percent) + "\n")
            # The next line is due a tenth on from the tenth this one passed; the line itself
            # gives the share it counts (37/246 is 15 %, not the 10 % it passed).
            percent -= percent % LOG_EVERY_PERCENT
        else:
            return
        self._shown_percent = percent
        self.stream.flush()

    def close(self) -> None:
        """On a terminal, clears the line so the report starts on a clean one."""
        if self.enabled and self.is_tty:
            self.stream.write(CLEAR_LINE)
            self.stream.flush()
