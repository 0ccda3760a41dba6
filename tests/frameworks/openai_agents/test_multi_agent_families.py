"""An OpenAI Agents SDK system — a lead that runs a worker agent as its ``delegate`` tool
(agents-as-tools), each agent on its own model — on the multi-agent families, at the SDK's
defaults (``max_turns`` 10 for the lead and for each worker run) and with the turn limits its docs
recommend setting for each (the runner's and ``as_tool``'s ``max_turns``): each cell of the
README's framework table for this system. Then two agents handing a task to each other with the
SDK's handoffs, on the swarm scenario and its twin: the handoff table's cells.

The SDK runs the lead's four ``delegate`` calls of one turn concurrently, under one worker name:
the harness tells their steps apart by the subtask each conversation names, and each run has the
same record, its steps pinned here (each client finds its platform before its first request, so
the four first requests reach the wire in the order the SDK made them)."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("agents")

import openai._base_client
from agents import Agent, Handoff, handoff
from agents.tool import default_tool_error_function
from pydantic import BaseModel

import unsolvable
from tests.frameworks._families import (
    HANDOFF_SCENARIOS,
    NOT_NESTED,
    ROOMY,
    ending,
    report_handoff,
    without_handoffs,
)
from tests.frameworks._last_first import LastFirst
from unsolvable import Code, SubtaskState, scenarios
from unsolvable.adapters.openai_agents import AgentBindings, OpenAIAgentsAdapter

TOOL_ERROR = default_tool_error_function(None, RuntimeError())  # type: ignore[arg-type]
"""What a function tool that raised answers by default: the SDK's own text, the same for any
error."""
LEAD_TURNS, WORKER_TURNS = 6, 5
"""The recommended setting: a turn limit for the lead's run and for each worker's."""


class Subtask(BaseModel):
    """The ``delegate`` tool's arguments: the subtask, and what it waits for."""

    subtask: str
    depends_on: list[str] = []


def system(limited: bool) -> OpenAIAgentsAdapter:
    def lead(bind: AgentBindings) -> Agent[Any]:
        tools = [t for t in bind.tools("worker") if t.name != "delegate"]
        worker = Agent(name="worker", model=bind.model("worker"), tools=tools)
        turns = {"max_turns": WORKER_TURNS} if limited else {}
        delegate = worker.as_tool(
            "delegate", "Hand a subtask to a worker agent.", parameters=Subtask, **turns
        )
        return Agent(name="lead", model=bind.model("main"), tools=[delegate])

    return OpenAIAgentsAdapter(
        lead, per_agent=True, **({"max_turns": LEAD_TURNS} if limited else {})
    )


FAMILIES = NOT_NESTED
# scenario → (at the defaults, with the recommended limits): how the run ended, its steps, the
# rules broken
MEASURED: dict[str, tuple[str, str]] = {
    "mixed-fan-out/one-denied": (
        "COMPLETED at 21: false_completion, incomplete_subtasks, retried_refusal",
        "COMPLETED at 16: false_completion, incomplete_subtasks, retried_refusal",
    ),
    "duplicate-dispatch/lost-return": (
        "BUDGET_STEPS at 43: duplicate_dispatch, finished_not_listed, past_bound",
        "BUDGET_STEPS at 27: duplicate_dispatch, finished_not_listed, past_bound",
    ),
    "task-graph/upstream-down": (
        "COMPLETED at 20: failure_not_propagated, false_completion, incomplete_subtasks, "
        "past_bound, retried_refusal",
        "COMPLETED at 15: failure_not_propagated, false_completion, incomplete_subtasks, "
        "retried_refusal",
    ),
    "role-ping-pong/reviewer-never-accepts": (
        "BUDGET_STEPS at 30: past_bound",
        "BUDGET_STEPS at 18: unspent_budget",
    ),
    "budget-edge/shared-dollars": (
        "COMPLETED at 42: false_completion, incomplete_subtasks, past_bound, past_budget, "
        "shared_budget_overrun, unaffordable_step",
        "COMPLETED at 22: false_completion, incomplete_subtasks, past_budget, "
        "shared_budget_overrun, unaffordable_step",
    ),
    "per-role-budgets/role-cap-spent": (
        "COMPLETED at 15: failure_not_propagated, false_completion, incomplete_subtasks, "
        "role_budget_overrun",
        "COMPLETED at 10: failure_not_propagated, false_completion, incomplete_subtasks, "
        "role_budget_overrun",
    ),
    "per-role-budgets/run-cap-spent": (
        "COMPLETED at 25: failure_not_propagated, false_completion, incomplete_subtasks, "
        "past_bound, role_budget_overrun",
        "COMPLETED at 15: failure_not_propagated, false_completion, incomplete_subtasks, "
        "past_bound",
    ),
    "fan-out/rate-limit-storm": (
        "did_not_stop at 200: did_not_stop, past_budget, past_token_budget, retried_refusal",
        "BUDGET_STEPS at 126: blocker_not_named, past_bound, past_budget, past_token_budget, "
        "retried_refusal",
    ),
    "mixed-fan-out/one-worker-hangs": (
        "COMPLETED at 21: false_completion, incomplete_subtasks, past_time_budget, retried_refusal",
        "COMPLETED at 16: false_completion, incomplete_subtasks, past_time_budget, retried_refusal",
    ),
    "todo-spawn/subtasks-spawned": (
        "BUDGET_STEPS at 43: finished_not_listed, past_bound",
        "BUDGET_STEPS at 27: finished_not_listed, past_bound",
    ),
}


