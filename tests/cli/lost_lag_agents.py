"""Agents that make the steps their model asks for up to step ``$LOSTLAG_STEP`` and end the run
there: by a stop decision, by exiting their process, or by holding the interpreter until the
harness kills their worker. `test_lost_lag.py` compares the records of the three."""

from __future__ import annotations

import os
from typing import Any

from unsolvable import Code, Session, Stop

STEP = "LOSTLAG_STEP"
"""The environment variable naming the step at which each agent ends its run."""
WAIT_SECONDS = 5000.0
"""A wait on the session clock past any time budget of the scenarios: simulated, it takes no
real time."""


def _steps(session: Session, *, last_calls: bool = True, tools_after: int | None = None) -> None:
    """Makes ``$LOSTLAG_STEP`` steps, each with every tool call its model asks for, but the
    last step's unless ``last_calls``; with ``tools_after``, its steps after that one offer the
    model no tool."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": session.task}]
    last = int(os.environ[STEP])
    for step in range(1, last + 1):
        offered = session.tools if tools_after is None or step <= tools_after else []
        reply = session.call_model(messages, offered)
        messages.append({key: value for key, value in reply.items() if key != "usage"})
        if step == last and not last_calls:
            return
        for call in reply.get("tool_calls") or ():
            result = session.call_tool(call["function"]["name"], call["function"]["arguments"])
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})


def stops(session: Session) -> Stop:
    _steps(session)
    return Stop(code=Code.NO_PROGRESS, reason="nothing new")


def exits(session: Session) -> None:
    _steps(session)
    os._exit(3)


def stops_asked(session: Session) -> Stop:
    """Stops after its last model call, leaving the calls it asked for unmade."""
    _steps(session, last_calls=False)
    return Stop(code=Code.NO_PROGRESS, reason="nothing new")


def exits_asked(session: Session) -> None:
    """Exits after its last model call, before the calls it asked for."""
    _steps(session, last_calls=False)
    os._exit(3)


def stops_after_a_wait(session: Session) -> Stop:
    """Stops after waiting out the time budget on the session clock."""
    _steps(session)
    session.sleep(WAIT_SECONDS)
    return Stop(code=Code.NO_PROGRESS, reason="nothing new")


def exits_after_a_wait(session: Session) -> None:
    """Exits after waiting out the time budget on the session clock."""
    _steps(session)
    session.sleep(WAIT_SECONDS)
    os._exit(3)


def hangs(session: Session) -> None:
    """A C loop that never lets another thread run: only killing its worker ends it."""
    _steps(session)
    sum(range(10**13))


def hangs_offering_no_tools(session: Session) -> None:
    """The same, its steps after the first offering the model no tool."""
    _steps(session, tools_after=1)
    sum(range(10**13))
