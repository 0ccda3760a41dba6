"""Whether a process has ended, as an event to wait on: a process's pidfd becomes readable the
moment it ends. A test that checks that a killed process is gone waits for that, rather than
looking at once (a ``SIGKILL`` takes effect when its process next runs, later on a loaded
machine) or looking again and again for a while.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
from collections.abc import Iterable

__all__ = ["GONE_SECONDS", "is_gone", "survivors"]

GONE_SECONDS = 60.0
"""How long a test waits for a killed process to be gone before it fails: a guard against one
that was never killed, far above what a loaded machine takes."""


def is_gone(pid: int) -> bool:
    """Whether process ``pid`` has ended (a zombie waiting to be reaped has), or ends within
    `GONE_SECONDS`."""
    try:
        handle = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        readable, _, _ = select.select([handle], [], [], GONE_SECONDS)
        return bool(readable)
    finally:
        os.close(handle)


def survivors(pids: Iterable[int]) -> list[int]:
    """The processes of ``pids`` that are not gone (`is_gone`); each is killed before this
    returns, so that a test that finds one fails without leaving it running."""
    left = [pid for pid in pids if not is_gone(pid)]
    for pid in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return left
