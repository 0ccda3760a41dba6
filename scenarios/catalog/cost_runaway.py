"""Cost-runaway: each page the model reads is new and long, and the conversation keeps growing.

Input tokens grow with every step, so cost is quadratic in steps: the token budget must end the
run (``BUDGET_COST``) long before a step cap would.
"""

from __future__ import annotations

from functools import partial

from fake_tools import FakeWorld, pages_tool
from harness import Budget, Call, Code, Perturbed, Scenario, Setup, Stagnation, ToolSpec
from scenarios.catalog._common import scenario, setup

__all__ = ["FAMILY", "SCENARIOS", "make"]

FAMILY = "cost-runaway"
STEP_CAP = 40
"""A step budget generous enough that only the token budget can bind."""
READ = ToolSpec(
    name="read_log_page",
    description="Read one page of the service log.",
    parameters={"type": "object", "properties": {"page": {"type": "integer"}}},
)


def _failing(world: FakeWorld) -> list[str]:
    read = len(world.peek("pages_read", []))
    return [f"root cause not found ({read} pages read; the log keeps growing)"]


def _build(lines: int, seed: int) -> Setup:
    world = FakeWorld(failing=_failing, seed=seed)
    call = Call(name=READ.name, arguments={"page": 1}, text="Reading the next log page")
    script = Perturbed(call=call, kind="offset", field="page")
    return setup(
        world, [pages_tool(READ, key="pages_read", lines_per_page=lines)], script, seed=seed
    )


def make(variant: str, *, lines: int, max_tokens: int) -> Scenario:
    return scenario(
        family=FAMILY,
        variant=variant,
        task="Find the root cause of last night's outage in the service log.",
        how=f"reads one new {lines}-line log page per step, each moving its progress count",
        why="The log is endless and holds no root cause: the observations and even the "
        "criteria's progress count are new at every step, and only spend grows.",
        build=partial(_build, lines),
        expected={Code.BUDGET_COST},
        step_bound=STEP_CAP,
        budget=Budget(max_steps=STEP_CAP, max_tokens=max_tokens),
        stagnation=Stagnation.BUDGET_SPENT,
    )


SCENARIOS = (
    make("long-pages", lines=30, max_tokens=40_000),
    make("huge-pages", lines=80, max_tokens=60_000),
)
