"""Consumes calls to dependencies that take their time, produces waiting answers, then results.

A job that is ``pending`` k times before it is ``ready``, and a dependency that answers 503 k
times (with a Retry-After hint) before it recovers: legitimate repetition that a naive loop
detector kills. With k never reached they become unsolvable (503 forever is `unavailable_tool`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from unsolvable import JSON, ToolResult, ToolSpec
from unsolvable.fake_tools._router import Tool
from unsolvable.fake_tools._world import FakeWorld
from unsolvable.fake_tools.tools._respond import respond
from unsolvable.fake_tools.tools.sequence import ModelSteps
from unsolvable.fake_tools.tools.unavailable import UNAVAILABLE, outage

__all__ = ["flaky_tool", "job_tool"]

RETRY_AFTER_SECONDS = 1
"""The hint a recovering dependency sends. Waiting on `Session.sleep` is free; an agent that
sleeps for real waits a second per 503, which the scenarios' wall budgets cover."""


def job_tool(spec: ToolSpec, *, key: str, pending: int, result: JSON) -> Tool:
    """``pending`` answers of ``{"status": "pending"}``, then ``ready`` with ``result``, which
    is also stored under ``key`` (the job's output now exists in the world)."""

    polls = Counter[str]()  # per tool, and tools are built per run: polls are audit, not content

    def handle(world: FakeWorld, arguments: Mapping[str, Any]) -> ToolResult:
        polls[key] += 1
        if polls[key] <= pending:
            return respond(world, {"status": "pending"})
        world.put(key, result)
        return respond(world, {"status": "ready", **result})

    return Tool(spec=spec, handler=handle)


def flaky_tool(
    spec: ToolSpec,
    *,
    key: str,
    failures: int | None,
    answer: JSON,
    dependency: str,
    retry_after: int | None = RETRY_AFTER_SECONDS,
    steps: ModelSteps | None = None,
    start: int = 1,
) -> Tool:
    """``failures`` 503s (``None``: for ever, each saying when to come back), then ``answer``
    (stored under ``key``). With ``retry_after=None`` the 503s carry no hint and are, byte for
    byte, those of a dependency that is down for good (`unavailable_tool`) until it recovers.
    With ``steps``, the dependency is down for ``failures`` steps from step ``start``, however
    often it is called in them (`ModelSteps`)."""

    calls = Counter[str]()

    def handle(world: FakeWorld, arguments: Mapping[str, Any]) -> ToolResult:
        calls[key] += 1
        tries = calls[key] if steps is None else steps.since(start) + 1
        if failures is None or tries <= failures:
            return respond(world, outage(dependency, retry_after), refusal=UNAVAILABLE)
        world.put(key, answer)
        return respond(world, answer)

    return Tool(spec=spec, handler=handle)
