"""Consumes an action on one item of a known set (mark an invoice paid, close an account),
produces it done, or a 404 that never echoes the item: acting on made-up items brings nothing
new."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from unsolvable import ToolResult, ToolSpec
from unsolvable.fake_tools._router import Tool
from unsolvable.fake_tools._world import FakeWorld
from unsolvable.fake_tools.tools._respond import respond

__all__ = ["settle_tool"]

NOT_FOUND_STATUS = 404


def settle_tool(
    spec: ToolSpec, *, field: str, items: frozenset[str], key: str, done: str, missing: str
) -> Tool:
    """Settles the item ``arguments[field]`` when it is one of ``items``: stores it under
    ``key`` and answers it with status ``done``. Any other is answered 404 with ``missing``,
    words that never echo it, so that acting on made-up items is no new observation an agent
    could add to move its first stagnant step."""

    def handle(world: FakeWorld, arguments: Mapping[str, Any]) -> ToolResult:
        item = str(arguments.get(field, ""))
        if item not in items:
            return respond(world, {"error": {"status": NOT_FOUND_STATUS, "message": missing}})
        world.put(key, item)
        return respond(world, {field: item, "status": done})

    return Tool(spec=spec, handler=handle)
