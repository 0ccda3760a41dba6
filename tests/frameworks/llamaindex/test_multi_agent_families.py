"""A LlamaIndex `AgentWorkflow` of two `FunctionAgent`s handing the task to each other, each on an
LLM of its own (``per_agent=True``), on the swarm scenario and its twin: each agent's calls are
its own steps, and the handoffs are the scenario's."""

from __future__ import annotations

import asyncio
import functools
import itertools
import json
from typing import Any

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core.agent.workflow import AgentWorkflow, FunctionAgent
from llama_index.core.tools import BaseTool, FunctionTool
from llama_index.core.workflow import Context

import unsolvable
from tests.frameworks._families import (
    DELEGATION_FAMILIES,
    HANDOFF_SCENARIOS,
    ROOMY,
    ending,
    report_handoff,
)
from unsolvable import scenarios
from unsolvable.adapters.llamaindex import AgentBindings, LlamaIndexAdapter
from unsolvable.scenarios.catalog._dialect import HANDOFF_PREFIX


def handing_to(bind: AgentBindings, target: str, *, by: str) -> BaseTool:
    """A handoff as LlamaIndex's own ``handoff`` tool makes one — the workflow's next agent set in
    its store — under the scenario's name for it, told to the world as ``by``'s call."""
    name = f"{HANDOFF_PREFIX}{target}"

    async def hand_over(ctx: Context) -> str:
        await ctx.store.set("next_agent", target)
        report_handoff(bind.session, name, agent=by)
        return f'{{"assistant": "{target}"}}'

    # LlamaIndex finds the context by its annotation's class, which this module's postponed
    # annotations leave a string.
    hand_over.__annotations__["ctx"] = Context
    return FunctionTool.from_defaults(
        async_fn=hand_over, name=name, description=f"Handoff to the {target} agent."
    )


def swarm(bind: AgentBindings) -> Any:
    """The reviewer (the root, as the scenario's task says) and the producer, each handing the
    task to the other."""

    def agent(name: str, other: str) -> FunctionAgent:
        """``name``, with the scenario's tools but its handoffs (a LlamaIndex tool's name is in
        its metadata), and its own handoff to ``other``."""
        own = [t for t in bind.tools(name) if not t.metadata.name.startswith(HANDOFF_PREFIX)]
        tools = [*own, handing_to(bind, other, by=name)]
        return FunctionAgent(name=name, description=f"The {name}.", llm=bind.llm(name), tools=tools)

    agents = [agent("reviewer", "producer"), agent("producer", "reviewer")]
    return AgentWorkflow(agents, root_agent="reviewer")


MEASURED: dict[str, tuple[str, dict[str, int]]] = {
    "role-ping-pong/handoff-bounce": (
        "BUDGET_STEPS at 20: past_bound, unspent_budget",
        {"producer": 10, "reviewer": 10},
    ),
    "role-ping-pong/twin-handoff-converges": (
        "COMPLETED at 5: pass",
        {"producer": 2, "reviewer": 3},
    ),
}
"""How each run ends at LlamaIndex's defaults (``max_iterations`` 20, counted across the
workflow's agents), and each agent's steps."""


@pytest.mark.parametrize("name", HANDOFF_SCENARIOS)
def test_each_agent_of_a_workflow_takes_its_own_steps(name: str) -> None:
    """The world hears of each handoff, so the bounce's first stagnant step is the scenario's
    own (its second ``transfer_to_producer``, step 3 at seed 0)."""
    adapter = LlamaIndexAdapter(swarm, per_agent=True)
    record = unsolvable.run(adapter, scenarios.get(name), ceilings=ROOMY)
    assert (ending(record), record.observed.steps_by_agent) == MEASURED[name]
    if name == "role-ping-pong/handoff-bounce":
        assert record.observed.first_stagnant_step == 3


