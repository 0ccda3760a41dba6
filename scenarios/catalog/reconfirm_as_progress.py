"""Reconfirm-as-progress: every turn re-checks something already known and calls it progress.

The checks answer "ok" every time; their arguments vary (an attempt number, a fresh id), the
world does not. Every scenario of the family offers the migration too: a stale lock that nothing
releases refuses it, and the model never tries it; in the twin the lock is free.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from unsolvable import Call, Claim, Code, Cycle, Perturbed, Scenario, Script, Setup, Steps, ToolSpec
from unsolvable.fake_tools import FakeWorld, Tool, constant_tool, requires
from unsolvable.scenarios.catalog._common import lead, scenario, stuck_setup, with_plain
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


def _spec(name: str) -> ToolSpec:
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
LOCKED = {
    "error": {
        "status": 423,
        "message": "a migration is already running and holds the lock; it has not moved in days",
    }
}
"""What the migration answers where the task cannot be done: a lock no call can release."""


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
    tools = [*_check_tools(names), constant_tool(MIGRATE, LOCKED)]
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
        why="The migration is locked by a run that never ends, and the model never even tries "
        "it: re-confirming preconditions is all it does, and the answers never change.",
        build=partial(_build, checks, perturbation),
        expected={Code.NO_PROGRESS},
        step_bound=STEP_BOUND,
    )


def _build_double_check(checks: int, seed: int) -> Setup:
    """The sibling's round of checks and its first re-check, then the migration."""
    names = list(CHECKS)[:checks]
    calls = _check_calls(names)
    double_checks = [calls[i % len(calls)] for i in range(checks + 1)]
    migrate = Call(name=MIGRATE.name, arguments={"plan": "v42"}, text="Running the migration")
    script = Steps(calls=[*double_checks, migrate], then=Claim())
    tools = [*_check_tools(names), finish(MIGRATE, key="migrated", field="plan")]
    return stuck_setup(_world(seed), tools, script, seed=seed)


def twins(sibling: Scenario, *, checks: int = 3, suffix: str = "") -> tuple[Scenario, ...]:
    """The twin of ``sibling``, a variant made with ``checks`` and no perturbation (its `make`
    arguments), its variant named with ``suffix`` at its end. A perturbed sibling has none: it
    re-runs one check with a perturbed note, and the twin's round of plain checks is not it."""
    double_checked = checks + 1  # each check once, and the first once more, as its sibling
    return (
        twin(
            sibling,
            variant=f"twin-double-check{suffix}",
            how=f"runs the {('one', 'two', 'three')[checks - 1]} precondition "
            f"check{'s' * (checks > 1)}, double-checks the first — the same answer again, as "
            "its sibling's second round begins — then runs the migration",
            why="one re-check is prudence, not a loop: real progress follows it.",
            build=partial(_build_double_check, checks),
            needed=double_checked + 2,
            diverges_at=lambda seed: lead(seed) + double_checked + 1,
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
