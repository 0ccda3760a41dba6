"""Consumes repeated calls, produces a scripted series of answers and then the one that matters:
a cursor that pages, an index that warms up, a search that finds the record at the k-th try.

The same call gets a different answer each time, which is exactly what separates these solvable
twins from a tool that answers the same thing forever (`constant_tool`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from unsolvable import JSON, ToolResult, ToolSpec
from unsolvable.fake_tools._router import Tool
from unsolvable.fake_tools._world import FakeWorld
from unsolvable.fake_tools.tools._respond import Canned

__all__ = ["sequence_tool"]


def sequence_tool(spec: ToolSpec, *, answers: Sequence[JSON], then: JSON) -> Tool:
    """Answers the i-th call with ``answers[i]``, every call after them with ``then``."""
    calls = [0]  # per tool, and tools are built per run: the count is audit, not content
    canned, last = [Canned(answer) for answer in answers], Canned(then)

    def handle(world: FakeWorld, arguments: Mapping[str, Any]) -> ToolResult:
        index, calls[0] = calls[0], calls[0] + 1
        return (canned[index] if index < len(canned) else last).answer(world)

    return Tool(spec=spec, handler=handle)
