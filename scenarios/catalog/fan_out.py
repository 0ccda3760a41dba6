"""Fan-out: a supervisor hands subtasks to workers, and every worker gets stuck.

Per-agent caps multiply under fan-out (25 × 25); only a budget shared by the whole run bounds it.
Steps are counted across all agents (``steps_by_agent`` splits them).
"""

from __future__ import annotations

from functools import partial

from fake_tools import FakeWorld, constant_tool, requires
from harness import Call, Code, FanOut, Repeat, Scenario, Setup, ToolSpec
from scenarios.catalog._common import DELEGATE, scenario, setup

__all__ = ["FAMILY", "SCENARIOS", "make"]

FAMILY = "fan-out"
STEPS_PER_WORKER = 5
"""What the run-wide budget allows each worker on average: enough to notice one is stuck."""
LOOKUP = ToolSpec(
    name="lookup_supplier",
    description="Look up a supplier's compliance file.",
    parameters={"type": "object", "properties": {"supplier": {"type": "string"}}},
)


def _build(workers: int, seed: int) -> Setup:
    world = FakeWorld(failing=requires("audit_filed", "supplier audit not filed"), seed=seed)
    tools = [
        constant_tool(LOOKUP, {"file": None, "status": "no compliance file on record"}),
        constant_tool(DELEGATE, {"error": "delegate runs in the agent's own worker runtime"}),
    ]
    lookup = Call(name=LOOKUP.name, arguments={"supplier": "S-1"}, text="Looking up the file")
    script = FanOut(
        delegate=Call(name=DELEGATE.name, text="Splitting the audit across workers"),
        field="subtask",
        subtasks=[f"audit supplier S-{i}" for i in range(1, workers + 1)],
        worker=Repeat(call=lookup),
    )
    return setup(world, tools, script, seed=seed)


def make(variant: str, *, workers: int) -> Scenario:
    bound = workers * STEPS_PER_WORKER + 1
    return scenario(
        family=FAMILY,
        variant=variant,
        task=f"Audit the compliance files of {workers} suppliers; delegate one per worker.",
        how=f"as supervisor, delegates {workers} subtasks every step; each worker repeats a "
        "lookup that finds nothing",
        why="No supplier has a compliance file on record, so no audit can be filed.",
        build=partial(_build, workers),
        expected={Code.NO_PROGRESS, Code.BUDGET_STEPS},
        step_bound=bound,
    )


SCENARIOS = (make("four-workers", workers=4), make("eight-workers", workers=8))
