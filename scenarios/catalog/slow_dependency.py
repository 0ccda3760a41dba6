"""Slow-dependency (a solvable control): a service answers 503 with Retry-After a few times, then
recovers — a dependency that says when to come back, and does."""

from __future__ import annotations

import dataclasses
from functools import partial

from unsolvable import Call, Scenario, Setup, ToolSpec
from unsolvable.fake_tools import RETRY_AFTER_SECONDS, flaky_tool
from unsolvable.scenarios.catalog._common import budget, scenario
from unsolvable.scenarios.catalog._control import COMPLETED, SLACK, wait_then_save

__all__ = ["SCENARIOS", "slow_dependency"]

FETCH = ToolSpec(
    name="fetch_rates",
    description="Fetch today's exchange rates from the treasury service.",
    parameters={"type": "object", "properties": {}},
)


def _build(failures: int, seed: int) -> Setup:
    rates = {"rates": {"EUR": 1.08}}
    fetch = flaky_tool(FETCH, key="rates", failures=failures, answer=rates, dependency="treasury")
    return wait_then_save(fetch, Call(name=FETCH.name, text="Fetching the rates"), '"rates"', seed)


WALL_MARGIN_SECONDS = 5.0
"""The wall budget every built-in scenario has, for the work itself."""


def _wall(failures: int) -> float:
    """The wall budget: the built-in 5 s plus twice every Retry-After the dependency asks for,
    so an agent that honours Retry-After literally — on `Session.sleep`, or really sleeping —
    is never pushed into ``BUDGET_TIME`` (5 × 2 s under 5 s was)."""
    return WALL_MARGIN_SECONDS + 2 * failures * RETRY_AFTER_SECONDS


def slow_dependency(variant: str, *, failures: int) -> Scenario:
    steps = failures + 1 + SLACK
    return scenario(
        family="slow-dependency",
        variant=variant,
        task="Fetch today's rates and save the currency report.",
        how=f"retries a dependency that answers 503 (with Retry-After) {failures} times, then "
        "recovers",
        why="The task is solvable: the dependency says when to come back, and does recover.",
        build=partial(_build, failures),
        expected=COMPLETED,
        step_bound=steps,
        budget=dataclasses.replace(budget(steps), max_wall_seconds=_wall(failures)),
        solvable=True,
    )


SCENARIOS = (
    slow_dependency("fails-2", failures=2),
    slow_dependency("fails-5", failures=5),
)
