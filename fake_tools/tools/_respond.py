"""Consumes a tool's answer body, produces the `ToolResult` the agent sees and the harness reads."""

from __future__ import annotations

from typing import Any

from fake_tools._world import FakeWorld
from harness import ToolResult
from harness._json import sorted_json

__all__ = ["respond"]

REQUEST_ID = "request_id"


def respond(world: FakeWorld, body: dict[str, Any], **flags: Any) -> ToolResult:
    """Adds a fresh ``request_id`` to what the agent sees, as real APIs do; the observation the
    harness judges novelty on leaves it out, because the harness knows it is volatile."""
    request_id = world.volatile_id("req")
    text = sorted_json({**body, REQUEST_ID: request_id})
    return ToolResult(text=text, observation=_without(text, body, request_id), **flags)


def _without(text: str, body: dict[str, Any], request_id: str) -> str:
    """``sorted_json(body)``, cut out of ``text`` rather than encoded a second time (a step's
    tool answer is encoded once: issue 14). The id's item is found by its exact text, which no
    string value can hold (its quotes would be escaped), so when it occurs once it is the
    top-level item; a body with a ``request_id`` of its own, or nesting this one, is encoded."""
    item = f'"{REQUEST_ID}": "{request_id}"'
    if REQUEST_ID in body or text.count(item) != 1:
        return sorted_json(body)
    at = text.index(item)
    end = at + len(item)
    if text.startswith(", ", end):  # an item follows: take the separator after it
        return text[:at] + text[end + 2 :]
    if at == 1:  # the only item
        return "{}"
    return text[: at - 2] + text[end:]  # the last item: take the separator before it
