"""Consumes polls of a job that takes its time, produces the answers a job API gives while it
waits: queued (with how long to wait before asking again), running with a progress figure that
rises, then done.

The progress a running job makes is stored in the world, so each poll that shows it is a change
of state: the idle time since the last change starts again, while a job that stays queued
changes nothing however long it is waited on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from unsolvable import JSON, ToolResult, ToolSpec
from unsolvable.fake_tools._router import Tool
from unsolvable.fake_tools._world import FakeWorld
from unsolvable.fake_tools.tools._respond import respond

__all__ = ["queued_job_tool"]


def queued_job_tool(
    spec: ToolSpec,
    *,
    key: str,
    queued: int | None,
    progress: Sequence[int] = (),
    result: JSON,
    retry_after: int,
) -> Tool:
    """``queued`` answers of ``{"status": "queued", "retry_after": retry_after}`` (``None``: for
    ever), then one ``running`` answer per figure of ``progress`` (stored under
    ``{key}_progress``), then ``ready`` with ``result``, which is stored under ``key``."""
    polls = [0]  # per tool, and tools are built per run

    def handle(world: FakeWorld, arguments: Mapping[str, Any]) -> ToolResult:
        polls[0] += 1
        poll = polls[0]
        if queued is None or poll <= queued:
            return respond(world, {"status": "queued", "retry_after": retry_after})
        running = poll - queued - 1
        if running < len(progress):
            world.put(f"{key}_progress", progress[running])
            body = {"status": "running", "progress": progress[running], "retry_after": retry_after}
            return respond(world, body)
        world.put(key, result)
        return respond(world, {"status": "ready", **result})

    return Tool(spec=spec, handler=handle)
