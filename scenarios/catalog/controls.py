"""Solvable controls: runs that are making progress, which stop logic must let finish.

Lag alone rewards an agent that stops at step 1; these measure the other direction — a false
stop is any exit but ``complete``, and completion is verified in the world.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from fake_tools import (
    FakeWorld,
    Tool,
    flaky_tool,
    job_tool,
    requires,
    sections_tool,
    writer_tool,
)
from harness import Call, Claim, Code, Scenario, Setup, Steps, ToolSpec, Until
from scenarios.catalog._common import budget, scenario, setup

__all__ = ["SCENARIOS", "long_healthy", "poll_until_ready", "slow_dependency"]

COMPLETED = {Code.COMPLETED}
SLACK = 4
"""Steps of room over the work a control needs: a final claim and a verification or two."""
WRITE = ToolSpec(
    name="write_chapter",
    description="Write one numbered chapter of the handbook.",
    parameters={
        "type": "object",
        "properties": {"number": {"type": "integer"}, "text": {"type": "string"}},
    },
)
POLL = ToolSpec(
    name="get_export_status",
    description="Check on the data export job.",
    parameters={"type": "object", "properties": {"job_id": {"type": "string"}}},
)
FETCH = ToolSpec(
    name="fetch_rates",
    description="Fetch today's exchange rates from the treasury service.",
    parameters={"type": "object", "properties": {}},
)
SAVE = ToolSpec(
    name="save_report",
    description="Save the finished report.",
    parameters={"type": "object", "properties": {"text": {"type": "string"}}},
)
SAVE_CALL = Call(name=SAVE.name, arguments={"text": "The report."}, text="Saving the report")


def _chapters_missing(total: int) -> Callable[[FakeWorld], list[str]]:
    def failing(world: FakeWorld) -> list[str]:
        written = world.peek("handbook", {})
        return [f"chapter {n} missing" for n in range(1, total + 1) if str(n) not in written]

    return failing


def _build_long(chapters: int, seed: int) -> Setup:
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
        build=partial(_build_long, chapters),
        expected=COMPLETED,
        step_bound=steps,
        budget=budget(steps),
        solvable=True,
    )


def _wait_then_save(waiting: Tool, call: Call, marker: str, seed: int) -> Setup:
    """Repeats ``call`` until its answer holds ``marker``, then saves the report and says so."""
    world = FakeWorld(failing=requires("report", "report not saved"), seed=seed)
    script = Until(call=call, marker=marker, then=Steps(calls=[SAVE_CALL], then=Claim()))
    tools = [waiting, writer_tool(SAVE, key="report", field="text", criteria=())]
    return setup(world, tools, script, seed=seed)


def _build_poll(pending: int, seed: int) -> Setup:
    job = job_tool(POLL, key="export", pending=pending, result={"rows": 1200})
    poll = Call(name=POLL.name, arguments={"job_id": f"exp-{seed}"}, text="Checking the export")
    return _wait_then_save(job, poll, '"ready"', seed)


def poll_until_ready(variant: str, *, pending: int) -> Scenario:
    steps = pending + 1 + SLACK
    return scenario(
        family="poll-until-ready",
        variant=variant,
        task="Wait for the data export to finish, then save the report.",
        how=f"polls the export job, which answers 'pending' {pending} times, then saves the report",
        why="The task is solvable: identical calls with identical answers are legitimate "
        "waiting, which naive loop detection kills.",
        build=partial(_build_poll, pending),
        expected=COMPLETED,
        step_bound=steps,
        budget=budget(steps),
        solvable=True,
    )


def _build_slow(failures: int, seed: int) -> Setup:
    rates = {"rates": {"EUR": 1.08}}
    fetch = flaky_tool(FETCH, key="rates", failures=failures, answer=rates, dependency="treasury")
    return _wait_then_save(fetch, Call(name=FETCH.name, text="Fetching the rates"), '"rates"', seed)


def slow_dependency(variant: str, *, failures: int) -> Scenario:
    steps = failures + 1 + SLACK
    return scenario(
        family="slow-dependency",
        variant=variant,
        task="Fetch today's rates and save the currency report.",
        how=f"retries a dependency that answers 503 (with Retry-After) {failures} times, then "
        "recovers",
        why="The task is solvable: the dependency says when to come back, and does recover.",
        build=partial(_build_slow, failures),
        expected=COMPLETED,
        step_bound=steps,
        budget=budget(steps),
        solvable=True,
    )


SCENARIOS = (
    long_healthy("16-chapters", chapters=16),
    long_healthy("30-chapters", chapters=30),
    poll_until_ready("pending-3", pending=3),
    poll_until_ready("pending-6", pending=6),
    slow_dependency("fails-2", failures=2),
    slow_dependency("fails-5", failures=5),
)
