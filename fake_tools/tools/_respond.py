"""Consumes a tool's answer body, produces the `ToolResult` the agent sees and the harness reads."""

from __future__ import annotations

from typing import Any

from fake_tools._world import FakeWorld
from harness import ToolResult
from harness._json import sorted_json

__all__ = ["respond"]


def respond(world: FakeWorld, body: dict[str, Any], **flags: Any) -> ToolResult:
    """Adds a fresh ``request_id`` to what the agent sees, as real APIs do; the observation the
    harness judges novelty on leaves it out, because the harness knows it is volatile."""
    observation = sorted_json(body)
    text = sorted_json({**body, "request_id": world.volatile_id("req")})
    return ToolResult(text=text, observation=observation, **flags)
