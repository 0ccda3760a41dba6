"""Consumes an agent's tool call, produces the matching route's `ToolResult` and keeps the call.

Modelled on respx's router: ordered routes, each with its own call list, so a test can ask which
tools were called and how often.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from unsolvable import ToolResult, ToolSpec
from unsolvable._json import sorted_json
from unsolvable.fake_tools._world import FakeWorld

__all__ = ["Tool", "ToolCallLog", "ToolRouter", "error_result"]

Handler = Callable[[FakeWorld, Mapping[str, Any]], ToolResult]


@dataclass(frozen=True, kw_only=True)
class ToolCallLog:
    """One call a route answered, as the route keeps it for assertions."""

    arguments: dict[str, Any]
    result: ToolResult


CALL_LOG = 100
"""Calls a route keeps for assertions: plenty for a test, and a 10,000-step runaway no longer
keeps 8.6 MB of them; the count is exact either way."""


@dataclass(kw_only=True)
class Tool:
    """A route: a tool spec and the handler that answers it against the world."""

    spec: ToolSpec
    handler: Handler
    calls: deque[ToolCallLog] = field(default_factory=lambda: deque(maxlen=CALL_LOG))
    """The most recent calls, for assertions; `call_count` counts them all."""
    call_count: int = 0
    refuses_every_call: bool = False
    """Every call is refused, whatever its arguments and whenever it is made (a registry that
    holds no record): what a call of it left unmade would have answered is known."""

    @property
    def called(self) -> bool:
        return self.call_count > 0


def error_result(message: str, **details: Any) -> ToolResult:
    """A tool-level error returned as text, the way real tool runtimes report bad calls."""
    text = sorted_json({"error": {"message": message, **details}})
    return ToolResult(text=text, observation=text)


class ToolRouter:
    """The toolbox of one run: routes bound to one `FakeWorld`."""

    __test__ = False

    def __init__(self, world: FakeWorld, tools: Sequence[Tool]) -> None:
        names = [tool.spec.name for tool in tools]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(
                f"ToolRouter: tool name(s) {duplicates} given twice; names must be unique"
            )
        self.world = world
        self.routes = {tool.spec.name: tool for tool in tools}

    @property
    def specs(self) -> list[ToolSpec]:
        return [tool.spec for tool in self.routes.values()]

    def __getitem__(self, name: str) -> Tool:
        return self.routes[name]

    def call(self, name: str, arguments: Mapping[str, Any]) -> ToolResult:
        tool = self.routes.get(name)
        if tool is None:
            return error_result(f"unknown tool {name!r}", available=sorted(self.routes))
        result = tool.handler(self.world, arguments)
        if not isinstance(result, ToolResult):  # the scenario's bug, named as such by the session
            raise TypeError(
                f"its handler returned {type(result).__name__} ({result!r}), not a ToolResult: "
                "return respond(world, body) or error_result(message), from unsolvable.fake_tools"
            )
        tool.calls.append(ToolCallLog(arguments=dict(arguments), result=result))
        tool.call_count += 1
        return result
