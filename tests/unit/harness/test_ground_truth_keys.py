"""Small pieces of ground truth the verdicts stand on: an observation is new per tool, bad
arguments read as a stable observation, the interruption at the wall is a `CeilingHit`, a twin
must be solvable, and a false completion says so in those words."""

from __future__ import annotations

import dataclasses
import json
import threading
import time

import pytest

import unsolvable
from tests import _builders as b
from tests.reports._records import record
from unsolvable import (
    Call,
    Code,
    Ending,
    Outcome,
    Repeat,
    ScenarioError,
    ScriptedModel,
    Setup,
    Stop,
    ToolSpec,
)
from unsolvable._dispatch import bad_arguments
from unsolvable._errors import CeilingHit
from unsolvable.fake_tools import FakeWorld, ToolRouter, constant_tool, requires

LOOKUP = ToolSpec(name="lookup", description="Also finds nothing.")


def _two_tools_same_answer() -> unsolvable.Scenario:
    def build(seed: int) -> Setup:
        world = FakeWorld(failing=requires("done", "not done"), seed=seed)
        tools = [constant_tool(b.SEARCH, {"results": []}), constant_tool(LOOKUP, {"results": []})]
        model = ScriptedModel(Repeat(call=Call(name="search")), seed=seed)
        return Setup(world=world, toolbox=ToolRouter(world, tools), model=model)

    return dataclasses.replace(b.scenario(step_bound=10), build=build)


def test_the_same_answer_from_another_tool_is_a_new_observation() -> None:
    def agent(session: unsolvable.Session) -> Stop:
        for tool in ("search", "lookup", "search"):
            session.call_model([{"role": "user", "content": session.task}], session.tools)
            session.call_tool(tool, {})
        return Stop(code=Code.NO_PROGRESS)

    record = unsolvable.run(agent, _two_tools_same_answer())
    assert record.observed.first_stagnant_step == 3, "lookup at step 2 told something new"


def test_bad_arguments_answer_as_sorted_json_that_is_also_the_observation() -> None:
    result = bad_arguments(ValueError("arguments are not JSON"))
    assert result.text == json.dumps(json.loads(result.text), sort_keys=True)
    assert list(json.loads(result.text)["error"]) == ["message", "status"]
    assert result.observation == result.text


def test_the_interruption_at_the_wall_is_a_ceiling_hit_the_agent_can_catch() -> None:
    caught: list[bool] = []

    def cleans_up(session: unsolvable.Session) -> Stop:
        try:
            while True:
                time.sleep(0.01)
        except CeilingHit:
            caught.append(True)
        return Stop(code=Code.NO_PROGRESS)

    record = unsolvable.run(
        cleans_up, b.scenario(), ceilings=unsolvable.Ceilings(max_wall_seconds=0.1)
    )
    assert caught == [True]
    assert record.observed.ceiling == "wall_seconds"


def test_a_twin_must_be_solvable_and_say_where_it_diverges() -> None:
    twin = b.scenario(solvable=True, twin_of="test/constant", diverges_at=lambda seed: 2)
    assert twin.twin_of == "test/constant"
    message = (
        "Scenario 'test/constant' is a twin of 'x/y' but unsolvable; a twin is a solvable "
        "control: pass solvable=True"
    )
    with pytest.raises(ScenarioError, match=f"^{message}$"):
        b.scenario(twin_of="x/y", diverges_at=lambda seed: 2)
    with pytest.raises(ScenarioError, match="declares no divergence step; pass diverges_at="):
        b.scenario(solvable=True, twin_of="x/y")


def test_a_claim_on_an_unsolvable_scenario_is_a_false_completion_even_if_the_world_agrees() -> None:
    claim = Stop(code=Code.COMPLETED)
    observed = record(world_complete=True, code=Code.COMPLETED).observed
    verdict = unsolvable.judge(
        Ending(outcome=Outcome.STOPPED, reported=claim, observed=observed), b.scenario()
    )
    assert [f.message for f in verdict.failures] == [
        "false completion: claimed complete on an unsolvable scenario"
    ]


def test_time_left_counts_down_from_the_wall_ceiling_and_stops_at_zero() -> None:
    scenario = b.scenario()
    before = time.monotonic()
    session = unsolvable.Session(
        scenario, scenario.build(0), seed=0, ceilings=unsolvable.Ceilings(max_wall_seconds=30.0)
    )
    left = session.time_left()
    assert 30.0 - (time.monotonic() - before) <= left < 30.0  # however long the machine took
    over = unsolvable.Session(
        scenario, scenario.build(0), seed=0, ceilings=unsolvable.Ceilings(max_wall_seconds=0.001)
    )
    time.sleep(0.01)
    assert over.time_left() == 0.0


def test_the_watchdog_is_a_named_daemon_thread_users_can_recognise_in_a_dump() -> None:
    seen: list[tuple[str, bool]] = []

    def agent(session: unsolvable.Session) -> Stop:
        seen.extend((t.name, t.daemon) for t in threading.enumerate() if "watchdog" in t.name)
        return Stop(code=Code.NO_PROGRESS)

    unsolvable.run(agent, b.scenario())
    assert seen == [("unsolvable-watchdog", True)]
