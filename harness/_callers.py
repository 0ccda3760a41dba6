"""Consumes the calls made into a session, produces which threads made them and the first one
made after the agent returned: a call from work it left running (a thread, a task, a process).

The session owns one `Callers` and calls it under its lock; it takes none.
"""

from __future__ import annotations

import threading

from unsolvable._errors import SessionClosed, run_ended

__all__ = ["Callers"]


class Callers:
    """Who called a session, and whether it still takes calls."""

    def __init__(self, run: str) -> None:
        self._run = run
        """The run, named in the refusal of a late call."""
        self._returned = False
        self._finished = False
        self._threads: set[int] = set()
        self._late = threading.Event()
        self.late_call: str | None = None
        """The first call made after the agent returned and before the run finished."""

    @property
    def threads(self) -> frozenset[int]:
        """The idents of the threads that called the model or a tool."""
        return frozenset(self._threads)

    def enter(self, call: str) -> None:
        """Admits a model or tool call from this thread, or refuses it (`check`)."""
        self.check(call)
        self._threads.add(threading.get_ident())

    def check(self, call: str) -> None:
        """Raises `SessionClosed` once the agent has returned; the first such call before the
        run finished is noted (`late_call`), as it is work the agent left running."""
        if not self._returned:
            return
        if not self._finished and self.late_call is None:
            self.late_call = call
            self._late.set()
        raise SessionClosed(run_ended(self._run))

    def returned(self) -> None:
        """The agent is back (or its process ended): every later call is refused."""
        self._returned = True

    def finish(self) -> str | None:
        """Closes for good and returns the late call, if one came; later ones are not noted."""
        self._returned = self._finished = True
        return self.late_call

    def wait_for_late_call(self, timeout: float) -> bool:
        """Waits up to ``timeout`` seconds for a late call; whether one came."""
        return self._late.wait(timeout)
