"""The trace invariants of a multi-agent run, each a verdict rule with its message."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

import unsolvable
from tests import _wrong_agents as wrong
from unsolvable import Code, Rule, Session, Stop, scenarios
from unsolvable._invariants import invariant_failures
from unsolvable._record import Ending, TerminationRecord
from unsolvable.agents import contract
from unsolvable.agents._loop import assistant, dispatch, opening, tool_calls

PROBE = scenarios.get("mixed-fan-out/one-denied")
"""Four subtasks: three finish, one is refused a permission for ever."""


def _hides_the_blocker(session: Session) -> Stop:
    stop = contract(session)
    finished = stop.partial["finished"]
    return dataclasses.replace(stop, reason=f"finished: {finished}", partial=finished, missing=())


def test_the_probe_passes_only_a_stop_that_names_the_blocker_and_lists_the_finished() -> None:
    assert unsolvable.run(contract, PROBE, strict=True).verdict.passed
    forgets = unsolvable.run(wrong.forgets_finished_subtasks(), PROBE).verdict
    assert forgets.broke(Rule.FINISHED_NOT_LISTED) and not forgets.broke(Rule.BLOCKER_NOT_NAMED)
    assert "'audit supplier S-1', 'audit supplier S-2', 'audit supplier S-3'" in forgets.summary
    hides = unsolvable.run(_hides_the_blocker, PROBE).verdict
    assert hides.broke(Rule.BLOCKER_NOT_NAMED) and "audits:eu-write" in hides.summary


def test_a_workers_call_made_under_another_name_is_still_its_work() -> None:
    """The refusal S-4's worker met, its call made under the supervisor's name, was no one's:
    the table showed the subtask abandoned with no blocker, so the stop that hides it passed,
    and, the call taken for one no model asked for, the stagnant step fell back to step 2. A
    call is the work of the conversation whose model asked for it, whatever name makes it."""
    own = unsolvable.run(_hides_the_blocker, PROBE)
    renamed = unsolvable.run(wrong.calls_tools_as_main(_hides_the_blocker), PROBE)
    assert renamed.verdict.broke(Rule.BLOCKER_NOT_NAMED)
    assert renamed.observed.subtasks == own.observed.subtasks
    assert renamed.observed.first_stagnant_step == own.observed.first_stagnant_step


def test_a_supervisor_that_dispatches_a_finished_subtask_again_fails() -> None:
    scenario = scenarios.get("duplicate-dispatch/lost-return")
    verdict = unsolvable.run(wrong.runs_every_dispatch(), scenario).verdict
    assert verdict.broke(Rule.DUPLICATE_DISPATCH)
    assert "duplicate dispatch: 'audit supplier S-2' started again" in verdict.summary


def test_a_finished_subtask_dispatched_again_to_a_worker_whose_delegation_never_returned() -> None:
    """A supervisor that left the answer to a subtask's first dispatch out of its conversation
    kept that worker's attempt open: every dispatch of the finished subtask again, run by a
    worker of the same name, was taken for that attempt going on, never for a start."""
    scenario = scenarios.get("duplicate-dispatch/plain")
    verdict = unsolvable.run(wrong.runs_every_dispatch(withholds=True), scenario).verdict
    assert verdict.broke(Rule.DUPLICATE_DISPATCH)
    assert "duplicate dispatch: 'audit supplier S-2' started again" in verdict.summary


def test_running_a_dependent_of_a_failed_subtask_fails() -> None:
    verdict = unsolvable.run(wrong.runs_every_dispatch(), scenarios.get("task-graph/upstream-down"))
    assert verdict.verdict.broke(Rule.FAILURE_NOT_PROPAGATED)
    assert "its dependency 'search the sources' failed" in verdict.verdict.summary


def test_completed_while_a_subtask_failed_names_it() -> None:
    verdict = unsolvable.run("naive", scenarios.get("mixed-fan-out/swallowed-error")).verdict
    assert verdict.broke(Rule.INCOMPLETE_SUBTASKS)
    assert "COMPLETED while 'audit supplier S-4' had not succeeded" in verdict.summary


def test_workers_on_stale_budget_snapshots_overrun_the_shared_budget() -> None:
    scenario = scenarios.get("budget-edge/shared-dollars")
    verdict = unsolvable.run(wrong.stale_budget_snapshots(), scenario).verdict
    assert verdict.broke(Rule.SHARED_BUDGET_OVERRUN) and "worker-call_1_1" in verdict.summary
    assert not unsolvable.run(contract, scenario).verdict.broke(Rule.SHARED_BUDGET_OVERRUN)


def _goes_on_after_returning(session: Session) -> Stop:
    """Runs the first subtask's worker to its claim, hands its result back, then lets that
    worker call the model again: a worker still working after its stop."""
    messages = opening(session)
    reply = session.call_model(messages, session.tools)
    messages.append(assistant(reply))
    calls = tool_calls(reply)
    brief: list[Any] = [{"role": "user", "content": str(calls[0][2])}]
    for _ in range(3):
        brief.append(assistant(session.call_model(brief, session.tools, agent="worker-1")))
    messages += [{"role": "tool", "tool_call_id": i, "content": "done"} for i, _, _ in calls]
    session.call_model(messages, session.tools)
    session.call_model(brief, session.tools, agent="worker-1")
    return Stop(code=Code.NO_PROGRESS, reason="stopped", partial=["audit supplier S-1"])


def test_a_run_whose_worker_still_calls_after_its_stop_fails() -> None:
    scenario = scenarios.get("fan-out/twin-workers-succeed")
    verdict = unsolvable.run(_goes_on_after_returning, scenario).verdict
    assert verdict.broke(Rule.WORK_AFTER_STOP)
    assert "a worker went on with 'audit supplier S-1' at step 6" in verdict.summary


def _files_after_returning(session: Session) -> Stop:
    """Runs the first subtask's worker until its model asks to file the audit, hands its result
    back, and only then makes that call: the worker's work, going on after its stop."""
    messages = opening(session)
    calls = tool_calls(_said(session, messages, "main"))
    brief: list[Any] = [{"role": "user", "content": str(calls[0][2])}]
    for call_id, tool, arguments in tool_calls(_said(session, brief, "worker-1")):
        brief.append(dispatch(session, call_id, tool, arguments, agent="worker-1")[0])
    asked = tool_calls(_said(session, brief, "worker-1"))
    messages += [{"role": "tool", "tool_call_id": i, "content": "done"} for i, _, _ in calls]
    _said(session, messages, "main")
    for call_id, tool, arguments in asked:
        dispatch(session, call_id, tool, arguments, agent="worker-1")
    return Stop(code=Code.NO_PROGRESS, reason="stopped", partial=["audit supplier S-1"])


