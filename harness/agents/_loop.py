"""Consumes a session, produces the pieces every ReAct loop shares: the opening messages and the
dispatch of one tool call, with errors turned into text the model can read."""

from __future__ import annotations

import json
from typing import Any

from unsolvable._session import Session
from unsolvable._types import JSON

__all__ = ["assistant", "dispatch", "opening", "tool_calls"]

"""The tool by which a model hands a subtask to a worker agent (fan-out)."""


def opening(session: Session) -> list[JSON]:
    return [
        {"role": "system", "content": "You are an agent. Use the tools to do the task."},
        {"role": "user", "content": session.task},
    ]


def tool_calls(reply: JSON) -> list[tuple[str, str, Any]]:
    """``(id, name, arguments)`` of each tool call in an assistant message."""
    return [
        (call["id"], call["function"]["name"], call["function"]["arguments"])
        for call in reply.get("tool_calls") or ()
    ]


def dispatch(
    session: Session, call_id: str, name: str, arguments: Any, *, agent: str = "main"
) -> tuple[JSON, Exception | None]:
    """Runs one tool; a tool that raises is reported to the model as text, as runtimes do: the
    body it carries when it has one (a refusal's, what an HTTP face answers), else its message."""
    try:
        content, error = session.call_tool(name, arguments, agent=agent), None
    except Exception as raised:
        error = raised
        body = getattr(raised, "body", "")
        content = body if isinstance(body, str) and body else _described(raised)
    return {"role": "tool", "tool_call_id": call_id, "content": content}, error


def _described(error: Exception) -> str:
    return json.dumps({"error": {"message": f"{type(error).__name__}: {error}"}})


def assistant(reply: JSON) -> JSON:
    """The assistant message to append to the history (usage is not part of a message)."""
    return {k: v for k, v in reply.items() if k != "usage"}
