"""Poll-until-ready (a solvable control): an export job answers "pending" k times, then is
ready — identical calls with identical answers that are legitimate waiting."""

from __future__ import annotations

from functools import partial

from unsolvable import Call, Scenario, Setup, ToolSpec
from unsolvable.fake_tools import job_tool
from unsolvable.scenarios.catalog._common import budget, scenario
from unsolvable.scenarios.catalog._control import COMPLETED, SLACK, wait_then_save

__all__ = ["SCENARIOS", "poll_until_ready"]

POLL = ToolSpec(
    name="get_export_status",
    description="Check on the data export job.",
    parameters={"type": "object", "properties": {"job_id": {"type": "string"}}},
)


def _build(pending: int, seed: int) -> Setup:
    job = job_tool(POLL, key="export", pending=pending, result={"rows": 1200})
    poll = Call(name=POLL.name, arguments={"job_id": f"exp-{seed}"}, text="Checking the export")
    return wait_then_save(job, poll, '"ready"', seed)


def poll_until_ready(variant: str, *, pending: int) -> Scenario:
    steps = pending + 1 + SLACK
    return scenario(
        family="poll-until-ready",
        variant=variant,
        task="Wait for the data export to finish, then save the report.",
        how=f"polls the export job, which answers 'pending' {pending} times, then saves the report",
        why="The task is solvable: identical calls with identical answers are legitimate "
        "waiting, which naive loop detection kills.",
        build=partial(_build, pending),
        expected=COMPLETED,
        step_bound=steps,
        budget=budget(steps),
        solvable=True,
    )


SCENARIOS = (
    poll_until_ready("pending-3", pending=3),
    poll_until_ready("pending-6", pending=6),
)
