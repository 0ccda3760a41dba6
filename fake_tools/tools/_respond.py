"""Consumes a tool's answer body, produces the `ToolResult` the agent sees and the harness reads."""

from __future__ import annotations

import json
from typing import Any

from fake_tools._world import FakeWorld
from harness import ToolResult

__all__ = ["respond"]


def respond(world: FakeWorld, body: dict[str, Any], **flags: Any) -> ToolResult:
    """Adds a fresh ``request_id`` to what the agent sees, as real APIs do; the observation the
    harness judges novelty on leaves it out, because the harness knows it is volatile."""
    observation = json.dumps(body, sort_keys=True)
    text = json.dumps({**body, "request_id": world.volatile_id("req")}, sort_keys=True)
    return ToolResult(text=text, observation=observation, **flags)
