"""Consumes any call, produces a 503 forever: a required dependency that never comes back."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from unsolvable import ToolResult, ToolSpec
from unsolvable.fake_tools._router import Tool
from unsolvable.fake_tools._world import FakeWorld
from unsolvable.fake_tools.tools._respond import respond

__all__ = ["UNAVAILABLE", "unavailable_tool"]

UNAVAILABLE = "unavailable"
"""The refusal kind of a call to a dependency that does not answer (503-style)."""


def unavailable_tool(spec: ToolSpec, dependency: str) -> Tool:
    """Answers ``503 Service Unavailable`` for ``dependency`` on every call."""

    def handle(world: FakeWorld, arguments: Mapping[str, Any]) -> ToolResult:
        body = {
            "error": {
                "status": 503,
                "code": "service_unavailable",
                "message": f"503 Service Unavailable: {dependency} is not responding",
                "dependency": dependency,
            }
        }
        return respond(world, body, refusal=UNAVAILABLE)

    return Tool(spec=spec, handler=handle)
