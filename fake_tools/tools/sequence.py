"""Consumes repeated calls, produces a scripted series of answers and then the one that matters:
a cursor that pages, an index that warms up, a search that finds the record at the k-th try —
counted by call, or by the run's step (`ModelSteps`); and a tool that is one until the run's
model moves on, the other from then (`staged_tool`).

The same call gets a different answer each time, which is exactly what separates these solvable
twins from a tool that answers the same thing forever (`constant_tool`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from unsolvable import JSON, Model, ModelRequest, ModelResponse, Setup, ToolResult, ToolSpec
from unsolvable.fake_tools._router import Tool
from unsolvable.fake_tools._world import FakeWorld
from unsolvable.fake_tools.tools._respond import Canned

__all__ = ["ModelSteps", "sequence_tool", "staged_tool"]


class ModelSteps:
    """The step a run's model is answering, kept by the model it `watch`es: for a tool whose
    answers move with the run's steps, as a world moves with time, and not with how often an
    agent calls it — a call the agent repeats of its own accord within a step is answered as
    the step's own was, so no repeat brings a twin's evidence before its divergence step."""

    def __init__(self) -> None:
        self.step = 0

    def watch(self, setup: Setup) -> Setup:
        """``setup`` with its model telling this its step before it answers."""
        return dataclasses.replace(setup, model=_Watched(setup.model, self))

    def since(self, start: int) -> int:
        """Steps the run has taken since step ``start`` (0 during it, and before it)."""
        return max(0, self.step - start)

    def has_reached(self, at: int) -> bool:
        """Whether the run's model has answered step ``at`` or a later one (`staged_tool`)."""
        return self.step >= at


class _Watched:
    """A model that tells `ModelSteps` which step it answers."""

    def __init__(self, model: Model, steps: ModelSteps) -> None:
        self.model, self.steps, self.name = model, steps, model.name

    def respond(self, request: ModelRequest) -> ModelResponse:
        self.steps.step = request.step
        return self.model.respond(request)


def sequence_tool(
    spec: ToolSpec,
    *,
    answers: Sequence[JSON],
    then: JSON,
    steps: ModelSteps | None = None,
    start: int = 1,
) -> Tool:
    """Answers the i-th call with ``answers[i]``, every call after them with ``then``; with
    ``steps``, every call of the i-th step from step ``start`` instead (`ModelSteps.since`)."""
    calls = [0]  # per tool, and tools are built per run: the count is audit, not content
    canned, last = [Canned(answer) for answer in answers], Canned(then)

    def handle(world: FakeWorld, arguments: Mapping[str, Any]) -> ToolResult:
        index, calls[0] = calls[0], calls[0] + 1
        if steps is not None:
            index = steps.since(start)
        return (canned[index] if index < len(canned) else last).answer(world)

    return Tool(spec=spec, handler=handle)


def staged_tool(before: Tool, after: Tool, *, begun: Callable[[], bool]) -> Tool:
    """Answers as ``before`` until ``begun()`` holds, as ``after`` from then: a twin's tool that
    is its sibling's until the twin diverges, however and whenever an agent calls it. ``begun``
    reads the run's own model and, once it holds, holds for good: the step the model answers
    (`ModelSteps.has_reached`), or a move of its script (a hint it heeded)."""
    if before.spec != after.spec:
        raise ValueError(
            f"staged_tool: {before.spec.name!r} and {after.spec.name!r} are offered as one tool: "
            "give both the same ToolSpec"
        )

    def handle(world: FakeWorld, arguments: Mapping[str, Any]) -> ToolResult:
        return (after if begun() else before).handler(world, arguments)

    return Tool(spec=after.spec, handler=handle)