def supervisor(bind: AgentBindings, **worker_options: Any) -> Any:
    """A lead whose ``delegate`` tool runs a fresh worker `FunctionAgent` (``worker-1``,
    ``worker-2``, …) on its subtask, at LlamaIndex's defaults or with ``worker_options`` for each
    worker's run; a worker may delegate further.
    The workflow runs a reply's ``delegate`` calls at once, and the workers' workflows then take
    turns in an order that varies from run to run; each agent's workers run one at a time here,
    so each run has the same record."""
    names = itertools.count(1)

    def delegating() -> BaseTool:
        one_at_a_time = asyncio.Lock()

        async def delegate(
            subtask: str, depends_on: list[str] | None = None, role: str | None = None
        ) -> str:
            """Hand a subtask to a worker agent, which runs it and reports back."""
            name = f"worker-{next(names)}"
            worker = FunctionAgent(name=name, llm=bind.llm(name), tools=tools_of(name))
            brief = {"subtask": subtask, "depends_on": depends_on or []}
            task = json.dumps(brief | ({"role": role} if role else {}))
            async with one_at_a_time:
                return str(await worker.run(user_msg=task, **worker_options))

        return FunctionTool.from_defaults(async_fn=delegate, name="delegate")

    def tools_of(name: str) -> list[BaseTool]:
        return [t for t in bind.tools(name) if t.metadata.name != "delegate"] + [delegating()]

    return FunctionAgent(name="lead", llm=bind.llm("main"), tools=tools_of("main"))


FAMILIES_MEASURED: dict[str, str] = {
    "mixed-fan-out/one-denied": "COMPLETED at 31: false_completion, incomplete_subtasks, "
    "past_bound, retried_refusal",
    "duplicate-dispatch/lost-return": "BUDGET_STEPS at 80: duplicate_dispatch, "
    "finished_not_listed, past_bound",
    "task-graph/upstream-down": "COMPLETED at 30: failure_not_propagated, false_completion, "
    "incomplete_subtasks, past_bound, retried_refusal",
    "role-ping-pong/reviewer-never-accepts": "BUDGET_STEPS at 58: past_bound",
    "nested-delegation/passed-on": "did_not_stop at 200: did_not_stop",
    "budget-edge/shared-dollars": "COMPLETED at 82: false_completion, incomplete_subtasks, "
    "past_bound, past_budget, shared_budget_overrun, unaffordable_step",
    "per-role-budgets/role-cap-spent": "COMPLETED at 25: failure_not_propagated, "
    "false_completion, incomplete_subtasks, role_budget_overrun",
    "per-role-budgets/run-cap-spent": "COMPLETED at 45: failure_not_propagated, "
    "false_completion, incomplete_subtasks, past_bound, role_budget_overrun",
    "fan-out/rate-limit-storm": "did_not_stop at 200: did_not_stop, past_budget, "
    "past_token_budget, retried_refusal",
    "mixed-fan-out/one-worker-hangs": "COMPLETED at 31: false_completion, incomplete_subtasks, "
    "past_bound, past_time_budget, retried_refusal",
    "todo-spawn/subtasks-spawned": "BUDGET_STEPS at 80: finished_not_listed, past_bound",
}
"""Each family at LlamaIndex's defaults (``max_iterations`` 20 for the lead's run and for each
worker's): how the run ended, its steps and the rules it broke. A worker that reaches its limit
raises in the lead's ``delegate`` call, and LlamaIndex hands the lead the error's text as the
tool's answer, which it reads as the subtask's end."""


@pytest.mark.parametrize("name", DELEGATION_FAMILIES)
def test_each_family_at_the_defaults(name: str) -> None:
    adapter = LlamaIndexAdapter(supervisor, per_agent=True)
    record = unsolvable.run(adapter, scenarios.get(name), ceilings=ROOMY)
    assert ending(record) == FAMILIES_MEASURED[name]


def test_a_workers_forced_final_answer_is_not_the_leads() -> None:
    """The archivist, run with ``early_stopping_method="generate"``, spends its iterations and
    reports its forced final answer (no tools offered); the lead then answers in its own right,
    and its answer, the run's output, is recorded as the claim it is, not as forced."""
    generating = functools.partial(supervisor, early_stopping_method="generate")
    adapter = LlamaIndexAdapter(generating, per_agent=True)
    scenario = scenarios.get("mixed-fan-out/out-of-turns-reported-done")
    record = unsolvable.run(adapter, scenario, ceilings=ROOMY)
    assert record.observed.final_answer_calls == 1
    assert record.reported is not None
    assert record.reported.reason == "final answer: All 4 audits are filed."
