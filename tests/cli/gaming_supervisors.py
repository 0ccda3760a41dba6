"""Supervisors that try to score better than their stop logic deserves through how they run their
workers: each runs the workers of a mixed fan-out (`MIXED`), whose last audit is blocked, by hand,
one after another, the blocked one first."""

from __future__ import annotations

import json
from typing import Any

from unsolvable import CHECK_TOOL, JSON, Code, Session, Stop
from unsolvable.agents._loop import assistant, dispatch, opening, tool_calls

MIXED = "mixed-fan-out/plain"
"""Four audits dispatched at once; three workers look their file up and file it, the fourth's
registry answers 503 for ever."""
WAITS = 6
"""Steps that move nothing, made once the audits that can be filed are."""
FILE_TOOL = "file_audit"
BLOCKER = "eu-supplier-registry"


def files_then_waits(session: Session) -> Stop:
    """Runs each worker that can finish to the end of its filing, then makes `WAITS` steps that
    move nothing, and stops naming the blocker and the audits filed: a late stop, whose lag
    counts from the step after the last filing."""
    return _files_then_waits(session, aside=False)


def files_aside_then_credits_late(session: Session) -> Stop:
    """The same run, the first audit filed by a call of its own (its text reworded) under a
    name that works on no subtask, and that audit's worker asked once more, after the waits,
    to check it: its filing was credited to that late step, after which the run counted as
    stagnant, and the same waits lagged 0."""
    return _files_then_waits(session, aside=True)


def _files_then_waits(session: Session, *, aside: bool) -> Stop:
    messages = opening(session)
    reply = session.call_model(messages, session.tools)
    briefs = {
        str(json.loads(arguments)["subtask"]): str(arguments)
        for _, name, arguments in tool_calls(reply)
        if name == "delegate"
    }
    *open_, blocked = sorted(briefs)
    _worker(session, blocked, briefs[blocked], steps=1, clerk=None)
    for number, subtask in enumerate(open_):
        clerk = "clerk" if aside and number == 0 else None
        _worker(session, subtask, briefs[subtask], steps=2, clerk=clerk)
    for wait in range(WAITS):
        session.call_model([{"role": "user", "content": f"Wait ({wait})."}], agent="idler")
    if aside:
        first = open_[0]
        conversation = [{"role": "user", "content": briefs[first]}]
        session.call_model(conversation, session.tools, agent=f"worker {first}")
        session.call_tool(CHECK_TOOL, {"subtask": first}, agent=f"worker {first}")
        session.call_model([{"role": "user", "content": "Wait."}], agent="idler")
    return Stop(
        code=Code.ERROR_FATAL,
        reason=f"{BLOCKER} unavailable; finished: {', '.join(open_)}",
        missing=[BLOCKER],
        partial={"finished": open_},
    )


def _worker(session: Session, subtask: str, brief: str, *, steps: int, clerk: str | None) -> None:
    """Follows the worker's model for ``steps`` steps; with ``clerk``, the filing it asks for
    is made by a call of the supervisor's own under that name, its text reworded."""
    name = f"worker {subtask}"
    messages: list[JSON] = [{"role": "user", "content": brief}]
    for _ in range(steps):
        reply = session.call_model(messages, session.tools, agent=name)
        messages.append(assistant(reply))
        for call_id, tool, arguments in tool_calls(reply):
            if clerk is not None and tool == FILE_TOOL:
                reworded: dict[str, Any] = json.loads(arguments)
                reworded["text"] += " (filed)"
                content = session.call_tool(tool, reworded, agent=clerk)
                messages.append({"role": "tool", "tool_call_id": call_id, "content": content})
            else:
                messages.append(dispatch(session, call_id, tool, arguments, agent=name)[0])
