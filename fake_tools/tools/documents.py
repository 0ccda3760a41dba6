"""Consumes writes of a document, produces the verdict of each completion criterion on it.

Two criteria that no text can satisfy together make a task whose every write changes the world
and none completes it; `check_tool` lets an agent re-read the system of record before it claims
success.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from unsolvable import ToolResult, ToolSpec
from unsolvable.fake_tools._router import Tool, error_result
from unsolvable.fake_tools._world import FakeWorld
from unsolvable.fake_tools.tools._respond import respond

__all__ = ["Criterion", "check_tool", "failing", "writer_tool"]


@dataclass(frozen=True, kw_only=True)
class Criterion:
    """One completion criterion on the stored text."""

    name: str
    holds: Callable[[str], bool]


def failing(criteria: Sequence[Criterion], text: str | None) -> list[str]:
    """Names of the criteria ``text`` fails (all of them when nothing is stored)."""
    return [c.name for c in criteria if text is None or not c.holds(text)]


def writer_tool(spec: ToolSpec, *, key: str, field: str, criteria: Sequence[Criterion]) -> Tool:
    """Stores ``arguments[field]`` under ``key`` and reports which criteria it fails. The world
    judges the text by those criteria alone: a new text that fails the same ones is no new state
    (and with no criteria, a rewrite is none: only the first write counts)."""

    def handle(world: FakeWorld, arguments: Mapping[str, Any]) -> ToolResult:
        text = str(arguments.get(field, ""))
        fails = failing(criteria, text)
        world.put(key, text, judged_as=fails)
        return respond(world, {"saved": key, "failing_criteria": fails})

    return Tool(spec=spec, handler=handle)


Scope = Callable[[FakeWorld], Sequence[str]]
"""The completion criteria of one subtask that still fail."""


def check_tool(spec: ToolSpec, *, subtasks: Mapping[str, Scope] | None = None) -> Tool:
    """Re-reads the system of record: complete or not, and which criteria still fail.

    With ``subtasks``, a call that passes ``subtask`` (one of its names) reads only that
    subtask's criteria: the per-subtask verifier a worker of a fan-out checks its own work with,
    since the whole task is complete only when every worker is done.
    """
    scopes = dict(subtasks or {})

    def handle(world: FakeWorld, arguments: Mapping[str, Any]) -> ToolResult:
        subtask = arguments.get("subtask")
        if subtask is None:
            failing = world.failing()
        elif isinstance(subtask, str) and subtask in scopes:  # a list is no subtask's name
            failing = list(scopes[subtask](world))
        else:
            return error_result(f"unknown subtask {subtask!r}", subtasks=sorted(scopes))
        return respond(world, {"complete": not failing, "failing": failing})

    return Tool(spec=spec, handler=handle)
