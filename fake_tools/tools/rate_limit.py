"""Consumes any call, produces a 429 forever: a shared quota spent for every window the run can
reach, each answer saying when to come back."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from unsolvable import JSON, ToolResult, ToolSpec
from unsolvable.fake_tools._router import Tool
from unsolvable.fake_tools._world import FakeWorld
from unsolvable.fake_tools.tools._respond import respond

__all__ = ["RATE_LIMITED", "rate_limited_tool"]

RATE_LIMITED = "rate_limited"
"""The refusal kind of a call over a dependency's rate limit (429-style)."""


def _over_quota(dependency: str, retry_after: int) -> JSON:
    """The body of a 429 from ``dependency``: its quota for this window is spent, and its
    Retry-After hint says when the next window opens."""
    return {
        "error": {
            "status": 429,
            "code": "rate_limited",
            "message": f"429 Too Many Requests: the request quota of {dependency} is spent "
            "for this window",
            "dependency": dependency,
            "retry_after": retry_after,
        }
    }


def rate_limited_tool(spec: ToolSpec, dependency: str, *, retry_after: int) -> Tool:
    """Answers ``429 Too Many Requests`` for ``dependency`` on every call, each with the same
    ``retry_after``: the quota every caller shares stays spent, however long one waits."""
    body = _over_quota(dependency, retry_after)

    def handle(world: FakeWorld, arguments: Mapping[str, Any]) -> ToolResult:
        return respond(world, body, refusal=RATE_LIMITED)

    return Tool(spec=spec, handler=handle)