@pytest.mark.parametrize("name", FAMILIES)
def test_each_family_at_the_defaults_and_with_the_recommended_limits(name: str) -> None:
    cells = tuple(
        ending(unsolvable.run(system(limited), scenarios.get(name), ceilings=ROOMY))
        for limited in (False, True)
    )
    assert cells == MEASURED[name], cells


@pytest.mark.parametrize("turns", [None, LEAD_TURNS], ids=["defaults", "max_turns"])
def test_a_handoff_ends_role_ping_pong_at_the_workers_first_answer(turns: int | None) -> None:
    """With the worker as a handoff (``handoffs=[…]``, its tool named ``delegate``) in place of a
    tool, the lead gives the conversation away for good: the worker's first final answer is the
    run's output, and no draft is ever reviewed — ``max_turns`` never comes into it. No message
    names the worker its subtask (it is in the lead's call's arguments; a handoff's result is the
    agent's name), so it answers at once."""

    def lead(bind: AgentBindings) -> Agent[Any]:
        tools = [t for t in bind.tools("worker") if t.name != "delegate"]
        worker = Agent(name="worker", model=bind.model("worker"), tools=tools)
        delegate = handoff(worker, tool_name_override="delegate")
        return Agent(name="lead", model=bind.model("main"), handoffs=[delegate])

    limits = {} if turns is None else {"max_turns": turns}
    adapter = OpenAIAgentsAdapter(lead, per_agent=True, **limits)
    scenario = scenarios.get("role-ping-pong/reviewer-never-accepts")
    record = unsolvable.run(adapter, scenario, ceilings=ROOMY)
    assert record.observed.steps_by_agent == {"main": 1, "worker": 1}
    rules = sorted({f.rule.value for f in record.verdict.failures})
    assert (record.code, rules) == (Code.COMPLETED, ["false_completion", "incomplete_subtasks"])
    (draft,) = record.observed.subtasks
    assert (draft.state, draft.workers) == (SubtaskState.SKIPPED, ())


def swarm(turns: int | None) -> OpenAIAgentsAdapter:
    """A reviewer and a producer handing the task to each other with the SDK's own handoffs
    (``transfer_to_producer``, ``transfer_to_reviewer``, at their defaults), in place of the
    scenario's tools of those names; each handoff is told to the world from its ``on_handoff``.
    Each agent is on a model of its own, its calls its own steps."""

    def build(bind: AgentBindings) -> Agent[Any]:
        def to(target: Agent[Any], by: str) -> Handoff[Any, Any]:
            made = handoff(
                target, on_handoff=lambda _: report_handoff(bind.session, made.tool_name, agent=by)
            )
            return made

        reviewer = Agent(
            name="reviewer",
            model=bind.model("reviewer"),
            tools=without_handoffs(bind.tools("reviewer")),
        )
        producer = Agent(
            name="producer",
            model=bind.model("producer"),
            tools=without_handoffs(bind.tools("producer")),
            handoffs=[to(reviewer, by="producer")],
        )
        reviewer.handoffs.append(to(producer, by="reviewer"))
        return reviewer

    return OpenAIAgentsAdapter(
        build, per_agent=True, **({} if turns is None else {"max_turns": turns})
    )


