"""Reconfirm-as-progress: every turn re-checks something already known and calls it progress.

The checks answer "ok" every time; their arguments vary (an attempt number, a fresh id), the
world does not.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from fake_tools import FakeWorld, constant_tool, requires
from harness import Call, Code, Cycle, Perturbed, Scenario, Script, Setup, ToolSpec
from scenarios.catalog._common import scenario, setup

__all__ = ["FAMILY", "SCENARIOS", "make"]

FAMILY = "reconfirm-as-progress"
STEP_BOUND = 12
"""Each distinct check is news once; three checks plus a detector's window fits well inside."""
CHECKS: dict[str, dict[str, Any]] = {
    "check_database_connection": {"database": "reachable", "latency_ms": 4},
    "check_schema_version": {"schema": "v42", "migrations_pending": 0},
    "check_credentials": {"credentials": "valid"},
}


def _spec(name: str) -> ToolSpec:
    return ToolSpec(
        name=name,
        description="Confirm that a precondition still holds.",
        parameters={"type": "object", "properties": {"note": {"type": "string"}}},
    )


def _build(checks: int, perturbation: str | None, seed: int) -> Setup:
    world = FakeWorld(failing=requires("migrated", "data migration not run"), seed=seed)
    names = list(CHECKS)[:checks]
    tools = [constant_tool(_spec(name), CHECKS[name]) for name in names]
    calls = [
        Call(name=n, arguments={"note": "re-confirming"}, text="Confirmed again — progress")
        for n in names
    ]
    script: Script = Cycle(calls=calls)
    if perturbation is not None:
        script = Perturbed(call=calls[0], kind=perturbation, field="note")
    return setup(world, tools, script, seed=seed)


def make(variant: str, *, checks: int = 3, perturbation: str | None = None) -> Scenario:
    how = (
        f"cycles through {checks} precondition checks, reporting each as progress"
        if perturbation is None
        else f"re-runs one check with {perturbation}, reporting it as progress"
    )
    return scenario(
        family=FAMILY,
        variant=variant,
        task="Run the data migration once its preconditions hold.",
        how=how,
        why="There is no tool that runs the migration: re-confirming preconditions is all the "
        "model does, and the answers never change.",
        build=partial(_build, checks, perturbation),
        expected={Code.NO_PROGRESS},
        step_bound=STEP_BOUND,
    )


SCENARIOS = (
    make("three-checks"),
    make("two-checks", checks=2),
    make("one-check-restyled", checks=1, perturbation="case"),
)