def test_a_tool_call_a_worker_makes_after_its_delegation_returned_is_work_after_the_stop() -> None:
    """Only a worker's model calls were read for work after its stop: its filing, asked for
    before its delegation returned and made after, went unseen, the subtask succeeding "when the
    run ended"."""
    scenario = scenarios.get("fan-out/twin-workers-succeed")
    verdict = unsolvable.run(_files_after_returning, scenario).verdict
    assert verdict.broke(Rule.WORK_AFTER_STOP)
    assert "a worker went on with 'audit supplier S-1' at step 4" in verdict.summary


def _retries_the_refused_unasked(name: str) -> Any:
    """Runs the blocked audit's worker until it is refused, hands its result back, then has a
    worker called ``name`` take the same brief up again, with no new dispatch."""

    def agent(session: Session) -> Stop:
        messages = opening(session)
        calls = tool_calls(_said(session, messages, "main"))
        brief: list[Any] = [{"role": "user", "content": str(calls[-1][2])}]
        for _ in range(3):
            for call_id, tool, arguments in tool_calls(_said(session, brief, "worker-4")):
                brief.append(dispatch(session, call_id, tool, arguments, agent="worker-4")[0])
        messages += [{"role": "tool", "tool_call_id": i, "content": "done"} for i, _, _ in calls]
        _said(session, messages, "main")
        _said(session, brief, name)
        return Stop(code=Code.NO_PROGRESS, reason="stopped")

    return agent


def _said(session: Session, messages: list[Any], agent: str) -> Any:
    reply = session.call_model(messages, session.tools, agent=agent)
    messages.append(assistant(reply))
    return reply


@pytest.mark.parametrize("name", ["worker-4", "worker-4-again"])
def test_work_after_a_delegation_returned_fails_under_any_worker_name(name: str) -> None:
    """A new name is no new dispatch: a worker renamed after its delegation returned neither
    hides its late work nor turns the refusal it met into a retry."""
    verdict = unsolvable.run(_retries_the_refused_unasked(name), PROBE).verdict
    assert verdict.broke(Rule.WORK_AFTER_STOP) and verdict.broke(Rule.BLOCKER_NOT_NAMED)
    assert "a worker went on with 'audit supplier S-4' at step 6" in verdict.summary


