"""Consumes a session whose agent has returned and a test of whether work it started still runs,
produces the wait for that work's first late call (`Session.late_call`).

Work left running — a thread still looping on the model, a process the agent started — calls
again at once, so waiting for that call, rather than counting calls for a while, makes the
record say the same thing every run. Work left idle (a pool's worker) makes no call and is
not work left running; the wait for it ends at `LEFTOVER_SECONDS`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from unsolvable._session import Session

__all__ = ["LEFTOVER_SECONDS", "await_late_call"]

LEFTOVER_SECONDS = 1.0
"""How long the harness waits, after the agent returned, for what it left running to end or to
call again: as long as an interrupted agent gets to unwind (`unsolvable._run.GRACE_SECONDS`)."""
POLL_SECONDS = 0.01
"""How often it looks again whether that work still runs; a late call ends the wait at once."""


def await_late_call(session: Session, running: Callable[[], bool]) -> None:
    """Waits while ``running()`` holds, up to `LEFTOVER_SECONDS`, ending at the first late
    call."""
    deadline = time.monotonic() + LEFTOVER_SECONDS
    while running():
        left = deadline - time.monotonic()
        if left <= 0 or session.wait_for_late_call(min(left, POLL_SECONDS)):
            return
