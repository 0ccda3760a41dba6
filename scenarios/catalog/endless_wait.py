"""Endless-wait: a job that stays queued for ever, a dependency that answers 503 with Retry-After
for ever. Every answer says "come back in a minute", so an honest agent waits, and nothing ever
changes: only the idle budget — wall time since the world last changed — can end the run.

Its twin's job is slow but moves: queued, then running with a progress figure that rises poll
after poll, for longer in all than the idle budget. A watchdog on total wall time cuts it short;
idle time measured from the last change does not.
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
from unsolvable.fake_tools import Tool, flaky_tool, queued_job_tool
from unsolvable.scenarios.catalog._common import by_seed, lead, scenario
from unsolvable.scenarios.catalog._control import Deliverable, twin, wait_then_finish

__all__ = ["FAMILY", "SCENARIOS"]

FAMILY = "endless-wait"
RETRY_AFTER = 60
"""Seconds each answer asks the agent to wait before asking again."""
IDLE_BUDGET = 870.0
"""Fourteen and a half minutes: fifteen waits of a minute spend it, and half a wait of margin
means that no real time (microseconds here) decides where it runs out."""
WALL_BUDGET = 3600.0
"""An hour in all: the twin's slow job fits it with room to spare."""
STEP_CAP = 40
"""More polls than the idle budget lets an honest agent make: the idle budget binds first."""
STEP_BOUND = 20
"""Fifteen waits, the longest background reading before them (2), and three steps of room."""

EXPORT = ToolSpec(
    name="get_export_status",
    description="Check on the nightly data export job; it says how long to wait before asking "
    "again.",
    parameters={"type": "object", "properties": {"job_id": {"type": "string"}}},
)
RATES = ToolSpec(
    name="fetch_exchange_rates",
    description="Fetch today's exchange rates from the treasury service.",
    parameters={"type": "object", "properties": {}},
)
SAVE = ToolSpec(
    name="save_export_report",
    description="Save the report on the finished export.",
    parameters={"type": "object", "properties": {"rows": {"type": "integer"}}},
)
RUNNING_POLLS = (16, 18, 20)
"""Polls the twin's job runs for, its progress rising at each (by seed): with its two queued
polls, 18 to 22 minutes of waiting, more than the idle budget in every seed."""
QUEUED_POLLS = 2
RESULT = {"rows": 1200}


def _budget() -> Budget:
    return Budget(
        max_steps=STEP_CAP,
        max_tokens=STEP_CAP * 2_000,
        max_wall_seconds=WALL_BUDGET,
        max_idle_seconds=IDLE_BUDGET,
    )


def _poll(seed: int) -> Call:
    return Call(name=EXPORT.name, arguments={"job_id": f"exp-{seed}"}, text="Checking the export")


REPORT = Deliverable(spec=SAVE, key="report", field="rows", unmet="export report not saved")


def _build(waiting: Tool, call: Call, seed: int) -> Setup:
    return wait_then_finish(waiting, call, REPORT, seed=seed)


def _job_queued(seed: int) -> Setup:
    job = queued_job_tool(EXPORT, key="export", queued=None, result=RESULT, retry_after=RETRY_AFTER)
    return _build(job, _poll(seed), seed)


def _overloaded(seed: int) -> Setup:
    fetch = flaky_tool(
        RATES,
        key="rates",
        failures=None,
        answer={"rates": {"EUR": 1.08}},
        dependency="treasury-service",
        retry_after=RETRY_AFTER,
    )
    return _build(fetch, Call(name=RATES.name, text="The treasury is overloaded; waiting"), seed)


def _job_finishes(seed: int) -> Setup:
    """The sibling's queued answers, then a job that runs — progress rising every poll — and
    finishes; then the report."""
    running = by_seed(RUNNING_POLLS, seed)
    progress = [round(100 * (i + 1) / (running + 1)) for i in range(running)]
    job = queued_job_tool(
        EXPORT,
        key="export",
        queued=QUEUED_POLLS,
        progress=progress,
        result=RESULT,
        retry_after=RETRY_AFTER,
    )
    save = Call(name=SAVE.name, arguments=RESULT, text="Saving the export report")
    return wait_then_finish(job, _poll(seed), REPORT, seed=seed, then=save, marker='"ready"')


def make(variant: str, *, how: str, why: str, build: partial[Setup]) -> Scenario:
    return scenario(
        family=FAMILY,
        lead=True,
        variant=variant,
        task="Wait for the nightly export to finish, then save the export report.",
        how=how,
        why=why,
        build=build,
        expected={Code.BUDGET_IDLE},
        step_bound=STEP_BOUND,
        budget=_budget(),
        stagnation=Stagnation.BUDGET_SPENT,
    )


JOB_QUEUED = make(
    "job-queued",
    how="polls an export job that answers queued, come back in 60 s, for ever",
    why="The job never leaves the queue: nothing in the world changes however long the agent "
    "waits, and only the idle budget (14.5 min since the last change) can end the run.",
    build=partial(_job_queued),
)
SCENARIOS: tuple[Scenario, ...] = (
    JOB_QUEUED,
    make(
        "overloaded-forever",
        how="retries a treasury service that answers 503 with Retry-After 60 s, for ever",
        why="The dependency says when to come back, every time, and never recovers: an agent "
        "that honours Retry-After waits on, and only the idle budget can end the run.",
        build=partial(_overloaded),
    ),
    twin(
        JOB_QUEUED,
        variant="twin-job-finishes",
        how=f"polls the same export job: queued twice, then running for "
        f"{'/'.join(map(str, RUNNING_POLLS))} polls (by seed) with its progress rising, then "
        "ready, and saves the report",
        why="the job is slow but moves: every poll that shows progress is a change of state, "
        "so the idle time starts again, while the total wait (18 to 22 min) is longer than the "
        "idle budget — a watchdog on total wall time cuts it short.",
        build=_job_finishes,
        needed=QUEUED_POLLS + max(RUNNING_POLLS) + 3,
        diverges_at=lambda seed: lead(seed) + 3,
        budget=_budget(),
    ),
)
