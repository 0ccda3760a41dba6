"""The twins whose answers move with each call (`MOVES_PER_CALL`), and why they may: an agent
that waits in a loop of its own — a poller that sleeps each Retry-After, a client that retries a
timeout while its budget allows — stops their siblings as it should and finishes the twins, and
the same twins moved with the run's steps would stop it falsely."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import pytest

import unsolvable
from tests._twins import MOVES_PER_CALL
from tests.unit.scenarios.test_twins import PAIRS
from unsolvable import (
    JSON,
    PROTOCOL_TOOLS,
    Code,
    Rule,
    Scenario,
    Session,
    Setup,
    Stop,
    ToolResult,
)
from unsolvable.agents._fingerprint import observation_fingerprint
from unsolvable.agents._loop import assistant, dispatch, opening, tool_calls
from unsolvable.agents._signals import error_details, wait_hint
from unsolvable.fake_tools import FakeWorld, ModelSteps, Tool, ToolRouter

PER_CALL = [(twin, sibling, seed) for twin, sibling, seed in PAIRS if twin.family in MOVES_PER_CALL]
IDS = [f"{twin.name}-seed{seed}" for twin, _, seed in PER_CALL]


def waits_in_its_own_loop(session: Session) -> Stop:
    """Makes each call the model asks for again, within its step, while the answer asks to be
    waited on (a Retry-After, slept on the session clock) or timed out; stops on the budget the
    next attempt would overrun, and claims completion when the model calls no tool."""
    messages = opening(session)
    while True:
        reply = session.call_model(messages, session.tools)
        calls = tool_calls(reply)
        if not calls:
            return Stop(code=Code.COMPLETED, reason=reply.get("content") or "")
        messages.append(assistant(reply))
        for call in calls:
            answer = _waited(session, *call)
            if isinstance(answer, Stop):
                return answer
            messages.append(answer)


def _waited(session: Session, call_id: str, name: str, arguments: Any) -> JSON | Stop:
    """The call's first answer that asks for no wait, or the stop where the next would overrun
    the wall budget (a timeout) or the idle budget (a Retry-After since the answer last moved)."""
    budget, moved, seen = session.budget, session.clock, ""
    while True:
        answer = dispatch(session, call_id, name, arguments)[0]
        text = answer["content"]
        if observation_fingerprint(text) != seen:
            moved, seen = session.clock, observation_fingerprint(text)
        timeout, wait = error_details(text).get("timeout_seconds"), wait_hint(text)
        if timeout is None and not wait:
            return answer
        wall, idle = budget.max_wall_seconds, budget.max_idle_seconds
        if timeout is not None and wall is not None and session.clock + timeout > wall:
            return Stop(code=Code.BUDGET_TIME, reason=text, partial={"answer": text})
        if wait and idle is not None and session.clock + wait - moved > idle:
            return Stop(code=Code.BUDGET_IDLE, reason=text, partial={"answer": text})
        session.sleep(wait)


@pytest.mark.parametrize(("twin", "sibling", "seed"), PER_CALL, ids=IDS)
def test_an_agent_that_waits_in_its_own_loop_stops_the_sibling_and_finishes_the_twin(
    twin: Scenario, sibling: Scenario, seed: int
) -> None:
    for scenario in (sibling, twin):
        record = unsolvable.run(waits_in_its_own_loop, scenario, seed=seed)
        assert record.verdict.passed, (scenario.name, record.verdict.summary)


def _per_step(twin: Scenario) -> Scenario:
    """``twin`` with each of its tools answering every call of a step as the step's first call
    of it: its answers moved with the run's steps (`ModelSteps`)."""

    def build(seed: int) -> Setup:
        setup, steps = twin.build(seed), ModelSteps()
        router = setup.toolbox
        assert isinstance(router, ToolRouter)
        tools = [
            tool if tool.spec.name in PROTOCOL_TOOLS else _once_a_step(tool, steps)
            for tool in router.routes.values()
        ]
        return steps.watch(dataclasses.replace(setup, toolbox=ToolRouter(router.world, tools)))

    return dataclasses.replace(twin, build=build)


def _once_a_step(tool: Tool, steps: ModelSteps) -> Tool:
    answered: dict[int, ToolResult] = {}

    def handle(world: FakeWorld, arguments: Mapping[str, Any]) -> ToolResult:
        if steps.step not in answered:
            answered[steps.step] = tool.handler(world, arguments)
        return answered[steps.step]

    return Tool(spec=tool.spec, handler=handle)


@pytest.mark.parametrize(("twin", "sibling", "seed"), PER_CALL, ids=IDS)
def test_the_twin_moved_with_the_runs_steps_would_stop_that_agent_falsely(
    twin: Scenario, sibling: Scenario, seed: int
) -> None:
    record = unsolvable.run(waits_in_its_own_loop, _per_step(twin), seed=seed)
    assert record.verdict.broke(Rule.FALSE_STOP), record.verdict.summary
