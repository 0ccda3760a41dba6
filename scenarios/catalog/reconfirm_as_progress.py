"""Reconfirm-as-progress: every turn re-checks something already known and calls it progress.

The checks answer "ok" every time; their arguments vary (an attempt number, a fresh id), the
world does not.
"""

from __future__ import annotations

from functools import cache, partial
from typing import Any

from unsolvable import Call, Claim, Code, Cycle, Perturbed, Scenario, Script, Setup, Steps, ToolSpec
from unsolvable.fake_tools import FakeWorld, Tool, constant_tool, requires
from unsolvable.scenarios.catalog._common import by_seed, scenario, stuck_setup, with_plain
from unsolvable.scenarios.catalog._control import finish, twin

__all__ = ["FAMILY", "SCENARIOS", "make", "twins"]

FAMILY = "reconfirm-as-progress"
STEP_BOUND = 12
"""Each distinct check is news once; three checks plus a detector's window fits well inside."""
CHECKS: dict[str, dict[str, Any]] = {
    "check_database_connection": {"database": "reachable", "latency_ms": 4},
    "check_schema_version": {"schema": "v42", "migrations_pending": 0},
    "check_credentials": {"credentials": "valid"},
}


@cache
def _spec(name: str) -> ToolSpec:
    """One spec per name, built once: every build offers the same object, whose estimate the
    session keeps (`estimate_tool_tokens`)."""
    return ToolSpec(
        name=name,
        description="Confirm that a precondition still holds.",
        parameters={"type": "object", "properties": {"note": {"type": "string"}}},
    )


MIGRATE = ToolSpec(
    name="run_migration",
    description="Run the data migration.",
    parameters={"type": "object", "properties": {"plan": {"type": "string"}}},
)
CHECKS_FIRST = (1, 2, 3)
"""Distinct checks the twin runs before its one double-check (by seed)."""


def _world(seed: int) -> FakeWorld:
    return FakeWorld(failing=requires("migrated", "data migration not run"), seed=seed)


def _check_tools(names: list[str]) -> list[Tool]:
    return [constant_tool(_spec(name), CHECKS[name]) for name in names]


def _check_calls(names: list[str]) -> list[Call]:
    return [
        Call(name=n, arguments={"note": "re-confirming"}, text="Confirmed again — progress")
        for n in names
    ]


def _build(checks: int, perturbation: str | None, seed: int) -> Setup:
    world = _world(seed)
    names = list(CHECKS)[:checks]
    tools = _check_tools(names)
    calls = _check_calls(names)
    script: Script = Cycle(calls=calls)
    if perturbation is not None:
        script = Perturbed(call=calls[0], kind=perturbation, field="note")
    return stuck_setup(world, tools, script, seed=seed)


def make(variant: str, *, checks: int = 3, perturbation: str | None = None) -> Scenario:
    how = (
        f"cycles through {checks} precondition checks, reporting each as progress"
        if perturbation is None
        else f"re-runs one check with {perturbation}, reporting it as progress"
    )
    return scenario(
        family=FAMILY,
        lead=True,
        variant=variant,
        task="Run the data migration once its preconditions hold.",
        how=how,
        why="There is no tool that runs the migration: re-confirming preconditions is all the "
        "model does, and the answers never change.",
        build=partial(_build, checks, perturbation),
        expected={Code.NO_PROGRESS},
        step_bound=STEP_BOUND,
    )


def _build_double_check(seed: int) -> Setup:
    """The checks once each, the last one once more, then the migration."""
    names = list(CHECKS)[: by_seed(CHECKS_FIRST, seed)]
    calls = _check_calls(names)
    migrate = Call(name=MIGRATE.name, arguments={"plan": "v42"}, text="Running the migration")
    script = Steps(calls=[*calls, calls[-1], migrate], then=Claim())
    tools = [*_check_tools(names), finish(MIGRATE, key="migrated", field="plan")]
    return stuck_setup(_world(seed), tools, script, seed=seed)


def twins(sibling: Scenario) -> tuple[Scenario, ...]:
    return (
        twin(
            sibling,
            variant="twin-double-check",
            how=f"runs {'/'.join(map(str, CHECKS_FIRST))} precondition checks (by seed), "
            "double-checks the last one — the same answer again — then runs the migration",
            why="one re-check is prudence, not a loop: real progress follows it.",
            build=_build_double_check,
            needed=max(CHECKS_FIRST) + 3,
        ),
    )


THREE_CHECKS = make("three-checks")
SCENARIOS = (
    THREE_CHECKS,
    make("two-checks", checks=2),
    make("one-check-restyled", checks=1, perturbation="case"),
    *twins(THREE_CHECKS),
)
SCENARIOS = with_plain(SCENARIOS, "two-checks")
