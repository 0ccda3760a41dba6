"""Consumes the session's replies and what a framework left behind at its stop, produces what every
adapter needs to translate them: tool calls, token usage, tool bindings, partial results, and the
missing-extra message. Imports no framework and no HTTP library.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal

from unsolvable._errors import AdapterError, CeilingHit
from unsolvable._model import Usage
from unsolvable._stop import Stop
from unsolvable._text import text_of
from unsolvable._types import JSON

if TYPE_CHECKING:
    from unsolvable._session import Session

__all__ = [
    "BUDGET",
    "FAKE_MODEL",
    "PARTIAL_TAIL",
    "Budgeted",
    "ToolCaller",
    "as_mapping",
    "bind_tool",
    "check_build_form",
    "is_step_limit",
    "missing_extra",
    "partial_from_messages",
    "reply_to_calls",
    "reply_usage",
    "shielded",
    "text_of",
]

BUDGET: Literal["budget"] = "budget"
"""Pass as a framework limit to set it from the scenario's budget (``session.budget``) instead of
the framework's default: the agent then gets exactly the steps the scenario allows."""
Budgeted = Literal["budget"]

FAKE_MODEL = "unsolvable-fake"
"""The model name an adapter sends on the wire; the fake answers whatever the name."""

PARTIAL_TAIL = 3
"""Messages kept verbatim in a partial result: the last tool call, its result and the model's
next move are enough to see where a stopped run stood; the count says how long it ran."""
PARTIAL_CUT = 200
"""Characters kept of each message in a partial result."""

ToolCaller = Callable[..., str]
"""A scenario tool as a plain function: keyword arguments in, the text the agent sees out."""


def missing_extra(framework: str, extra: str) -> str:
    """The message for an adapter whose framework is not installed."""
    return (
        f"unsolvable: the {framework} adapter needs {framework}, which is not installed; "
        f"pip install 'pytest-unsolvable[{extra}]'"
    )


def is_step_limit(value: object) -> bool:
    """Whether ``value`` is what an adapter takes for a framework's step limit: ``None`` (the
    framework's own), `BUDGET` (the scenario's) or an int of at least 1, not a bool."""
    if value is None or value == BUDGET:
        return True
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def check_build_form(
    build: Callable[..., Any], *, per_agent: bool, adapter: str, arguments: tuple[str, ...]
) -> None:
    """Refuses a builder of the other form than ``per_agent`` says (``build(bind)`` given
    ``AgentBindings``, or ``build(*arguments)``), which would otherwise fail inside every run
    with a bare `TypeError` about its arguments."""
    try:
        signature = inspect.signature(build)
    except (TypeError, ValueError):  # a callable with no signature to read shows it when run
        return
    try:
        signature.bind(*([None] if per_agent else [None] * len(arguments)))
    except TypeError:
        plain = ", ".join(arguments)
        if per_agent:
            raise AdapterError(
                f"{adapter}(build={build!r}, per_agent=True): build{signature} does not take "
                f"(bind); a build({plain}) needs per_agent=False, the default"
            ) from None
        raise AdapterError(
            f"{adapter}(build={build!r}): build{signature} does not take ({plain}); a "
            "build(bind) given AgentBindings needs per_agent=True"
        ) from None


def reply_to_calls(reply: Mapping[str, Any]) -> list[tuple[str, str, JSON]]:
    """``(id, name, arguments)`` of each tool call in a session reply, arguments parsed."""
    calls = []
    for call in reply.get("tool_calls") or ():
        arguments = call["function"].get("arguments") or "{}"
        parsed = json.loads(arguments) if isinstance(arguments, str) else dict(arguments)
        calls.append((str(call["id"]), str(call["function"]["name"]), parsed))
    return calls


def reply_usage(reply: Mapping[str, Any]) -> Usage:
    """The token usage of a session reply (its ``usage`` is in Chat Completions' names), for a
    framework's own usage type: every adapter reads it here, never by hand."""
    usage = reply.get("usage") or {}
    return Usage(
        input_tokens=int(usage.get("prompt_tokens", 0)),
        output_tokens=int(usage.get("completion_tokens", 0)),
    )


def bind_tool(session: Session, name: str, *, agent: str = "main") -> ToolCaller:
    """The session's tool ``name`` as a function to hand the framework's own tool type. It lets
    what the tool raises through, so the framework's default error path decides what the model
    sees — as it would for the user's own tool in production. ``agent`` is the sub-agent that
    holds the tool: its results feed that agent's next model call."""

    def call(**arguments: Any) -> str:
        return session.call_tool(name, arguments, agent=agent)

    call.__name__ = call.__qualname__ = name
    return call


def as_mapping(output: object) -> object:
    """A structured final output (a pydantic model, a dataclass) as a mapping to read a `Stop`
    from with `interpret_plain`; anything else as it is."""
    if isinstance(output, Stop | Mapping):
        return output
    dump = getattr(output, "model_dump", None)
    if callable(dump):
        return dump()
    if dataclasses.is_dataclass(output) and not isinstance(output, type):
        return dataclasses.asdict(output)
    return output


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


def shielded(action: Callable[[], None]) -> None:
    """Runs a clean-up step to its end even while the watchdog keeps raising `CeilingHit`: the
    run is already over, and what matters now is that no process and no server is left."""
    while True:
        try:
            action()
            return
        except CeilingHit:
            continue
