"""Consumes searches of a codebase, produces their matches: none for a pattern it does not hold,
with the pattern echoed as grep's summary says it, so that every new pattern looks like a new
answer to the agent while nothing in the world moves; the harness judges the matches alone."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from unsolvable import ToolResult, ToolSpec
from unsolvable.fake_tools._router import Tool
from unsolvable.fake_tools._world import FakeWorld
from unsolvable.fake_tools.tools._respond import respond

__all__ = ["search_tool"]


def search_tool(
    spec: ToolSpec,
    *,
    field: str,
    found: Mapping[str, Sequence[str]],
    scanned: int,
    seconds: float,
) -> Tool:
    """Answers the lines ``found`` for the pattern ``arguments[field]`` (none for a pattern it
    does not know) after scanning ``scanned`` files, which takes ``seconds`` on the session
    clock. A search reads; it never changes the world."""

    def handle(world: FakeWorld, arguments: Mapping[str, Any]) -> ToolResult:
        pattern = str(arguments.get(field, ""))
        matches = list(found.get(pattern, ()))
        body = {"matches": matches, "files_scanned": scanned}
        return respond(world, body, echoed={"pattern": pattern}, seconds=seconds)

    return Tool(spec=spec, handler=handle)
