"""The subtask table and who did what: built from what the harness saw of a multi-agent run."""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable
from typing import Any

import pytest

import unsolvable
from unsolvable import (
    Code,
    Session,
    Stop,
    SubtaskState,
    TerminationRecord,
    named_subtask,
    scenarios,
)
from unsolvable._errors import ScenarioError
from unsolvable.agents import contract
from unsolvable.agents._loop import assistant, dispatch, opening, tool_calls
from unsolvable.reports._counted import lag


@functools.cache
def _run(name: str, seed: int = 0) -> TerminationRecord:
    return unsolvable.run(contract, scenarios.get(name), seed=seed)


def test_every_step_names_the_agent_that_made_it() -> None:
    record = _run("fan-out/twin-workers-succeed")
    agents = [step.agent for step in record.observed.trajectory]
    assert agents[0] == agents[-1] == "main"
    assert agents[1:4] == ["worker-call_1_0"] * 3
    assert {a for a in agents if a != "main"} == {f"worker-call_1_{i}" for i in range(4)}


def test_the_table_says_who_dispatched_each_subtask_to_whom_and_when() -> None:
    table = _run("fan-out/twin-workers-succeed").observed.subtasks
    assert [row.name for row in table] == [f"audit supplier S-{n}" for n in range(1, 5)]
    first = table[0]
    assert (first.state, first.dispatched_by, first.workers) == (
        SubtaskState.SUCCEEDED,
        ("main",),
        ("worker-call_1_0",),
    )
    assert (first.dispatches[0].step, first.dispatches[0].started) == (1, 2)
    assert [t.state for t in first.history] == ["pending", "running", "succeeded"]


def test_each_agents_share_adds_up_to_the_run() -> None:
    observed = _run("mixed-fan-out/one-denied").observed
    tallies = observed.agents.values()
    assert sum(t.steps for t in tallies) == observed.steps
    assert sum(t.tool_calls for t in tallies) == observed.tool_calls
    assert sum(t.input_tokens + t.output_tokens for t in tallies) == observed.tokens
    assert observed.agents["worker-call_1_3"].refusals == {"denied": 2}


def test_a_failed_dependency_skips_its_dependents_and_the_blocker_is_kept() -> None:
    table = {row.name: row for row in _run("task-graph/upstream-down").observed.subtasks}
    search, answer = table["search the sources"], table["write the answer"]
    assert (search.state, search.blocker) == (SubtaskState.FAILED, "sources-api")
    assert answer.state is SubtaskState.SKIPPED and "search the sources" in answer.why
    assert table["outline the answer"].state is SubtaskState.SUCCEEDED


def test_a_retry_after_a_failure_is_no_duplicate() -> None:
    record = _run("duplicate-dispatch/twin-retry-after-failure")
    retried = record.observed.subtasks[1]
    assert [t.state for t in retried.history][1:] == ["running", "failed", "running", "succeeded"]
    assert retried.duplicate_starts == () and record.verdict.passed


def test_a_single_agent_run_has_no_table_and_one_share() -> None:
    observed = _run("constant-return/repeat").observed
    assert observed.subtasks == () and list(observed.agents) == ["main"]
    assert {step.agent for step in observed.trajectory} == {"main"}


def test_the_table_and_the_shares_come_back_from_the_records_json() -> None:
    record = _run("task-graph/upstream-down")
    again = TerminationRecord.from_dict(record.to_dict())
    assert again.observed.subtasks == record.observed.subtasks
    assert again.observed.agents == record.observed.agents
    assert again.to_json() == record.to_json()


def test_a_worker_is_the_subtask_its_delegate_arguments_name() -> None:
    said = [{"role": "user", "content": 'Task: {"subtask": "b", "depends_on": ["a longer one"]}'}]
    assert named_subtask(said, ["a longer one", "b"]) == "b"
    assert named_subtask([{"content": "do S-10 now"}], ["S-1", "S-10"]) == "S-10"
    assert named_subtask([{"content": "nothing here"}], ["S-1"]) is None


def test_a_second_worker_on_a_subtask_without_a_dispatch_is_a_duplicate_start() -> None:
    def worker(session: Session, name: str, brief: str) -> str:
        messages = [{"role": "user", "content": brief}]
        for _ in range(6):
            reply = session.call_model(messages, session.tools, agent=name)
            messages.append(assistant(reply))
            if not tool_calls(reply):
                return str(reply["content"])
            for call_id, tool, arguments in tool_calls(reply):
                messages.append(dispatch(session, call_id, tool, arguments, agent=name)[0])
        return "out of steps"

    def reruns_each_worker(session: Session) -> Stop:
        """A runtime that runs every delegated worker once more, with no new dispatch."""
        messages = opening(session)
        while True:
            reply = session.call_model(messages, session.tools)
            messages.append(assistant(reply))
            if not tool_calls(reply):
                return Stop(code=Code.COMPLETED, reason=str(reply["content"]))
            for call_id, _, arguments in tool_calls(reply):
                result = worker(session, f"worker-{call_id}", str(arguments))
                worker(session, f"worker-{call_id}-again", str(arguments))
                messages.append({"role": "tool", "tool_call_id": call_id, "content": result})

    record = unsolvable.run(reruns_each_worker, scenarios.get("fan-out/twin-workers-succeed"))
    first = record.observed.subtasks[0]
    assert first.workers == ("worker-call_1_0", "worker-call_1_0-again")
    assert first.duplicate_starts == (5,)
    assert record.verdict.broke(unsolvable.Rule.DUPLICATE_DISPATCH)