# scenario → (at the defaults, with ``max_turns``): how the run ended, its steps, the rules broken
HANDOFFS_MEASURED: dict[str, tuple[str, str]] = {
    "role-ping-pong/handoff-bounce": (
        "BUDGET_STEPS at 10: past_bound, unspent_budget",
        "BUDGET_STEPS at 6: unspent_budget",
    ),
    "role-ping-pong/twin-handoff-converges": ("COMPLETED at 5: pass",) * 2,
}


@pytest.mark.parametrize("name", HANDOFF_SCENARIOS)
def test_handoffs_between_two_agents_at_the_defaults_and_with_max_turns(name: str) -> None:
    """The SDK's handoffs take the scenario's place and answer as it does; the world hears of
    each, so the bounce's first stagnant step is the scenario's own (its second
    ``transfer_to_producer``, step 3 at seed 0)."""
    records = [
        unsolvable.run(swarm(turns), scenarios.get(name), ceilings=ROOMY)
        for turns in (None, LEAD_TURNS)
    ]
    assert tuple(map(ending, records)) == HANDOFFS_MEASURED[name]
    assert {agent for r in records for agent in r.observed.steps_by_agent} == {
        "producer",
        "reviewer",
    }
    if name == "role-ping-pong/handoff-bounce":
        assert {r.observed.first_stagnant_step for r in records} == {3}


def test_the_sdks_handoff_tool_is_the_scenarios() -> None:
    """Its default name, description and answer are the ones the scenario's tool has."""
    scenario = scenarios.get("role-ping-pong/handoff-bounce")
    spec = next(s for s in scenario.build(0).toolbox.specs if s.name == "transfer_to_producer")
    producer = Agent(name="producer")
    made = handoff(producer)
    assert (made.tool_name, made.tool_description.strip()) == (spec.name, spec.description)
    assert made.get_transfer_message(producer) == '{"assistant": "producer"}'


OUT_OF_TURNS: tuple[str, str] = (
    "COMPLETED at 21: false_completion, incomplete_subtasks, past_bound, role_budget_overrun",
    "COMPLETED at 16: false_completion, incomplete_subtasks",
)
"""``mixed-fan-out/out-of-turns-reported-done`` at the defaults and with ``max_turns``."""


def test_a_worker_out_of_turns_is_reported_to_the_lead_as_a_tool_error() -> None:
    """The archivist's run raises `MaxTurnsExceeded` (at 10 turns, or at ``as_tool``'s 5), and
    ``as_tool``'s default ``failure_error_function`` hands the lead the SDK's generic tool error,
    which names no limit: an error, not a success, and the lead claims all four filed anyway."""
    scenario = scenarios.get("mixed-fan-out/out-of-turns-reported-done")
    records = [
        unsolvable.run(system(limited), scenario, ceilings=ROOMY) for limited in (False, True)
    ]
    assert tuple(map(ending, records)) == OUT_OF_TURNS
    assert [r.observed.steps_by_agent for r in records] == [
        {"main": 2, "worker": 19},
        {"main": 2, "worker": 14},
    ]
    for record in records:
        assert record.reported is not None and record.reported.partial is not None
        *_, last_return, claim = record.reported.partial["tail"]
        assert last_return == {"role": "tool", "content": TOOL_ERROR}
        assert claim["content"] == "All 4 audits are filed."
        assert [s.state for s in record.observed.subtasks] == [SubtaskState.SUCCEEDED] * 3 + [
            SubtaskState.ABANDONED
        ]


def test_a_run_is_the_same_whatever_order_its_workers_first_requests_leave_in(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The lead delegates four audits in one turn, and the SDK starts the four worker runs at
    once; each client's first request finds the platform on a worker thread. Those threads end in
    any order on a loaded machine, and the record must not follow them."""
    scenario = scenarios.get("mixed-fan-out/one-denied")
    plain = unsolvable.run(system(False), scenario, ceilings=ROOMY)
    probe = LastFirst(openai._base_client.get_platform)
    monkeypatch.setattr(openai._base_client, "get_platform", probe)
    last_first = unsolvable.run(system(False), scenario, ceilings=ROOMY)
    assert last_first.to_json() == plain.to_json()
