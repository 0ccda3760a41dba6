"""Consumes a tool's answer body, produces the `ToolResult` the agent sees and the harness reads."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from unsolvable import ToolResult
from unsolvable._json import sorted_json
from unsolvable.fake_tools._world import FakeWorld

__all__ = ["Canned", "respond"]

REQUEST_ID = "request_id"
ID_PREFIX = "req"


def respond(
    world: FakeWorld,
    body: dict[str, Any],
    *,
    echoed: Mapping[str, Any] | None = None,
    **flags: Any,
) -> ToolResult:
    """Adds a fresh ``request_id`` to what the agent sees, as real APIs do; the observation the
    harness judges novelty on leaves it out, because the harness knows it is volatile. It leaves
    out ``echoed`` too, the agent's own input said back (the mode applied, the pattern searched):
    repeating what the agent sent tells it nothing, and would make every new input news."""
    request_id = world.volatile_id(ID_PREFIX)
    text = sorted_json({**body, **(echoed or {}), REQUEST_ID: request_id})
    return ToolResult(text=text, observation=sorted_json(body), **flags)


class Canned:
    """A body a tool answers again and again (a constant answer, a record looked up, one of a
    scripted series), each time with a fresh id (`respond`). It is copied when the tool is built
    (tools are built per run), so changing the body it was built from changes no answer."""

    __slots__ = ("_body",)

    def __init__(self, body: Mapping[str, Any]) -> None:
        self._body = copy.deepcopy(dict(body))

    def answer(self, world: FakeWorld) -> ToolResult:
        return respond(world, self._body)
