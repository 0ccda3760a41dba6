"""Long-healthy (a solvable control): a new chapter every step for many steps, then done — long
runs that are making progress, which a step cap or an impatient detector cuts short."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from unsolvable import Call, Claim, Scenario, Setup, Steps, ToolSpec
from unsolvable.fake_tools import FakeWorld, sections_tool
from unsolvable.scenarios.catalog._common import budget, scenario, setup
from unsolvable.scenarios.catalog._control import COMPLETED, SLACK

__all__ = ["SCENARIOS", "long_healthy"]

WRITE = ToolSpec(
    name="write_chapter",
    description="Write one numbered chapter of the handbook.",
    parameters={
        "type": "object",
        "properties": {"number": {"type": "integer"}, "text": {"type": "string"}},
    },
)


TOKENS_PER_STEP_SQUARED = 140
"""The token budget of a run of n steps is 140·n²: each chapter stays in the conversation, so
the spend grows with n²; an agent that also shows the model the still-failing criteria after
every step spends about 70·n² (measured: 69,982 tokens over the 34 steps of 30 chapters), so
it keeps half the budget as headroom. The control tests stop logic, not message frugality
(40·n² left 30-chapters 19 % headroom)."""


def _chapters_missing(total: int) -> Callable[[FakeWorld], list[str]]:
    def failing(world: FakeWorld) -> list[str]:
        written = world.peek("handbook", {})
        return [f"chapter {n} missing" for n in range(1, total + 1) if str(n) not in written]

    return failing


def _build(chapters: int, seed: int) -> Setup:
    world = FakeWorld(failing=_chapters_missing(chapters), seed=seed)
    calls = [
        Call(name=WRITE.name, arguments={"number": n, "text": f"Chapter {n}."}, text="Writing")
        for n in range(1, chapters + 1)
    ]
    tool = sections_tool(WRITE, key="handbook", total=chapters)
    return setup(world, [tool], Steps(calls=calls, then=Claim()), seed=seed)


def long_healthy(variant: str, *, chapters: int) -> Scenario:
    steps = chapters + SLACK
    return scenario(
        family="long-healthy",
        variant=variant,
        task=f"Write the {chapters}-chapter handbook, one chapter per write_chapter call.",
        how=f"writes a new chapter every step for {chapters} steps, then says it is done",
        why="The task is solvable: every step is real progress.",
        build=partial(_build, chapters),
        expected=COMPLETED,
        step_bound=steps,
        budget=budget(steps, tokens=TOKENS_PER_STEP_SQUARED * steps**2),
        solvable=True,
    )


SCENARIOS = (
    long_healthy("16-chapters", chapters=16),
    long_healthy("30-chapters", chapters=30),
)
