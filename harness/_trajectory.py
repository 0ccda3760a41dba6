"""Consumes what the model said and asked for at each step and the tool calls the agent made after
it, produces the run's trajectory and the tail that failure messages show."""

from __future__ import annotations

from dataclasses import dataclass, field

from unsolvable._record import ToolTrace, TraceStep
from unsolvable._text import cut

__all__ = ["TAIL_STEPS", "TEXT_CUT", "TRAJECTORY_CUT", "Trajectory"]

TAIL_STEPS = 6
"""Steps kept for failure messages: enough to show a loop's period (A/B needs 2, todo-spawn 3+)."""
TEXT_CUT = 160
"""Characters of model text and tool results kept per trace entry: one readable line."""
TRAJECTORY_CUT = 4000
"""Characters of model text and tool results kept per step of the full trajectory: whole API
answers (a 403 body is about 250), so an exported trace replays as it ran."""


@dataclass(kw_only=True, slots=True)
class _OpenStep:
    """The step under way: it takes the agent's tool calls until the next step begins."""

    step: int
    said: str
    calls: tuple[ToolTrace, ...]
    tools: list[ToolTrace] = field(default_factory=list)

    def closed(self) -> TraceStep:
        return TraceStep(step=self.step, said=self.said, calls=self.calls, tools=tuple(self.tools))


class Trajectory:
    """Every step of one run, its texts cut to `TRAJECTORY_CUT` as they come (the ceilings bound
    how many steps there are)."""

    def __init__(self) -> None:
        self._steps: list[TraceStep] = []
        self._open: _OpenStep | None = None

    def step(self, step: int, said: str | None, asked: list[tuple[str, str]]) -> None:
        """Begins step ``step``: the model's text and the name and canonical arguments of each
        tool call it asked for."""
        self.close()
        calls = tuple(
            ToolTrace(name=name, arguments=arguments, result="") for name, arguments in asked
        )
        self._open = _OpenStep(step=step, said=cut(said or "", TRAJECTORY_CUT), calls=calls)

    def tool(self, step: int, name: str, arguments: str, result: str, world: str) -> None:
        """A tool call the agent made during step ``step`` (0 before the first), with the world's
        fingerprint after it."""
        if self._open is None:  # a call before any step, or after a step closed by `finish`
            self._open = _OpenStep(step=step, said="", calls=())
        trace = ToolTrace(
            name=name, arguments=arguments, result=cut(result, TRAJECTORY_CUT), world=world
        )
        self._open.tools.append(trace)

    def close(self) -> None:
        if self._open is not None:
            self._steps.append(self._open.closed())
            self._open = None

    def traces(self) -> tuple[tuple[TraceStep, ...], tuple[TraceStep, ...]]:
        """The tail (texts cut to `TEXT_CUT`) and every step."""
        self.close()
        steps = tuple(self._steps)
        return tuple(_recut(step) for step in steps[-TAIL_STEPS:]), steps


def _recut(step: TraceStep) -> TraceStep:
    """``step`` with its model text and tool results cut to one line each."""
    tools = tuple(
        ToolTrace(name=t.name, arguments=t.arguments, result=cut(t.result, TEXT_CUT), world=t.world)
        for t in step.tools
    )
    return TraceStep(step=step.step, said=cut(step.said, TEXT_CUT), calls=step.calls, tools=tools)