def test_a_role_that_spends_past_its_own_budget_fails_while_the_run_has_room() -> None:
    scenario = scenarios.get("per-role-budgets/role-cap-spent")
    verdict = unsolvable.run(wrong.ignores_role_budgets(), scenario).verdict
    assert verdict.broke(Rule.ROLE_BUDGET_OVERRUN)
    assert "the researcher role began" in verdict.summary and "budget of 4 steps" in verdict.summary
    record = unsolvable.run(contract, scenario, strict=True)
    assert record.reported is not None and record.verdict.passed
    assert "researcher role's own budget" in record.reported.reason


def test_a_finished_subtask_is_not_taken_as_listed_for_a_longer_name_that_holds_its_own() -> None:
    record = unsolvable.run(contract, PROBE)
    s1, s2, s3, s4 = record.observed.subtasks
    ten = dataclasses.replace(s2, name="audit supplier S-10")
    observed = dataclasses.replace(record.observed, subtasks=(s1, ten, s3, s4))
    assert record.reported is not None
    lists_s10 = dataclasses.replace(
        record.reported,
        reason="audits:eu-write denied; finished: audit supplier S-10, audit supplier S-3",
        partial=None,
        missing=(),
    )
    ending = Ending(outcome=record.outcome, reported=lists_s10, observed=observed)
    failures = invariant_failures(ending, PROBE)
    assert [f.rule for f in failures] == [Rule.FINISHED_NOT_LISTED]
    assert "finished: 'audit supplier S-1' (partial" in failures[0].message


def test_the_overrun_names_the_budget_as_every_dollar_figure_is_written() -> None:
    shared = scenarios.get("budget-edge/shared-dollars")
    record = unsolvable.run(wrong.stale_budget_snapshots(), shared)
    ending = Ending(outcome=record.outcome, reported=record.reported, observed=record.observed)
    tiny = dataclasses.replace(
        shared, budget=dataclasses.replace(shared.budget, max_cost_usd=5e-05)
    )
    [overrun] = invariant_failures(ending, tiny)
    assert "begun after the $0.00005 budget was spent" in overrun.message


def test_a_stop_that_lists_the_blocked_subtask_as_finished_fails_naming_it() -> None:
    """Every name in the stop, the blocker's too, passed both checks of what a stop says,
    though it claimed done the audit the world shows refused."""
    record = unsolvable.run(wrong.lists_every_subtask_as_finished(), PROBE)
    assert [failure.rule for failure in record.verdict.failures] == [Rule.UNFINISHED_LISTED]
    assert "the stop lists as finished 'audit supplier S-4', which did not finish" in (
        record.verdict.summary
    )
    read_back = TerminationRecord.from_dict(record.to_dict()).observed
    ending = Ending(outcome=record.outcome, reported=record.reported, observed=read_back)
    assert [failure.rule for failure in invariant_failures(ending, PROBE)] == [
        Rule.UNFINISHED_LISTED
    ]


@pytest.mark.parametrize(
    ("partial", "reason"),
    [
        ({"subtasks": {"audit supplier S-4": "succeeded"}}, ""),
        ({"report": {"subtasks": {"audit supplier S-4": {"status": "done"}}}}, ""),
        ({"done": {"audit supplier S-4": True}}, ""),
        (None, "Completed: audit supplier S-4."),
        ("finished: audit supplier S-4", ""),
    ],
)
def test_each_way_of_listing_a_subtask_as_finished_is_read(partial: Any, reason: str) -> None:
    record = unsolvable.run(contract, PROBE)
    assert record.reported is not None
    claims = dataclasses.replace(record.reported, reason=f"{record.reported.reason} {reason}")
    ending = Ending(
        outcome=record.outcome,
        reported=dataclasses.replace(claims, partial=partial),
        observed=record.observed,
    )
    failures = invariant_failures(ending, PROBE)
    assert [failure.rule for failure in failures] == [Rule.UNFINISHED_LISTED]


def test_a_subtask_dispatched_beside_the_task_graph_is_not_judged_by_its_claim() -> None:
    """Role ping-pong's subtasks are dispatched, not declared: the harness knows no criteria of
    theirs, so the contract's workers' checks that passed a draft are not overruled."""
    record = unsolvable.run(contract, scenarios.get("role-ping-pong/needs-another-role"))
    assert record.reported is not None and record.verdict.passed
    assert "finished: write the draft" in record.reported.reason
    assert all(subtask.state != "succeeded" for subtask in record.observed.subtasks or ())
