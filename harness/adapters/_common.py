"""Consumes what a framework left behind at its stop, produces the small, JSON-able partial result
and the missing-extra message every built-in adapter shares. Imports no framework.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from harness._types import JSON

__all__ = [
    "BUDGET",
    "PARTIAL_TAIL",
    "Budgeted",
    "missing_extra",
    "partial_from_messages",
    "reply_to_calls",
]

BUDGET: Literal["budget"] = "budget"
"""Pass as a framework limit to set it from the scenario's budget (``session.budget``) instead of
the framework's default: the agent then gets exactly the steps the scenario allows."""
Budgeted = Literal["budget"]

PARTIAL_TAIL = 3
"""Messages kept verbatim in a partial result: the last tool call, its result and the model's
next move are enough to see where a stopped run stood; the count says how long it ran."""
PARTIAL_CUT = 200
"""Characters kept of each message in a partial result."""


def missing_extra(framework: str, extra: str) -> str:
    """The message for an adapter whose framework is not installed."""
    return (
        f"unsolvable: the {framework} adapter needs {framework}, which is not installed; "
        f"pip install 'pytest-unsolvable[{extra}]'"
    )


def _brief(message: Mapping[str, Any]) -> JSON:
    content = message.get("content")
    text = content if isinstance(content, str) else json.dumps(content, default=str)
    brief: JSON = {"role": str(message.get("role", "")), "content": (text or "")[:PARTIAL_CUT]}
    calls = [c.get("function", c).get("name") for c in message.get("tool_calls") or ()]
    if calls:
        brief["tool_calls"] = calls
    return brief


def partial_from_messages(messages: Iterable[Mapping[str, Any]]) -> JSON:
    """What a run achieved, from its Chat Completions-shaped history: how far it got (messages,
    tool results) and its last few messages."""
    history = list(messages)
    results = [m for m in history if m.get("role") == "tool"]
    return {
        "messages": len(history),
        "tool_results": len(results),
        "tail": [_brief(m) for m in history[-PARTIAL_TAIL:]],
    }


def reply_to_calls(reply: Mapping[str, Any]) -> list[tuple[str, str, JSON]]:
    """``(id, name, arguments)`` of each tool call in a session reply, arguments parsed."""
    calls = []
    for call in reply.get("tool_calls") or ():
        arguments = call["function"].get("arguments") or "{}"
        parsed = json.loads(arguments) if isinstance(arguments, str) else dict(arguments)
        calls.append((str(call["id"]), str(call["function"]["name"]), parsed))
    return calls
