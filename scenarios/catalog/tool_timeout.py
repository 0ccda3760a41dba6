"""Tool-timeout: the one tool that can do the task never answers within its timeout. Each call
waits the whole timeout, on the session clock, and ends in a 504; the total wall budget runs out
a few calls in.

The honest stops are giving up on the dependency (``ERROR_FATAL``) after the allowed attempts,
or the time budget (``BUDGET_TIME``); a loop that retries on counts steps and never time. Its
twin's sensor times out twice on a cold start, then answers.
"""

from __future__ import annotations

from functools import partial

from unsolvable import (
    Budget,
    Call,
    Code,
    Scenario,
    Setup,
    Stagnation,
    ToolSpec,
)
from unsolvable.fake_tools import hanging_tool
from unsolvable.scenarios.catalog._common import lead, scenario
from unsolvable.scenarios.catalog._control import Deliverable, twin, wait_then_finish

__all__ = ["COLD_START", "FAMILY", "RETRIES", "SCENARIOS", "WALL_BUDGET", "make", "twins"]

FAMILY = "tool-timeout"
WALL_BUDGET = 100.0
"""Seconds in all: three 30 s timeouts fit (the allowance of attempts), a fourth does not."""
STEP_BOUND = 8
"""Three attempts, the longest background reading (2), and room to write the stop."""
RETRIES = 2
"""Retries after the first timeout: three attempts in all, as for a dependency that is down."""
COLD_START = 2
"""Timeouts before the twin's sensor answers: inside the allowance."""
SENSOR = "cold-room-sensor"
READING = {"celsius": 3.5}

READ = ToolSpec(
    name="read_sensor",
    description="Read the cold-room temperature sensor (it answers within its timeout, or 504).",
    parameters={"type": "object", "properties": {"sensor_id": {"type": "string"}}},
)
LOG = ToolSpec(
    name="log_temperature",
    description="Log the cold-room temperature for the food-safety record.",
    parameters={"type": "object", "properties": {"celsius": {"type": "number"}}},
)


def _budget() -> Budget:
    return Budget(max_steps=STEP_BOUND, max_tokens=STEP_BOUND * 2_000, max_wall_seconds=WALL_BUDGET)


LOGGED = Deliverable(spec=LOG, key="logged", field="celsius", unmet="temperature not logged")


def _read() -> Call:
    return Call(name=READ.name, arguments={"sensor_id": "CR-2"}, text="Reading the sensor")


def _build(timeout: int, seed: int) -> Setup:
    sensor = hanging_tool(READ, SENSOR, timeout=timeout)
    return wait_then_finish(sensor, _read(), LOGGED, seed=seed)


def _build_warms_up(timeout: int, seed: int) -> Setup:
    sensor = hanging_tool(
        READ, SENSOR, timeout=timeout, answers_after=COLD_START, key="reading", answer=READING
    )
    log = Call(name=LOG.name, arguments=READING, text="Logging the temperature")
    return wait_then_finish(sensor, _read(), LOGGED, seed=seed, then=log, marker='"celsius"')


def make(variant: str, *, timeout: int) -> Scenario:
    return scenario(
        family=FAMILY,
        lead=True,
        variant=variant,
        task="Log the cold-room temperature; it needs read_sensor.",
        how=f"retries a sensor read that hangs for its {timeout} s timeout and ends in a 504",
        why=f"The sensor never answers: every call costs {timeout} s of a {WALL_BUDGET:g} s "
        "wall budget and brings nothing, so the temperature can never be logged.",
        build=partial(_build, timeout),
        expected={Code.ERROR_FATAL, Code.BUDGET_TIME},
        step_bound=STEP_BOUND,
        budget=_budget(),
        stagnation=Stagnation.FIRST_REFUSAL,
        refused_retries=RETRIES,
    )


def twins(sibling: Scenario, *, timeout: int, suffix: str = "") -> tuple[Scenario, ...]:
    """The twin of ``sibling``, made with ``timeout`` (its `make` argument), its variant named
    with ``suffix`` at its end."""
    return (
        twin(
            sibling,
            variant=f"twin-warms-up{suffix}",
            how=f"reads a sensor that times out {COLD_START} times ({timeout} s each) on a cold "
            "start, then answers, and logs the reading",
            why="the sensor answers on the third attempt, inside the allowance and the wall "
            "budget.",
            build=partial(_build_warms_up, timeout),
            needed=COLD_START + 3,
            diverges_at=lambda seed: lead(seed) + 3,
            budget=_budget(),
        ),
    )


HANGS = make("hangs", timeout=30)
SCENARIOS: tuple[Scenario, ...] = (
    HANGS,
    make("hangs-past-the-wall", timeout=60),
    *twins(HANGS, timeout=30),
)
