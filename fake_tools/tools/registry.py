"""Consumes lookups in a system of record, produces the record or a 404 that names what does not
exist: the evidence that a task's premise is false."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from unsolvable import JSON, ToolResult, ToolSpec
from unsolvable.fake_tools._router import Tool
from unsolvable.fake_tools._world import FakeWorld
from unsolvable.fake_tools.tools._respond import respond

__all__ = ["NOT_FOUND", "registry_tool"]

NOT_FOUND = "not_found"
"""The refusal kind of a lookup of something the system of record does not hold."""


def registry_tool(spec: ToolSpec, *, field: str, kind: str, records: Mapping[str, JSON]) -> Tool:
    """Answers the record named by ``arguments[field]``, or a 404 saying that no ``kind``
    matches it. A lookup reads; it never changes the world."""

    def handle(world: FakeWorld, arguments: Mapping[str, Any]) -> ToolResult:
        name = str(arguments.get(field, ""))
        record = records.get(name)
        if record is not None:
            return respond(world, dict(record))
        error = {"status": 404, "code": NOT_FOUND, "message": f"no {kind} matches {name!r}"}
        return respond(world, {"error": error}, refusal=NOT_FOUND)

    return Tool(spec=spec, handler=handle, refuses_every_call=not records)
