"""An OpenAI Agents SDK system — a lead that runs a worker agent as its ``delegate`` tool
(agents-as-tools), each agent on its own model — on the multi-agent families, at the SDK's
defaults (``max_turns`` 10 for the lead and for each worker run) and with the turn limits its docs
recommend setting for each (the runner's and ``as_tool``'s ``max_turns``): each cell of the
README's framework table for this system.

The SDK runs the lead's four ``delegate`` calls of one turn concurrently, under one worker name:
the harness tells their steps apart by the subtask each conversation names, but a tool call is
the worker's, not one run's, so only how each run ended is pinned here."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("agents")

from agents import Agent, handoff
from pydantic import BaseModel

import unsolvable
from tests.frameworks._families import ROOMY, ending
from unsolvable import Code, SubtaskState, scenarios
from unsolvable.adapters.openai_agents import AgentBindings, OpenAIAgentsAdapter

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


FAMILIES = (
    "mixed-fan-out/one-denied",
    "duplicate-dispatch/lost-return",
    "task-graph/upstream-down",
    "role-ping-pong/reviewer-never-accepts",
    "budget-edge/shared-dollars",
    "per-role-budgets/role-cap-spent",
    "per-role-budgets/run-cap-spent",
)
# scenario → (at the defaults, with the recommended limits): how the run ended, the rules broken
MEASURED: dict[str, tuple[str, str]] = {
    "mixed-fan-out/one-denied": (
        "COMPLETED: false_completion, incomplete_subtasks, retried_refusal",
    )
    * 2,
    "duplicate-dispatch/lost-return": (
        "BUDGET_STEPS: duplicate_dispatch, finished_not_listed, past_bound",
    )
    * 2,
    "task-graph/upstream-down": (
        "COMPLETED: failure_not_propagated, false_completion, incomplete_subtasks, past_bound, "
        "retried_refusal",
        "COMPLETED: failure_not_propagated, false_completion, incomplete_subtasks, retried_refusal",
    ),
    "role-ping-pong/reviewer-never-accepts": (
        "BUDGET_STEPS: past_bound",
        "BUDGET_STEPS: unspent_budget",
    ),
    "budget-edge/shared-dollars": (
        "COMPLETED: false_completion, incomplete_subtasks, past_bound, past_budget, "
        "shared_budget_overrun, unaffordable_step",
        "COMPLETED: false_completion, incomplete_subtasks, past_budget, shared_budget_overrun, "
        "unaffordable_step",
    ),
    "per-role-budgets/role-cap-spent": (
        "COMPLETED: failure_not_propagated, false_completion, incomplete_subtasks, "
        "role_budget_overrun",
    )
    * 2,
    "per-role-budgets/run-cap-spent": (
        "COMPLETED: failure_not_propagated, false_completion, incomplete_subtasks, past_bound, "
        "role_budget_overrun",
        "COMPLETED: failure_not_propagated, false_completion, incomplete_subtasks, past_bound",
    ),
}


@pytest.mark.parametrize("name", FAMILIES)
def test_each_family_at_the_defaults_and_with_the_recommended_limits(name: str) -> None:
    cells = tuple(
        ending(unsolvable.run(system(limited), scenarios.get(name), ceilings=ROOMY), steps=False)
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
