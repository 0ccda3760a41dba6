"""Consumes what the model said and asked for at each step and the tool calls the agent made after
it, produces the run's trajectory and the tail that failure messages show."""

from __future__ import annotations

from dataclasses import dataclass, field

from unsolvable._observed import ToolTrace, TraceStep
from unsolvable._text import cut, cut_counted

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
    """A step under way: it takes its agent's tool calls until that agent's next step begins."""

    step: int
    agent: str
    said: str
    calls: tuple[ToolTrace, ...]
    tools: list[ToolTrace] = field(default_factory=list)

    def closed(self) -> TraceStep:
        return TraceStep(
            step=self.step,
            agent=self.agent,
            said=self.said,
            calls=self.calls,
            tools=tuple(self.tools),
        )


class Trajectory:
    """Every step of one run, its texts cut to `TRAJECTORY_CUT` as they come (the ceilings bound
    how many steps there are). Each agent's step stays open for its tool calls, whatever other
    agents do in between."""

    def __init__(self) -> None:
        self._steps: list[TraceStep] = []
        self._open: dict[str, _OpenStep] = {}

    def step(self, step: int, said: str | None, asked: list[tuple[str, str]], agent: str) -> None:
        """Begins ``agent``'s step ``step``: the model's text and the name and canonical
        arguments of each tool call it asked for."""
        self.close(agent)
        calls = tuple(
            ToolTrace(name=name, arguments=arguments, result="") for name, arguments in asked
        )
        said = cut(said or "", TRAJECTORY_CUT)
        self._open[agent] = _OpenStep(step=step, agent=agent, said=said, calls=calls)

    def tool(
        self, step: int, name: str, arguments: str, result: str, world: str, agent: str
    ) -> None:
        """A tool call ``agent`` made during its step (``step``, the run's count, when it has
        none open: 0 before the first), with the world's fingerprint after it."""
        opened = self._open.get(agent)
        if opened is None:  # a call before any step, or after a step closed by `finish`
            opened = self._open[agent] = _OpenStep(step=step, agent=agent, said="", calls=())
        trace = ToolTrace(
            name=name,
            arguments=cut_counted(arguments, TRAJECTORY_CUT),  # counted whole, kept cut
            result=cut(result, TRAJECTORY_CUT),
            world=world,
        )
        opened.tools.append(trace)

    def close(self, agent: str) -> None:
        opened = self._open.pop(agent, None)
        if opened is not None:
            self._steps.append(opened.closed())

    def traces(self) -> tuple[tuple[TraceStep, ...], tuple[TraceStep, ...]]:
        """The tail (texts cut to `TEXT_CUT`) and every step, in step order: agents close their
        steps as they call again, not in step order."""
        for agent in list(self._open):
            self.close(agent)
        steps = tuple(sorted(self._steps, key=lambda step: step.step))
        return tuple(_recut(step) for step in steps[-TAIL_STEPS:]), steps


def _recut(step: TraceStep) -> TraceStep:
    """``step`` with its model text and tool results cut to one line each."""
    tools = tuple(
        ToolTrace(name=t.name, arguments=t.arguments, result=cut(t.result, TEXT_CUT), world=t.world)
        for t in step.tools
    )
    said = cut(step.said, TEXT_CUT)
    return TraceStep(step=step.step, agent=step.agent, said=said, calls=step.calls, tools=tools)
