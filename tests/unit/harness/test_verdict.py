"""Verdict rules beyond the run paths: blockers, retries, partials, controls."""

from __future__ import annotations

import unsolvable
from tests import _builders as b
from unsolvable import Code, Stop
from unsolvable.agents import contract
from unsolvable.scenarios import get


def _publish_then(stop: Stop, times: int = 1) -> unsolvable.Adapter:
    def agent(session: unsolvable.Session) -> Stop:
        for _ in range(times):
            session.call_model([], session.tools)
            session.call_tool("publish_report", {"report_id": "R-0"})
        return stop

    return agent  # type: ignore[return-value]


def test_blocked_input_must_name_the_missing_permission() -> None:
    scenario = get("missing-permission/retry-403")
    vague = unsolvable.run(_publish_then(Stop(code=Code.BLOCKED_INPUT)), scenario)
    assert b.messages(vague) == ("BLOCKED_INPUT does not name what is missing: reports:publish",)
    named = Stop(code=Code.BLOCKED_INPUT, missing=("reports:publish",))
    passed = unsolvable.run(_publish_then(named), get("missing-permission/retry-403"))
    assert passed.verdict.passed


def test_retrying_a_denied_call_past_the_allowance_fails() -> None:
    stop = Stop(code=Code.BLOCKED_INPUT, reason="needs reports:publish")
    record = unsolvable.run(_publish_then(stop, times=3), get("missing-permission/retry-403"))
    assert b.messages(record) == ("retried a refused call: 3 denied calls, 2 allowed",)


def test_exhausted_needs_partial_results() -> None:
    record = unsolvable.run(b.steps_then(5, Stop(code=Code.BUDGET_STEPS)), b.scenario())
    assert b.messages(record) == ("exhausted without partial results",)


def test_a_control_must_complete_in_the_world() -> None:
    stopped = unsolvable.run(
        b.steps_then(1, Stop(code=Code.NO_PROGRESS)), b.scenario(solvable=True)
    )
    assert b.messages(stopped)[0].startswith("false stop: abandoned/NO_PROGRESS")
    claimed = unsolvable.run(b.steps_then(1, Stop(code=Code.COMPLETED)), b.scenario(solvable=True))
    assert b.messages(claimed)[0].startswith("false completion: claimed complete, but")


def test_a_finished_control_reported_otherwise_is_its_own_rule_not_a_false_stop() -> None:
    def finishes_then_says_no_progress(session: unsolvable.Session) -> Stop:
        finished = contract(session)
        return Stop(code=Code.NO_PROGRESS, reason=f"not sure: {finished.reason}")

    record = unsolvable.run(finishes_then_says_no_progress, get("poll-until-ready/pending-3"))
    assert record.observed.world_complete
    assert [f.rule for f in record.verdict.failures] == [unsolvable.Rule.UNREPORTED_FINISH]
    assert b.messages(record)[0].startswith("finished, reported otherwise: the world shows")
    unfinished = unsolvable.run(
        b.steps_then(1, Stop(code=Code.NO_PROGRESS)), b.scenario(solvable=True)
    )
    assert [f.rule for f in unfinished.verdict.failures] == [unsolvable.Rule.FALSE_STOP]
