"""Consumes any call, produces the same answer every time (or the same answer per name looked
up): tools that can never move the task by themselves."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from unsolvable import JSON, ToolResult, ToolSpec
from unsolvable.fake_tools._router import Tool
from unsolvable.fake_tools._world import FakeWorld
from unsolvable.fake_tools.tools._respond import Canned

__all__ = ["constant_tool", "lookup_tool"]


def constant_tool(spec: ToolSpec, answer: JSON) -> Tool:
    """Answers ``answer`` whatever the arguments (each reply still carries a fresh request id)."""
    canned = Canned(answer)

    def handle(world: FakeWorld, arguments: Mapping[str, Any]) -> ToolResult:
        return canned.answer(world)

    return Tool(spec=spec, handler=handle)


def lookup_tool(spec: ToolSpec, *, field: str, records: Mapping[str, JSON], missing: JSON) -> Tool:
    """Answers the record named by ``arguments[field]``, the same every time; ``missing`` for a
    name it does not hold (a registry read: it never moves the task by itself)."""

    canned = {name: Canned(record) for name, record in records.items()}
    unknown = Canned(missing)

    def handle(world: FakeWorld, arguments: Mapping[str, Any]) -> ToolResult:
        return canned.get(str(arguments.get(field, "")), unknown).answer(world)

    return Tool(spec=spec, handler=handle)
