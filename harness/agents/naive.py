"""The `naive` agent: a ReAct loop whose only stop is a step cap, the way most agents ship.

It trusts the model: no tool call means done. At its cap it hands back the last text, as
framework loops do, with no statement of how the run ended.
"""

from __future__ import annotations

from harness._record import Code, Stop
from harness._session import Session
from harness.agents._loop import assistant, dispatch, opening, tool_calls

__all__ = ["MAX_ITERATIONS", "naive"]

MAX_ITERATIONS = 25
"""The classic framework default (LangGraph's old recursion limit, CrewAI's max_iter)."""


def naive(session: Session) -> Stop | str | None:
    """Calls the model until it stops calling tools, or until the cap."""
    messages = opening(session)
    content = None
    for _ in range(MAX_ITERATIONS):
        reply = session.call_model(messages, session.tools)
        messages.append(assistant(reply))
        content = reply.get("content")
        calls = tool_calls(reply)
        if not calls:
            return Stop(code=Code.COMPLETED, reason=content or "")
        for call_id, name, arguments in calls:
            messages.append(dispatch(session, call_id, name, arguments)[0])
    return content


naive.name = "naive"  # type: ignore[attr-defined]
