"""Consumes a protocol face's conversation with an agent process (a coroutine), produces its result
on the harness's thread: the conversation runs on an event loop of its own thread, the agent in a
process group of its own, and both end at a harness ceiling.

The watchdog's interruptions land on the harness's thread, which only waits: it then tells the
conversation to stop (`Stop`) and waits for it to end the protocol's way (a cancel), so no
interruption lands inside the protocol's own machinery.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from unsolvable._environ import child_environ
from unsolvable._errors import CeilingHit
from unsolvable._session import end_at_ceiling
from unsolvable._text import kept_end
from unsolvable.adapters._stderr import StderrReader, stderr_account
from unsolvable.adapters.kit import shielded

if TYPE_CHECKING:
    from unsolvable._session import Session

__all__ = ["EXIT_SECONDS", "POLL_SECONDS", "Child", "Stop", "on_thread", "waited"]

POLL_SECONDS = 0.05
"""How often a conversation looks at the harness's ceilings, and the harness's thread up from
waiting: the watchdog's period, so a ceiling is acted on within one of its interruptions."""
EXIT_SECONDS = 1.0
"""How long an agent whose connection ended is given to exit before it is killed: one that dies
exits with its connection's end, so its status is known well within this; one still running
after it is said to run on."""
STDERR_KEPT = 4_000
"""Characters of the agent's stderr kept for the record."""
LINE_LIMIT = 50 * 1024 * 1024
"""The longest line read from the agent's stdout: the ACP SDK's own default, as one JSON-RPC
message can carry a whole file."""

T = TypeVar("T")


class Stop:
    """Whether the run must stop: a harness ceiling was reached (the session knows) or the
    watchdog interrupted the harness's thread (which sets this)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._event = threading.Event()

    def set(self) -> None:
        self._event.set()

    def is_due(self) -> bool:
        if self.session.ceiling is None and self.session.time_left() <= 0:
            end_at_ceiling(self.session, "wall_seconds")
        return self._event.is_set() or self.session.ceiling is not None


async def waited(future: asyncio.Future[Any], stop: Stop) -> bool:
    """Whether ``future`` finished before the run had to stop (looked at every `POLL_SECONDS`)."""
    while not future.done():
        await asyncio.wait({future}, timeout=POLL_SECONDS)
        if not future.done() and stop.is_due():
            return False
    return True


class Child:
    """The agent's process, in a process group of its own, its stderr's end kept (`end`) and read
    as it is written for a Node report of an uncaught error (`account`)."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        assert process.stderr is not None  # started with a pipe (`start`)
        self.process, self.report = process, StderrReader()
        self._stderr = asyncio.ensure_future(_tail(process.stderr, self.report))

    @classmethod
    async def start(cls, argv: Sequence[str], environ: Mapping[str, str]) -> Child:
        """``argv`` in the harness's directory (a relative path in it works, as for ``exec:``),
        with ``environ`` added to what an ``exec:`` child gets of the harness's environment
        (`child_environ`: never a CI job's credentials), its stdin and stdout pipes for the
        protocol."""
        process = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env={**child_environ(), **environ},
            start_new_session=True,
            limit=LINE_LIMIT,
        )
        return cls(process)

    async def status_within(self, seconds: float) -> int | None:
        """The agent's exit status if it exits within ``seconds``; ``None`` while it runs on. A
        process that dies closes its pipes as it exits, so one whose connection just ended and
        that is still running after this is running on."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.process.wait(), seconds)
        return self.process.returncode

    async def end(self) -> str:
        """Kills the whole process group and reaps the child; the end of its stderr, also passed
        on to the harness's (what a worker keeps as the record's ``output``). Passed on here, on
        the conversation's thread, which the watchdog never interrupts, so that it is kept
        however the run ended: at the wall ceiling the harness's thread is interrupted."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        await self.process.wait()
        said = await self._stderr
        sys.stderr.write(said)
        return said

    def account(self, said: str) -> str:
        """What a failed agent's record says of ``said``, the end of its stderr (`end`)."""
        return stderr_account(said, self.report.named)


async def _tail(stream: asyncio.StreamReader, report: StderrReader) -> str:
    kept = bytearray()
    while chunk := await stream.read(65_536):
        report.write(chunk)
        kept += chunk
        del kept[: -4 * STDERR_KEPT]  # bytes: up to 4 per character of UTF-8
    report.close()
    return kept_end(kept.decode("utf-8", "replace"), STDERR_KEPT)


def on_thread(session: Session, talk: Callable[[Stop], Coroutine[Any, Any, T]], *, name: str) -> T:
    """``talk(stop)`` run to its end on an event loop of its own thread; what it returned, or
    what it raised, raised here. A `CeilingHit` on this thread (the watchdog's) sets ``stop``
    and waits for the conversation to end before it goes on up.

    The conversation's end is waited for on an event it sets, not with `threading.Thread.join`:
    on CPython 3.11 an exception raised into a ``join`` as its timed wait returns marks the
    joined thread as ended while it still runs, so the harness went on and killed the agent
    before the conversation had sent its cancel."""
    stop = Stop(session)
    outcome: dict[str, Any] = {}
    ended = threading.Event()

    def run() -> None:
        try:
            outcome["returned"] = asyncio.run(talk(stop))
        except BaseException as error:  # handed to the harness's thread, which raises it
            outcome["error"] = error
        finally:
            ended.set()

    def wait() -> None:
        while not ended.wait(POLL_SECONDS):  # timed, so that an interruption lands in here
            pass

    threading.Thread(target=run, name=name, daemon=True).start()
    try:
        wait()
    except CeilingHit:
        stop.set()
        shielded(wait)
        raise
    if "error" in outcome:
        raise outcome["error"]
    returned: T = outcome["returned"]
    return returned