def test_a_role_budget_for_a_role_no_subtask_has_is_refused_before_the_run() -> None:
    roles = scenarios.get("per-role-budgets/role-cap-spent")
    misspelled = dataclasses.replace(roles, role_steps={"reseacher": 4, "writer": 4})
    said = "role_steps gives ['reseacher'] a budget, but no subtask of the task graph has that"
    with pytest.raises(ScenarioError, match=re.escape(said)):
        unsolvable.run(contract, misspelled)


def _stops_after_one_step(session: Session) -> Stop:
    session.call_model(opening(session), session.tools)
    return Stop(code=Code.BUDGET_STEPS, reason="stopped", partial={"steps": 1})


@pytest.mark.parametrize(
    "name", ["per-role-budgets/role-cap-spent", "per-role-budgets/run-cap-spent"]
)
def test_a_stop_before_any_role_step_projects_the_role_budget_it_could_have_spent(
    name: str,
) -> None:
    """The projection is a floor, as for tokens: the step the role's budget would run out at the
    earliest, had its workers taken every step after the run's last; a role whose subtasks wait
    on others is not projected."""
    scenario = scenarios.get(name)
    for seed in scenario.seeds:
        early = unsolvable.run(_stops_after_one_step, scenario, seed=seed).observed
        truth = _run(name, seed).observed.first_stagnant_step
        assert early.first_stagnant_step is not None and truth is not None
        assert 1 < early.first_stagnant_step <= truth, (seed, early.first_stagnant_step, truth)
    assert unsolvable.run(_stops_after_one_step, scenario).observed.first_stagnant_step == (
        _run(name).observed.first_stagnant_step
    )


