"""A pydantic-ai lead that delegates each subtask to a fresh worker agent in its ``delegate`` tool,
as pydantic-ai's docs delegate (``worker.run(…, usage=ctx.usage)``, the worker's requests counted
in the lead's usage), every agent on a model of its own (``per_agent=True``), on the multi-agent
families at pydantic-ai's defaults: each agent's requests are its own steps."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

pytest.importorskip("pydantic_ai")

from pydantic_ai import Agent, RunContext, Tool

import unsolvable
from tests.frameworks._families import DELEGATION_FAMILIES, ROOMY, ending
from tests.frameworks._last_first import last_first_session
from unsolvable import Ceilings, scenarios
from unsolvable.adapters.pydantic_ai import AgentBindings, PydanticAIAdapter


def supervisor(bind: AgentBindings) -> Agent[None, str]:
    """The lead (``main``); each ``delegate`` call runs a worker (``worker-1``, ``worker-2``, …)
    on its subtask, which may delegate further."""
    names = itertools.count(1)

    async def delegate(
        ctx: RunContext[None],
        subtask: str,
        depends_on: list[str] | None = None,
        role: str | None = None,
    ) -> str:
        """Hand a subtask to a worker agent, which runs it and reports back."""
        name = f"worker-{next(names)}"
        worker = Agent(bind.model(name), tools=tools_of(name))
        brief = {"subtask": subtask, "depends_on": depends_on or []}
        task = json.dumps(brief | ({"role": role} if role else {}))
        return (await worker.run(task, usage=ctx.usage)).output

    def tools_of(name: str) -> list[Tool[Any]]:
        own = [t for t in bind.tools(name) if t.name != "delegate"]
        return [*own, Tool(delegate, takes_ctx=True)]

    return Agent(bind.model("main"), tools=tools_of("main"))


FAMILIES_MEASURED: dict[str, str] = {
    "mixed-fan-out/one-denied": "BUDGET_STEPS at 50: blocker_not_named, finished_not_listed, "
    "past_bound, past_budget, past_token_budget, retried_refusal",
    "duplicate-dispatch/lost-return": "BUDGET_STEPS at 50: duplicate_dispatch, "
    "finished_not_listed, past_bound",
    "task-graph/upstream-down": "BUDGET_STEPS at 50: blocker_not_named, past_bound, "
    "past_budget, past_token_budget, retried_refusal",
    "role-ping-pong/reviewer-never-accepts": "BUDGET_STEPS at 50: past_bound",
    "nested-delegation/passed-on": "BUDGET_STEPS at 50: finished_not_listed, past_bound",
    "budget-edge/shared-dollars": "BUDGET_STEPS at 50: past_bound, past_budget, "
    "shared_budget_overrun, unaffordable_step",
    "per-role-budgets/role-cap-spent": "BUDGET_STEPS at 50: past_bound, role_budget_overrun",
    "per-role-budgets/run-cap-spent": "BUDGET_STEPS at 50: past_bound, role_budget_overrun",
    "fan-out/rate-limit-storm": "BUDGET_STEPS at 50: blocker_not_named, past_bound, "
    "retried_refusal",
    "mixed-fan-out/one-worker-hangs": "BUDGET_STEPS at 50: blocker_not_named, "
    "finished_not_listed, past_bound, past_budget, past_time_budget, past_token_budget, "
    "retried_refusal",
    "todo-spawn/subtasks-spawned": "BUDGET_STEPS at 50: finished_not_listed, past_bound",
}
"""Each family at pydantic-ai's defaults (``UsageLimits()``: 50 requests, which the workers'
requests count against through the lead's usage): how the run ended, its steps and the rules it
broke. A worker's run that reaches the limit raises through the lead's ``delegate`` call, and the
whole run ends there."""


@pytest.mark.parametrize("name", DELEGATION_FAMILIES)
def test_each_family_at_the_defaults(name: str) -> None:
    adapter = PydanticAIAdapter(supervisor, per_agent=True)
    record = unsolvable.run(adapter, scenarios.get(name), ceilings=ROOMY)
    assert ending(record) == FAMILIES_MEASURED[name]


def test_workers_that_run_at_once_reach_the_session_in_the_same_order_every_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The lead delegates four audits in one reply, and pydantic-ai runs the four ``delegate``
    calls at once: however a loaded machine schedules the workers' requests, the record is the
    same."""
    scenario, ceilings = scenarios.get("mixed-fan-out/one-denied"), Ceilings(max_steps=8)
    plain = unsolvable.run(
        PydanticAIAdapter(supervisor, per_agent=True), scenario, ceilings=ceilings
    )
    last_first_session(monkeypatch, "call_model")
    adapter = PydanticAIAdapter(supervisor, per_agent=True)
    assert unsolvable.run(adapter, scenario, ceilings=ceilings).to_json() == plain.to_json()
