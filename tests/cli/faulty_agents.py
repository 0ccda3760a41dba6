"""Agents that attack the process they run in: the fault corpus of `test_faults.py`."""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import signal
import subprocess
import threading
import time
from typing import Any, NoReturn

from unsolvable import CeilingHit, Code, Session, Stop


def exits(session: Session) -> None:
    """Kills its own process, the way a crashing extension would."""
    session.call_model([], session.tools)
    os._exit(3)


def exits_at_once(session: Session) -> None:
    """Kills its own process before its first step: the harness saw nothing of the run."""
    os._exit(3)


def raises_at_once(session: Session) -> None:
    """Raises before its first step, in a worker process that lives on."""
    raise RuntimeError("broke before its first step")


def segfaults(session: Session) -> None:
    ctypes.string_at(0)


def is_killed(session: Session) -> None:
    """Ends as the kernel ends a process when memory runs out: killed, with no word."""
    session.call_model([], session.tools)
    os.kill(os.getpid(), signal.SIGKILL)


def holds_the_interpreter(session: Session) -> None:
    """A C loop that never lets another thread run: nothing in its process can end it."""
    session.call_model([], session.tools)
    sum(range(10**13))


def never_unwinds(session: Session) -> None:
    """Swallows every interruption, even the harness's own."""
    session.call_model([], session.tools)
    _swallows_every_interruption()


def _swallows_every_interruption() -> NoReturn:
    while True:
        try:
            time.sleep(0.01)
        except BaseException:
            continue


def calls_to_the_wall_then_never_unwinds(session: Session) -> None:
    """Asks the model until the wall ceiling's interruption, then swallows every one after it:
    its record so far, tens of thousands of steps long, takes a while to build and send."""
    with contextlib.suppress(CeilingHit):
        while True:
            session.call_model([{"role": "user", "content": "x" * 2000}], session.tools)
    _swallows_every_interruption()


def never_unwinds_leaving_a_process(session: Session) -> None:
    """Starts a process in a session of its own, as a daemon does, names it in the file
    ``$FAULTY_PID_FILE`` names, then swallows every interruption (`never_unwinds`)."""
    started = subprocess.Popen(["sleep", "600"], start_new_session=True)
    with open(os.environ["FAULTY_PID_FILE"], "w") as file:
        file.write(str(started.pid))
    never_unwinds(session)


LEAKED: list[int] = []
"""The descriptors `leaks_every_descriptor` opened, never closed."""


def leaks_every_descriptor(session: Session) -> Stop:
    """Opens files and never closes them until its process can open no more, as a client made
    for each call and never closed does on a machine whose limit is low (lowered here to a few
    more than the process has open, so that the test takes no time), then stops as it should."""
    session.call_model([], session.tools)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    few_more = len(os.listdir("/proc/self/fd")) + 16
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(soft, few_more), hard))
    with contextlib.suppress(OSError):
        while True:
            LEAKED.append(os.open(os.devnull, os.O_RDONLY))
    return Stop(code=Code.NO_PROGRESS, reason="nothing new")


def chatty(session: Session) -> str:
    """Prints as it goes, as many agents do, and ends with no structured exit."""
    print("thinking about the invoices...")
    return "done, I think"


def slow(session: Session) -> Stop:
    """Takes a while per run, so that an interrupt arrives in the middle of a session."""
    session.call_model([], session.tools)
    time.sleep(0.3)
    return Stop(code=Code.NO_PROGRESS, reason="nothing new")


def _never_builds_its_record() -> None:
    """Makes the worker's building of this run's record wait for ever, as a record too large to
    build in time, or a thread the agent left holding the interpreter, would."""
    from unsolvable import _run

    def waits(*args: Any, **kwargs: Any) -> NoReturn:
        threading.Event().wait()
        raise AssertionError("an event no one sets was set")

    _run._record = waits  # type: ignore[assignment]


def stops_and_its_record_never_comes(session: Session) -> Stop:
    """Stops after one call; its record never comes."""
    session.call_model([], session.tools)
    _never_builds_its_record()
    return Stop(code=Code.NO_PROGRESS, reason="nothing new")


def runs_into_a_ceiling_and_its_record_never_comes(session: Session) -> None:
    """Asks the model until the step ceiling refuses a call, then returns; its record never
    comes."""
    with contextlib.suppress(CeilingHit):
        while True:
            session.call_model([], session.tools)
    _never_builds_its_record()
