"""Consumes the tool calls of each model reply as a framework runs them concurrently (threads, or
tasks on an event loop), produces their way into the session one at a time, in the reply's order.

A framework that runs a reply's calls at once (LangGraph's ``ToolNode``) makes the order in which
they reach `Session.call_tool` a race, and with it the world's fingerprints, the fake tools'
volatile request ids (drawn from the world's seeded rng in call order) and the trajectory. The
calls still run concurrently, as in production; only their effects on the world are put in
order, so that the same scenario, seed and agent give the same record.

A call waits only for the calls ahead of it in its reply, each of which either passes (its tool
returned or raised) or is known not to come: the framework says it is done with it
(`Turnstile.finish`: LangGraph's task for it ended, or a node answered it), the agent's next
reply for the same agent replaces the reply (the framework is past its tool calls), the run
ended (`Turnstile.close`), or — the safety net where no such word comes — no call of the reply
has moved (arrived or settled) for `PATIENCE` seconds and it has not arrived. A call that arrived
is never given up on: it is on its way through, waiting only for calls ahead of it in turn, so
the waits form no cycle.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import AsyncIterator, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

__all__ = ["PATIENCE", "Turnstile"]

PATIENCE = 30.0
"""Seconds a call waits for the calls ahead of it while none of its reply's calls moves and no
word (`Turnstile.finish`) says they will not come. It fires only for a call the framework answers
without the tool and without saying so: a ``ToolNode`` that runs all of a reply's calls in one
task (a graph of your own, ``create_react_agent(version="v1")``) with a ``wrap_tool_call`` that
answers one itself, a task cancelled before it started, a call id two agents' replies hold at
once, or a graph run without `TaskEnds`.
A call that will come takes well under a millisecond to reach its tool; thirty seconds is beyond
any scheduling delay of a loaded machine, so a slow machine never reorders a record."""


@dataclass(kw_only=True)
class _Reply:
    """One model reply's tool calls that reach the session through the turnstile."""

    ids: tuple[str, ...]
    """Their ids, in the reply's order."""
    arrived: set[str] = field(default_factory=set)
    """Those that reached the turnstile: on their way through, never given up on."""
    settled: set[str] = field(default_factory=set)
    """Those that passed, or that will not come."""
    moved: float = field(default_factory=time.monotonic)
    """When the reply came or one of its calls last arrived or settled (`time.monotonic`)."""

    def ahead(self, call_id: str) -> list[str]:
        """The calls ``call_id`` still waits for: none for a call not of this reply, or one that
        came again (a retry)."""
        if call_id not in self.ids or call_id in self.settled:
            return []
        before = self.ids[: self.ids.index(call_id)]
        return [i for i in before if i not in self.settled]


class Turnstile:
    """Admits each agent's tool calls one at a time, in the order of the agent's last model reply.

    The model face `open`\\ s a reply; each tool call goes through `turn` (threads) or `aturn`
    (an event loop) with its tool call id. A call with no id, or one no open reply holds, goes
    at once.
    """

    def __init__(self, *, patience: float = PATIENCE) -> None:
        self.patience = patience
        self._changed = threading.Condition()
        self._replies: dict[str, _Reply] = {}
        """Each agent's last reply."""
        self._wakers: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []
        """The futures `aturn`'s waiters await, each on its own loop."""
        self._closed = False

    def open(self, agent: str, ids: Sequence[str]) -> None:
        """``agent``'s new reply, whose calls ``ids`` (in its order) will reach the tools; any
        call still waiting for the agent's previous reply goes on."""
        with self._changed:
            self._replies[agent] = _Reply(ids=tuple(ids))
            self._notify()

    def finish(self, call_ids: Iterable[str]) -> None:
        """The framework is done with ``call_ids``: each passed, or will not come (a node answered
        it, or the task that carried it ended without calling the tool). A call that arrived
        settles as it passes, and an id that more than one agent's reply holds cannot be told
        whose it is: both are left alone."""
        with self._changed:
            for call_id in call_ids:
                holders = [r for r in self._replies.values() if call_id in r.ids]
                if len(holders) == 1 and call_id not in holders[0].arrived:
                    holders[0].settled.add(call_id)
                    holders[0].moved = time.monotonic()
            self._notify()

    def close(self) -> None:
        """The run ended: every waiting call goes on, and every later one goes at once."""
        with self._changed:
            self._closed = True
            self._notify()

    @contextlib.contextmanager
    def turn(self, agent: str, call_id: str | None) -> Iterator[None]:
        """Waits, on this thread, until the calls ahead of ``call_id`` have settled; settles it
        when the block ends, however it ends."""
        with self._changed:
            self._arrive(agent, call_id)
            while (left := self._left(agent, call_id)) is not None:
                self._changed.wait(left)
        try:
            yield
        finally:
            self._settle(agent, call_id)

    @contextlib.asynccontextmanager
    async def aturn(self, agent: str, call_id: str | None) -> AsyncIterator[None]:
        """`turn` for a call on an event loop: it waits without holding the loop, so the calls
        ahead of it (tasks on the same loop) can run."""
        loop = asyncio.get_running_loop()
        with self._changed:
            self._arrive(agent, call_id)
        while True:
            with self._changed:
                left = self._left(agent, call_id)
                if left is None:
                    break
                woken: asyncio.Future[None] = loop.create_future()
                self._wakers.append((loop, woken))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(woken, left)
        try:
            yield
        finally:
            self._settle(agent, call_id)

    def _left(self, agent: str, call_id: str | None) -> float | None:
        """Seconds ``call_id`` may still wait for the calls ahead of it; ``None`` once it may go.
        Called with the lock held."""
        reply = self._replies.get(agent)
        if self._closed or reply is None or call_id is None:
            return None
        ahead = reply.ahead(call_id)
        if not ahead:
            return None
        left = reply.moved + self.patience - time.monotonic()
        if left > 0:
            return left
        # Not come after so long, they will not; those that came are on their way through.
        reply.settled.update(i for i in ahead if i not in reply.arrived)
        return self.patience if reply.ahead(call_id) else None

    def _arrive(self, agent: str, call_id: str | None) -> None:
        """Called with the lock held."""
        reply = self._replies.get(agent)
        if reply is not None and call_id is not None and call_id in reply.ids:
            reply.arrived.add(call_id)
            reply.moved = time.monotonic()

    def _settle(self, agent: str, call_id: str | None) -> None:
        with self._changed:
            reply = self._replies.get(agent)
            if reply is not None and call_id is not None and call_id in reply.ids:
                reply.settled.add(call_id)
                reply.moved = time.monotonic()
                self._notify()

    def _notify(self) -> None:
        """Wakes every waiter to look again. Called with the lock held."""
        self._changed.notify_all()
        wakers, self._wakers = self._wakers, []
        for loop, woken in wakers:
            with contextlib.suppress(RuntimeError):  # its loop closed: nobody awaits it
                loop.call_soon_threadsafe(_wake, woken)


def _wake(woken: asyncio.Future[None]) -> None:
    if not woken.done():
        woken.set_result(None)
