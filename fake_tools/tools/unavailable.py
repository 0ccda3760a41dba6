"""Consumes any call, produces a 503 forever: a required dependency that never comes back."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from unsolvable import JSON, ToolResult, ToolSpec
from unsolvable.fake_tools._router import Tool
from unsolvable.fake_tools._world import FakeWorld
from unsolvable.fake_tools.tools._respond import respond

__all__ = ["UNAVAILABLE", "outage", "unavailable_tool"]

UNAVAILABLE = "unavailable"
"""The refusal kind of a call to a dependency that does not answer (503-style)."""


def outage(dependency: str, retry_after: int | None = None) -> JSON:
    """The body of a 503 from ``dependency``, with its Retry-After hint when it gives one: one
    wording for a dependency down for good and for one that recovers, since nothing in a real
    503 says which it is."""
    error: JSON = {
        "status": 503,
        "code": "service_unavailable",
        "message": f"503 Service Unavailable: {dependency} is not responding",
        "dependency": dependency,
    }
    if retry_after is not None:
        error["retry_after"] = retry_after
    return {"error": error}


def unavailable_tool(spec: ToolSpec, dependency: str) -> Tool:
    """Answers ``503 Service Unavailable`` for ``dependency`` on every call."""

    def handle(world: FakeWorld, arguments: Mapping[str, Any]) -> ToolResult:
        return respond(world, outage(dependency), refusal=UNAVAILABLE)

    return Tool(spec=spec, handler=handle)
