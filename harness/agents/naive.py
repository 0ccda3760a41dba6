"""The `naive` agent: a ReAct loop whose only stop is a step cap, the way most agents ship.

It trusts the model: no tool call means done. At its cap it hands back the last text, as
framework loops do, with no statement of how the run ended. Delegated subtasks run as workers
with a cap of their own, so caps multiply under fan-out.
"""

from __future__ import annotations

import itertools

from unsolvable._session import Session
from unsolvable._stop import Code, Stop
from unsolvable._types import DELEGATE_TOOL
from unsolvable.agents._loop import assistant, dispatch, opening, tool_calls

__all__ = ["MAX_ITERATIONS", "naive"]

MAX_ITERATIONS = 25
"""The classic framework default (LangGraph's old recursion limit, CrewAI's max_iter)."""


def _loop(
    session: Session, agent: str, workers: itertools.count[int], task: str | None = None
) -> Stop | str | None:
    messages = opening(session)
    if task is not None:
        messages[-1]["content"] = task
    content = None
    for _ in range(MAX_ITERATIONS):
        reply = session.call_model(messages, session.tools, agent=agent)
        messages.append(assistant(reply))
        content = reply.get("content")
        calls = tool_calls(reply)
        if not calls:
            return Stop(code=Code.COMPLETED, reason=content or "")
        for call_id, name, arguments in calls:
            if name == DELEGATE_TOOL:
                result = _loop(session, f"worker-{next(workers)}", workers, task=str(arguments))
                messages.append({"role": "tool", "tool_call_id": call_id, "content": str(result)})
            else:
                messages.append(dispatch(session, call_id, name, arguments, agent=agent)[0])
    return content


def naive(session: Session) -> Stop | str | None:
    """Calls the model until it stops calling tools, or until the cap."""
    return _loop(session, "main", itertools.count(1))


naive.name = "naive"  # type: ignore[attr-defined]
