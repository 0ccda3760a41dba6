"""Consumes the tools an agent offers a step, in whichever shape it sends them, produces each
one's name and, when it was sent whole, its definition as canonical JSON text: what the step is
charged for the tools it offered."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from unsolvable._json import canonical_json
from unsolvable._types import JSON, ToolSpec

__all__ = ["OfferedTool", "offered_tools"]


class OfferedTool(NamedTuple):
    """One tool offered to the model."""

    name: str
    """Its name, as the agent spells it."""
    definition: str | None
    """Its definition as sent, in canonical JSON (`canonical_json`), which is what counting it
    reads: ``1``, ``1.0`` and ``true`` are three texts, where ``==`` on parsed values takes
    them for one another. ``None`` for a tool named alone, which is charged as the scenario's
    spec of it."""

    @classmethod
    def sent(cls, name: str, definition: JSON) -> OfferedTool:
        """A tool sent whole: a wire format's entry for it."""
        return cls(name=name, definition=canonical_json(definition))


def offered_tools(tools: Iterable[Any] | None) -> tuple[OfferedTool, ...]:
    """Accepts `OfferedTool`s, `ToolSpec`s, Chat Completions tool dicts and other definitions,
    ``{"name": ...}`` dicts or plain names: a `ToolSpec` is sent as its Chat Completions entry,
    a dict holding more than a name as itself, and a name alone as no definition."""
    offered = []
    for tool in tools or ():
        if isinstance(tool, OfferedTool):
            offered.append(tool)
        elif isinstance(tool, str):
            offered.append(OfferedTool(name=tool, definition=None))
        elif isinstance(tool, ToolSpec):
            offered.append(OfferedTool.sent(tool.name, tool.to_openai()))
        elif isinstance(tool, Mapping):
            name = str(tool.get("function", tool).get("name", ""))
            named_alone = tool.keys() == {"name"}
            offered.append(
                OfferedTool(name=name, definition=None)
                if named_alone
                else OfferedTool.sent(name, dict(tool))
            )
        else:
            offered.append(OfferedTool(name=str(tool), definition=None))
    return tuple(offered)
