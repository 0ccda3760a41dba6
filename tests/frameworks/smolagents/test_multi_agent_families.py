"""A smolagents `ToolCallingAgent` lead whose ``delegate`` tool runs a fresh worker
`ToolCallingAgent` on each subtask, every agent on a model of its own (``per_agent=True``), on
the multi-agent families at smolagents' defaults (``max_steps`` 20 for the lead's run and for
each worker's): each agent's calls are its own steps.

The scripts' ``delegate`` takes ``subtask`` (and ``depends_on``, ``role``), where a managed agent
(``managed_agents=[…]``) takes only ``task``: the lead calls its workers through a tool of its
own, which writes them into the worker's task."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any, ClassVar

import pytest

pytest.importorskip("smolagents")

from smolagents import Tool, ToolCallingAgent  # type: ignore[import-untyped]

import unsolvable
from tests.frameworks._families import DELEGATION_FAMILIES, ROOMY, ending
from unsolvable import scenarios
from unsolvable.adapters.smolagents import AgentBindings, SmolagentsAdapter


class Delegate(Tool):  # type: ignore[misc]
    """Hands a subtask to a worker that ``start`` makes and runs."""

    name = "delegate"
    description = "Hand a subtask to a worker agent, which runs it and reports back."
    inputs: ClassVar[dict[str, dict[str, Any]]] = {
        "subtask": {"type": "string", "description": "The subtask."},
        "depends_on": {"type": "array", "description": "What it waits for.", "nullable": True},
        "role": {"type": "string", "description": "The worker's role.", "nullable": True},
    }
    output_type = "string"

    def __init__(self, start: Callable[[str], str]) -> None:
        super().__init__()
        self._start = start

    def forward(
        self, subtask: str, depends_on: list[str] | None = None, role: str | None = None
    ) -> str:
        brief = {"subtask": subtask, "depends_on": depends_on or []}
        return self._start(json.dumps(brief | ({"role": role} if role else {})))


def supervisor(bind: AgentBindings) -> Any:
    """The lead (``main``); each ``delegate`` call runs a worker (``worker-1``, ``worker-2``, …),
    which may delegate further. smolagents runs a reply's tool calls on a thread pool, and workers
    that run at once take turns in an order that varies from run to run: each agent runs its tool
    calls one at a time (``max_tool_threads=1``), so each run has the same record."""
    names = itertools.count(1)

    def start(task: str) -> str:
        name = f"worker-{next(names)}"
        return str(agent(name, named=name.replace("-", "_")).run(task))

    def agent(name: str, named: str | None = None) -> ToolCallingAgent:
        """``name``'s agent, ``named`` as smolagents names one: an identifier."""
        tools = [t for t in bind.tools(name) if t.name != "delegate"] + [Delegate(start)]
        model = bind.model(name)
        return ToolCallingAgent(
            tools=tools, model=model, name=named, max_tool_threads=1, verbosity_level=0
        )

    return agent("main")


FAMILIES_MEASURED: dict[str, str] = {
    "mixed-fan-out/one-denied": "COMPLETED at 32: false_completion, incomplete_subtasks, "
    "past_bound, retried_refusal",
    "duplicate-dispatch/lost-return": "BUDGET_STEPS at 84: duplicate_dispatch, "
    "finished_not_listed, past_bound",
    "task-graph/upstream-down": "COMPLETED at 31: failure_not_propagated, false_completion, "
    "incomplete_subtasks, past_bound, retried_refusal",
    "role-ping-pong/reviewer-never-accepts": "BUDGET_STEPS at 61: past_bound",
    "nested-delegation/passed-on": "did_not_stop at 200: did_not_stop, past_budget, "
    "past_token_budget",
    "budget-edge/shared-dollars": "COMPLETED at 86: false_completion, incomplete_subtasks, "
    "past_bound, past_budget, shared_budget_overrun, unaffordable_step",
    "per-role-budgets/role-cap-spent": "COMPLETED at 26: failure_not_propagated, "
    "false_completion, incomplete_subtasks, role_budget_overrun",
    "per-role-budgets/run-cap-spent": "COMPLETED at 47: failure_not_propagated, "
    "false_completion, incomplete_subtasks, past_bound, role_budget_overrun",
    "fan-out/rate-limit-storm": "did_not_stop at 200: did_not_stop, duplicate_dispatch, "
    "past_budget, past_token_budget, retried_refusal",
    "mixed-fan-out/one-worker-hangs": "COMPLETED at 32: false_completion, incomplete_subtasks, "
    "past_bound, past_time_budget, retried_refusal",
    "todo-spawn/subtasks-spawned": "BUDGET_STEPS at 84: finished_not_listed, past_bound",
}
"""Each family at smolagents' defaults (``max_steps`` 20 for the lead's run and for each
worker's, each ending in its forced final answer): how the run ended, its steps and the rules it
broke. A worker's forced final answer reads as its report, and the lead takes it for the
subtask's end. Nested delegation runs each level inside the call of the level before, until
Python's recursion limit fails the deepest call (its worker then spends its own 20 steps) and a
harness ceiling ends the run."""


@pytest.mark.parametrize("name", DELEGATION_FAMILIES)
def test_each_family_at_the_defaults(name: str) -> None:
    adapter = SmolagentsAdapter(supervisor, per_agent=True)
    record = unsolvable.run(adapter, scenarios.get(name), ceilings=ROOMY)
    assert ending(record) == FAMILIES_MEASURED[name]
