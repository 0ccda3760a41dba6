"""Consumes a run asked for on a thread whose event loop is running (an async test, a notebook),
produces its record made on a thread of its own, with no loop running there: an async agent, or
an adapter of an async framework, starts its own loop (`asyncio.run`), as in production, which
Python refuses inside a running one."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable

from unsolvable._record import TerminationRecord

__all__ = ["apart", "loop_running_here"]


def loop_running_here() -> bool:
    """Whether this thread runs an event loop (none can, where asyncio was never imported)."""
    asyncio = sys.modules.get("asyncio")
    if asyncio is None:
        return False
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


class _Apart(threading.Thread):
    """Makes the record on its own thread, keeping it or what raised instead. A daemon: a Ctrl-C
    ends the wait for it, and the process may end without it."""

    def __init__(self, make: Callable[[], TerminationRecord]) -> None:
        super().__init__(name="unsolvable-run", daemon=True)
        self.make = make
        self.record: TerminationRecord | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.record = self.make()
        except BaseException as error:  # handed back to the caller's thread, as it raised
            self.error = error


def apart(make: Callable[[], TerminationRecord]) -> TerminationRecord:
    """``make``'s record, made on a thread of its own while this one waits; what it raised is
    raised here."""
    thread = _Apart(make)
    thread.start()
    thread.join()
    if thread.error is not None:
        raise thread.error
    assert thread.record is not None
    return thread.record
