"""Consumes SIGINT and SIGTERM while a batch runs, produces each as an exception in the main
thread (`KeyboardInterrupt` for SIGINT, as Python raises it; `Interrupted` for SIGTERM) where no
finished run's record is half read.

A signal that arrives while the harness reads a worker's channel, judges what it read and keeps
the record (`InterruptCatcher.held`) is raised once that record is kept: raised where it landed,
it would drop a record read off the channel and not yet kept, though its run had ended before
the interrupt. The hold lasts at most one look at the channels (`unsolvable._batch`'s poll)."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from types import FrameType

__all__ = ["InterruptCatcher", "Interrupted"]


class Interrupted(Exception):
    """SIGTERM, delivered the way SIGINT is (as an exception in the main thread)."""


def _exception(signum: int) -> BaseException:
    if signum == signal.SIGINT:
        return KeyboardInterrupt()
    return Interrupted(signal.Signals(signum).name)


class InterruptCatcher:
    """Within it, SIGTERM and SIGINT raise in the main thread, outside `held`; SIGINT only where
    Python's own handler had it (a command started in the background ignores it, and still
    does)."""

    def __init__(self) -> None:
        self.holding = False
        self.pending: int | None = None
        """The signal that arrived during `held`, raised at its end."""
        self.previous: dict[int, object] = {}

    def __enter__(self) -> InterruptCatcher:
        caught = [signal.SIGTERM]
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            caught.append(signal.SIGINT)
        self.previous = {number: signal.signal(number, self._arrived) for number in caught}
        return self

    def __exit__(self, *raised: object) -> None:
        for number, handler in self.previous.items():
            signal.signal(number, handler)  # type: ignore[arg-type]
        self.previous = {}

    def _arrived(self, signum: int, frame: FrameType | None) -> None:
        if self.holding:
            self.pending = signum
            return
        raise _exception(signum)

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """An interrupt that arrives within it is raised as it ends, unless it ends by an
        exception of its own."""
        self.holding = True
        try:
            yield
        finally:
            self.holding = False
        signum, self.pending = self.pending, None
        if signum is not None:
            raise _exception(signum)
