"""The tools of the budget and blocker families: a job that stays queued or moves, a dependency
down for ever, a quota spent for ever, a hang, a search that takes time, a confirmation, a 404."""

from __future__ import annotations

import json
from typing import Any

from unsolvable import ToolResult, ToolSpec
from unsolvable.fake_tools import (
    FakeWorld,
    Tool,
    confirm_tool,
    flaky_tool,
    hanging_tool,
    queued_job_tool,
    rate_limited_tool,
    registry_tool,
    requires,
    search_tool,
)

SPEC = ToolSpec(name="t", description="a tool")


def _calls(tool: Tool, times: int, **arguments: Any) -> tuple[FakeWorld, list[ToolResult]]:
    world = FakeWorld(failing=requires("done", "not done"))
    return world, [tool.handler(world, arguments) for _ in range(times)]


def _body(result: ToolResult) -> dict[str, Any]:
    body = json.loads(result.text)
    body.pop("request_id")
    return body  # type: ignore[no-any-return]


def test_a_queued_job_asks_to_be_left_alone_for_ever_and_changes_nothing() -> None:
    job = queued_job_tool(SPEC, key="export", queued=None, result={"rows": 1}, retry_after=60)
    world, results = _calls(job, 50)
    assert {json.dumps(_body(r)) for r in results} == {'{"retry_after": 60, "status": "queued"}'}
    assert world.fingerprint() == FakeWorld(failing=requires("done", "")).fingerprint()


def test_a_running_job_moves_the_world_at_each_figure_then_is_ready() -> None:
    job = queued_job_tool(
        SPEC, key="export", queued=1, progress=(40, 80), result={"rows": 1}, retry_after=60
    )
    world, results = _calls(job, 5)
    statuses = [(_body(r)["status"], _body(r).get("progress")) for r in results]
    assert statuses == [("queued", None), ("running", 40), ("running", 80)] + [("ready", None)] * 2
    assert world.peek("export") == {"rows": 1} and world.peek("export_progress") == 80


def test_a_dependency_down_for_ever_says_when_to_come_back_every_time() -> None:
    fetch = flaky_tool(SPEC, key="k", failures=None, answer={}, dependency="d", retry_after=60)
    _, results = _calls(fetch, 30)
    assert all(_body(r)["error"]["retry_after"] == 60 for r in results)
    assert {r.refusal for r in results} == {"unavailable"}


def test_a_spent_quota_answers_every_caller_429_with_the_same_retry_after() -> None:
    lookup = rate_limited_tool(SPEC, "registry", retry_after=60)
    world, results = _calls(lookup, 30, supplier="S-1")
    results += [lookup.handler(world, {"supplier": "S-2"})]
    assert len({json.dumps(_body(r)) for r in results}) == 1, "no caller's answer differs"
    error = _body(results[0])["error"]
    assert (error["status"], error["retry_after"], error["dependency"]) == (429, 60, "registry")
    assert {r.refusal for r in results} == {"rate_limited"}
    assert world.fingerprint() == FakeWorld(failing=requires("done", "")).fingerprint()


def test_a_hang_takes_its_timeout_on_the_clock_then_a_cold_start_answers() -> None:
    sensor = hanging_tool(SPEC, "sensor", timeout=30, answers_after=2, key="r", answer={"c": 3})
    world, results = _calls(sensor, 3)
    assert [(r.seconds, r.refusal) for r in results] == [(30, "timed_out")] * 2 + [(0, None)]
    assert _body(results[0])["error"]["status"] == 504 and world.peek("r") == {"c": 3}


def test_a_search_echoes_its_pattern_takes_its_time_and_changes_nothing() -> None:
    search = search_tool(SPEC, field="q", found={"hit": ("a.py:1",)}, scanned=9, seconds=40)
    world, (miss,) = _calls(search, 1, q="x")
    _, (hit,) = _calls(search, 1, q="hit")
    assert _body(miss) == {"pattern": "x", "matches": [], "files_scanned": 9}
    assert _body(hit)["matches"] == ["a.py:1"] and miss.seconds == 40
    assert world.fingerprint() == FakeWorld(failing=requires("done", "")).fingerprint()


def test_an_irreversible_action_is_held_for_a_person_and_marked_when_done() -> None:
    drop = confirm_tool(SPEC, key="dropped", field="table", irreversible=True, effect="Drops")
    world, (asked,) = _calls(drop, 1, table="t1")
    assert _body(asked)["status"] == "confirmation_required" and asked.refusal == "needs_approval"
    assert world.peek("dropped") is None
    world, (done,) = _calls(drop, 1, table="t1", confirm=True)
    assert done.irreversible and world.peek("dropped") == "t1"


def test_a_reversible_action_is_no_refusal_and_no_harm() -> None:
    trash = confirm_tool(SPEC, key="dropped", field="table", irreversible=False, effect="Moves")
    _, (asked,) = _calls(trash, 1, table="t1")
    world, (done,) = _calls(trash, 1, table="t1", confirm=True)
    assert _body(asked)["irreversible"] is False and asked.refusal is None
    assert not done.irreversible and world.peek("dropped") == "t1"


def test_a_registry_answers_the_record_or_a_404_naming_what_is_not_there() -> None:
    orders = registry_tool(SPEC, field="id", kind="order", records={"A1": {"id": "A1"}})
    _, (found,) = _calls(orders, 1, id="A1")
    _, (missing,) = _calls(orders, 1, id="B2")
    assert _body(found) == {"id": "A1"} and found.refusal is None
    assert _body(missing)["error"] == {
        "status": 404,
        "code": "not_found",
        "message": "no order matches 'B2'",
    }
    assert missing.refusal == "not_found"
