"""Consumes a tool's answer body, produces the `ToolResult` the agent sees and the harness reads."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from unsolvable import ToolResult
from unsolvable._json import sorted_json
from unsolvable.fake_tools._world import FakeWorld

__all__ = ["Canned", "respond"]

REQUEST_ID = "request_id"
ID_PREFIX = "req"
PLACEHOLDER = f"{ID_PREFIX}-00000000"
"""Stands for the fresh id in a `Canned` answer's text: an id of the same form, whose characters
JSON writes as they are, as it writes every id `FakeWorld.volatile_id` makes."""


def respond(world: FakeWorld, body: dict[str, Any], **flags: Any) -> ToolResult:
    """Adds a fresh ``request_id`` to what the agent sees, as real APIs do; the observation the
    harness judges novelty on leaves it out, because the harness knows it is volatile."""
    request_id = world.volatile_id(ID_PREFIX)
    text = sorted_json({**body, REQUEST_ID: request_id})
    return ToolResult(text=text, observation=_without(text, body, request_id), **flags)


def _without(text: str, body: dict[str, Any], request_id: str) -> str:
    """``sorted_json(body)``, cut out of ``text`` rather than encoded a second time (a step's
    tool answer is encoded once). The id's item is found by its exact text, which no
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


class Canned:
    """A body a tool answers again and again (a constant answer, a record looked up, one of a
    scripted series), encoded once when the tool is built: each call then only writes its fresh
    id into the text, where `respond` encodes the body every call, which was the largest part of
    a step's fake world. It answers what `respond` answers, to the character. The body
    is read when the tool is built (tools are built per run)."""

    __slots__ = ("_around", "_body", "_observation")

    def __init__(self, body: Mapping[str, Any]) -> None:
        self._body = dict(body)
        self._observation = sorted_json(self._body)
        around = sorted_json({**self._body, REQUEST_ID: PLACEHOLDER}).split(PLACEHOLDER)
        self._around = (around[0], around[1]) if len(around) == 2 else None
        """The text before and after the id, when the placeholder is found once: then it is
        the id's own value. A body that holds the placeholder's text is encoded every call."""

    def answer(self, world: FakeWorld) -> ToolResult:
        if self._around is None:
            return respond(world, dict(self._body))
        before, after = self._around
        text = f"{before}{world.volatile_id(ID_PREFIX)}{after}"
        return ToolResult(text=text, observation=self._observation)
