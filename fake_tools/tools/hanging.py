"""Consumes calls to a dependency that does not answer in time, produces a timeout after the
full wait: each call takes its timeout on the session clock and ends in a 504.

The wait costs no real time (`ToolResult.seconds`), so a run of many timeouts stays fast while
the wall budget it spends is real to the agent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from unsolvable import JSON, ToolResult, ToolSpec
from unsolvable.fake_tools._router import Tool
from unsolvable.fake_tools._world import FakeWorld
from unsolvable.fake_tools.tools._respond import respond

__all__ = ["TIMED_OUT", "hanging_tool"]

TIMED_OUT = "timed_out"
"""The refusal kind of a call that got no answer within its timeout."""


def hanging_tool(
    spec: ToolSpec,
    dependency: str,
    *,
    timeout: int,
    answers_after: int | None = None,
    key: str = "",
    answer: JSON | None = None,
) -> Tool:
    """Waits ``timeout`` seconds, then answers ``504 Gateway Timeout`` for ``dependency``; after
    ``answers_after`` timeouts (``None``: never) it answers ``answer`` at once, stored under
    ``key`` (a cold start that warms up)."""
    calls = [0]  # per tool, and tools are built per run

    def handle(world: FakeWorld, arguments: Mapping[str, Any]) -> ToolResult:
        calls[0] += 1
        if answers_after is not None and calls[0] > answers_after:
            world.put(key, answer)
            return respond(world, dict(answer or {}))
        error = {
            "status": 504,
            "code": "timeout",
            "message": f"504 Gateway Timeout: {dependency} did not answer within {timeout} s",
            "dependency": dependency,
            "timeout_seconds": timeout,
        }
        return respond(world, {"error": error}, refusal=TIMED_OUT, seconds=float(timeout))

    return Tool(spec=spec, handler=handle)