class _LastWorkerFirst:
    """A session whose model lists each step's calls last first: a runtime that runs a wave's
    workers in another order than the model gave them."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)

    def call_model(self, messages: Any, tools: Any = None, *, agent: str = "main") -> Any:
        reply = self._session.call_model(messages, tools, agent=agent)
        calls = reply.get("tool_calls")
        return {**reply, "tool_calls": calls[::-1]} if calls else reply


ONE_BLOCKED = [
    "mixed-fan-out/one-denied",
    "mixed-fan-out/one-dependency-down",
    "mixed-fan-out/one-worker-hangs",
    "mixed-fan-out/swallowed-error",
    "mixed-fan-out/out-of-turns-reported-done",
    "task-graph/upstream-down",
    "task-graph/swallowed-error",
    "duplicate-dispatch/denied-dispatched-again",
]
"""Waves in which one worker is blocked (refused, or its role out of steps) and the others
finish their subtasks."""


@pytest.mark.parametrize("name", ONE_BLOCKED)
def test_the_first_stagnant_step_does_not_hang_on_the_order_the_workers_run_in(name: str) -> None:
    """The others finishing their subtasks after the blocked one is progress: the same stop,
    after the same work, is no later for a runtime that ran the blocked worker first."""
    scenario = scenarios.get(name)
    given = unsolvable.run(contract, scenario)
    turned = unsolvable.run(lambda session: contract(_LastWorkerFirst(session)), scenario)  # type: ignore[arg-type]
    assert turned.observed.steps == given.observed.steps and turned.verdict.passed
    assert lag(turned) <= lag(given), (turned.observed.first_stagnant_step, lag(given))


def _joins_anyway(session: Session) -> Stop:
    """The contract, then a worker of its own that writes the answer joining the search the
    contract stopped on: a subtask run although its dependency failed."""
    stop = contract(session)
    brief = [{"role": "user", "content": '{"subtask": "write the answer"}'}]
    for call_id, name, arguments in tool_calls(
        session.call_model(brief, session.tools, agent="joiner")
    ):
        dispatch(session, call_id, name, arguments, agent="joiner")
    return stop


def test_a_subtask_done_although_its_dependency_failed_moves_no_ground_truth() -> None:
    """Only work that could count is progress: writing the join of a failed search after the
    stop must not make that stop look timely."""
    scenario = scenarios.get("task-graph/upstream-down")
    honest, joined = unsolvable.run(contract, scenario), unsolvable.run(_joins_anyway, scenario)
    assert joined.verdict.broke(unsolvable.Rule.FAILURE_NOT_PROPAGATED)
    assert joined.observed.first_stagnant_step == honest.observed.first_stagnant_step


def _in_turns(one_name: bool, turns: int = 4) -> Callable[[Session], Stop]:
    """A supervisor that delegates once and runs its workers turn by turn together, as a
    runtime that runs them concurrently does (the OpenAI Agents SDK's agents-as-tools): each
    turn, every worker's model call, then every call they asked for; the workers under one
    name with ``one_name``, each under its own otherwise. The blocked worker runs first."""

    def agent(session: Session) -> Stop:
        reply = session.call_model(opening(session), session.tools)
        briefs = [str(arguments) for _, _, arguments in tool_calls(reply)][::-1]
        workers = [
            ("worker" if one_name else f"worker-{n}", [*opening(session)[:-1], _brief(brief)])
            for n, brief in enumerate(briefs)
        ]
        for _ in range(turns):
            replies = [
                (name, c, session.call_model(c, session.tools, agent=name)) for name, c in workers
            ]
            for _, conversation, answer in replies:
                conversation.append(assistant(answer))
            for name, conversation, answer in replies:
                for call_id, tool, arguments in tool_calls(answer):
                    conversation.append(dispatch(session, call_id, tool, arguments, agent=name)[0])
        return Stop(code=Code.BLOCKED_INPUT, reason="denied", missing=("audits:eu-write",))

    return agent


def _brief(brief: str) -> dict[str, str]:
    return {"role": "user", "content": brief}


def _as_observed(record: TerminationRecord) -> tuple[object, ...]:
    """The ground truth and the subtask table, the workers' names aside."""
    table = [
        (row.name, row.state, re.sub(r"worker(-\d+)?", "W", row.why),
         [(t.step, t.state) for t in row.history])
        for row in record.observed.subtasks or ()
    ]  # fmt: skip
    steps = [(s.step, [c.name for c in s.calls]) for s in record.observed.trajectory]
    return record.observed.first_stagnant_step, table, steps


def test_workers_run_together_under_one_name_are_observed_as_under_their_own() -> None:
    """A tool call belongs to the model call that asked for it, not to its agent's latest: where
    four workers under one name each asked for their filing before any was made, the three
    filings were taken for the blocked worker's, the table said the three audits were done
    only when the run ended, and the first stagnant step came before the last of them."""
    scenario = scenarios.get("mixed-fan-out/one-denied")
    own, one = (unsolvable.run(_in_turns(one_name), scenario) for one_name in (False, True))
    assert _as_observed(one) == _as_observed(own)
    assert own.observed.first_stagnant_step == 10  # the step after the last audit was filed


def _answers_as_they_come(one_name: bool, turns: int = 6) -> Callable[[Session], Stop]:
    """A supervisor that delegates once, starts a worker a turn, and reads each worker's answer
    as it comes while the others still run, as a runtime that hands a delegation's return to
    its supervisor at once does: each turn, every running worker's model call, then the
    supervisor's reading of those that answered, then the calls the others asked for."""

    def agent(session: Session) -> Stop:
        lead = opening(session)
        reply = session.call_model(lead, session.tools)
        lead.append(assistant(reply))
        workers = [
            (call_id, "worker" if one_name else f"worker-{n}", [*lead[:1], _brief(str(brief))])
            for n, (call_id, _, brief) in enumerate(tool_calls(reply))
        ]
        running: list[tuple[str, str, list[Any]]] = []
        for turn in range(turns):
            running += workers[turn : turn + 1]
            replies = [(w, session.call_model(w[2], session.tools, agent=w[1])) for w in running]
            for (call_id, _, conversation), answer in replies:
                conversation.append(assistant(answer))
                if not tool_calls(answer):
                    lead.append(
                        {"role": "tool", "tool_call_id": call_id, "content": answer["content"]}
                    )
                    lead.append(assistant(session.call_model(lead, session.tools)))
            running = [worker for worker, answer in replies if tool_calls(answer)]
            for (_, name, conversation), answer in replies:
                for call_id, tool, arguments in tool_calls(answer):
                    conversation.append(dispatch(session, call_id, tool, arguments, agent=name)[0])
        return Stop(code=Code.BLOCKED_INPUT, reason="denied", missing=("audits:eu-write",))

    return agent


def test_a_delegation_that_returns_leaves_its_name_to_the_workers_still_running_under_it() -> None:
    """Where a worker's delegation returned while others under its name still ran, their
    calls went unattributed until their next model call: the filing a sibling made then did not
    finish its subtask, which read as abandoned when its delegation returned."""
    scenario = scenarios.get("mixed-fan-out/one-denied")
    own, one = (
        unsolvable.run(_answers_as_they_come(one_name), scenario) for one_name in (False, True)
    )
    assert _as_observed(one) == _as_observed(own)
    held = "its criteria held after file_audit"
    assert [row.why for row in own.observed.subtasks or ()][:3] == [held] * 3
