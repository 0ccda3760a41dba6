"""Consumes any call, produces the same answer every time: a tool that can never move the task."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fake_tools._router import Tool
from fake_tools._world import FakeWorld
from fake_tools.tools._respond import respond
from harness import JSON, ToolResult, ToolSpec

__all__ = ["constant_tool"]


def constant_tool(spec: ToolSpec, answer: JSON) -> Tool:
    """Answers ``answer`` whatever the arguments (each reply still carries a fresh request id)."""

    def handle(world: FakeWorld, arguments: Mapping[str, Any]) -> ToolResult:
        return respond(world, dict(answer))

    return Tool(spec=spec, handler=handle)
