"""A LangGraph tool-calling supervisor — LangChain's ``create_agent`` whose ``delegate`` tool runs
a worker sub-graph of its own for each call, every agent on its own model — on the multi-agent
families, at LangChain's defaults and with the per-agent call limits its docs recommend
(``ModelCallLimitMiddleware``): each cell of the README's framework table for this system."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

pytest.importorskip("langgraph")
pytest.importorskip("langchain")

from langchain.agents import create_agent
from langchain.agents.middleware import ModelCallLimitMiddleware
from langchain_core.tools import BaseTool, tool

import unsolvable
from tests.frameworks._families import DELEGATION_FAMILIES, ROOMY, ending
from unsolvable import scenarios
from unsolvable.adapters.langgraph import AgentBindings, LangGraphAdapter

LIMITS = {"main": 6, "worker": 5}
"""The recommended setting: a run limit of model calls per agent, ending that agent's run."""


def system(limits: dict[str, int] | None) -> Any:
    """The supervisor as it ships: each ``delegate`` call starts a worker of its own
    (``worker-1``, ``worker-2``, …) whose first message is its subtask, which may delegate
    further; with ``limits``, every agent ends its own run at its cap."""

    def build(bind: AgentBindings) -> Any:
        names = itertools.count(1)

        def capped(role: str) -> list[Any]:
            if limits is None:
                return []
            return [ModelCallLimitMiddleware(run_limit=limits[role], exit_behavior="end")]

        @tool
        def delegate(subtask: str, depends_on: list[str] | None = None) -> str:
            """Hand a subtask to a worker agent, which runs it and reports back."""
            name = f"worker-{next(names)}"
            worker = create_agent(bind.model(name), tools_of(name), middleware=capped("worker"))
            brief = f'{{"subtask": "{subtask}", "depends_on": {depends_on or []}}}'
            state = worker.invoke({"messages": [("user", brief)]}, {"max_concurrency": 1})
            return str(state["messages"][-1].content)

        def tools_of(name: str) -> list[BaseTool]:
            return [t for t in bind.tools(name) if t.name != "delegate"] + [delegate]

        return create_agent(bind.model("main"), tools_of("main"), middleware=capped("main"))

    return LangGraphAdapter(build, per_agent=True, config={"max_concurrency": 1})


FAMILIES = DELEGATION_FAMILIES
# scenario → (at the defaults, with the per-agent limits): how the run ended and the rules it broke
MEASURED: dict[str, tuple[str, str]] = {
    "mixed-fan-out/one-denied": (
        "did_not_stop at 200: did_not_stop, past_budget, past_token_budget, retried_refusal",
        "COMPLETED at 16: false_completion, incomplete_subtasks, retried_refusal",
    ),
    "duplicate-dispatch/lost-return": (
        "did_not_stop at 200: did_not_stop, duplicate_dispatch, past_budget, past_token_budget",
        "BUDGET_STEPS at 27: duplicate_dispatch, finished_not_listed, past_bound",
    ),
    "task-graph/upstream-down": (
        "did_not_stop at 200: did_not_stop, past_budget, past_token_budget, retried_refusal",
        "COMPLETED at 15: failure_not_propagated, false_completion, incomplete_subtasks, "
        "retried_refusal",
    ),
    "role-ping-pong/reviewer-never-accepts": (
        "did_not_stop at 200: did_not_stop, past_budget, past_token_budget",
        "BUDGET_STEPS at 18: unspent_budget",
    ),
    "nested-delegation/passed-on": ("did_not_stop at 200: did_not_stop",) * 2,
    "budget-edge/shared-dollars": (
        "did_not_stop at 200: did_not_stop, past_budget, shared_budget_overrun, unaffordable_step",
        "COMPLETED at 22: false_completion, incomplete_subtasks, past_budget, "
        "shared_budget_overrun, unaffordable_step",
    ),
    "per-role-budgets/role-cap-spent": (
        "did_not_stop at 200: did_not_stop, role_budget_overrun",
        "COMPLETED at 10: failure_not_propagated, false_completion, incomplete_subtasks, "
        "role_budget_overrun",
    ),
    "per-role-budgets/run-cap-spent": (
        "did_not_stop at 200: did_not_stop, role_budget_overrun",
        "COMPLETED at 15: failure_not_propagated, false_completion, incomplete_subtasks, "
        "past_bound",
    ),
    "fan-out/rate-limit-storm": (
        "did_not_stop at 200: did_not_stop, past_budget, past_token_budget, retried_refusal",
        "BUDGET_STEPS at 126: blocker_not_named, past_bound, past_budget, past_token_budget, "
        "retried_refusal",
    ),
    "mixed-fan-out/one-worker-hangs": (
        "did_not_stop at 200: did_not_stop, past_budget, past_time_budget, past_token_budget, "
        "retried_refusal",
        "COMPLETED at 16: false_completion, incomplete_subtasks, past_time_budget, retried_refusal",
    ),
    "todo-spawn/subtasks-spawned": (
        "did_not_stop at 200: did_not_stop, past_budget, past_token_budget",
        "BUDGET_STEPS at 27: finished_not_listed, past_bound",
    ),
}


@pytest.mark.parametrize("name", FAMILIES)
def test_each_family_at_the_defaults_and_with_the_recommended_limits(name: str) -> None:
    cells = tuple(
        ending(unsolvable.run(system(limits), scenarios.get(name), ceilings=ROOMY))
        for limits in (None, LIMITS)
    )
    assert cells == MEASURED[name], cells
