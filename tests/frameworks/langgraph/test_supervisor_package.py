"""A ``langgraph-supervisor`` system — ``create_supervisor`` over one LangChain ``create_agent``
worker, the supervisor's handoff to it the package's own ``create_handoff_tool`` under the
scripts' name, ``delegate`` — on the multi-agent families, at LangGraph's defaults and with a
``recursion_limit`` of 25: each cell of docs/frameworks.md's table for this system.

The package's handoff carries no brief: the worker is handed the whole conversation, where its
subtask is only in the supervisor's call's arguments, which the scripted worker does not take
for one (as for the Agents SDK's handoffs); so it claims its work done at once."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langgraph")
pytest.importorskip("langgraph_supervisor")

from langchain.agents import create_agent
from langgraph_supervisor import create_handoff_tool, create_supervisor

import unsolvable
from tests.frameworks._families import ROOMY, ending
from unsolvable import SubtaskState, scenarios
from unsolvable.adapters.langgraph import AgentBindings, LangGraphAdapter

RECURSION_LIMIT = 25
"""The recommended setting: LangGraph's former default (1.2's is 10,007)."""

pytestmark = pytest.mark.filterwarnings(
    # create_supervisor builds its supervisor with LangGraph's own deprecated create_react_agent.
    "ignore:create_react_agent has been moved:DeprecationWarning",
)


def system(limit: int | None) -> LangGraphAdapter:
    def build(bind: AgentBindings) -> Any:
        tools = [t for t in bind.tools("worker") if t.name != "delegate"]
        worker = create_agent(bind.model("worker"), tools, name="worker")
        delegate = create_handoff_tool(
            agent_name="worker", name="delegate", description="Hand a subtask to a worker agent."
        )
        own = [t for t in bind.tools("main") if t.name != "delegate"]
        supervisor = create_supervisor([worker], model=bind.model("main"), tools=[delegate, *own])
        return supervisor.compile()

    return LangGraphAdapter(
        build, per_agent=True, recursion_limit=limit, config={"max_concurrency": 1}
    )


# scenario → (at the defaults, with the recursion limit): how the run ended and the rules it broke
MEASURED: dict[str, tuple[str, str]] = {
    "mixed-fan-out/one-denied": ("COMPLETED at 3: false_completion, incomplete_subtasks",) * 2,
    "duplicate-dispatch/lost-return": (
        "did_not_stop at 200: did_not_stop, past_budget, past_token_budget",
        "BUDGET_STEPS at 25: past_bound, past_budget, past_token_budget",
    ),
    "task-graph/upstream-down": ("COMPLETED at 7: false_completion, incomplete_subtasks",) * 2,
    "role-ping-pong/reviewer-never-accepts": (
        "did_not_stop at 200: did_not_stop, past_budget, past_token_budget",
        "BUDGET_STEPS at 25: past_bound",
    ),
    "nested-delegation/passed-on": ("COMPLETED at 3: false_completion, incomplete_subtasks",) * 2,
    "budget-edge/shared-dollars": ("COMPLETED at 3: false_completion, incomplete_subtasks",) * 2,
    "per-role-budgets/role-cap-spent": ("COMPLETED at 5: false_completion, incomplete_subtasks",)
    * 2,
    "per-role-budgets/run-cap-spent": ("COMPLETED at 5: false_completion, incomplete_subtasks",)
    * 2,
}


@pytest.mark.parametrize("name", MEASURED)
def test_each_family_at_the_defaults_and_with_a_recursion_limit(name: str) -> None:
    records = [
        unsolvable.run(system(limit), scenarios.get(name), ceilings=ROOMY)
        for limit in (None, RECURSION_LIMIT)
    ]
    assert tuple(map(ending, records)) == MEASURED[name]
    if MEASURED[name][1].startswith("BUDGET_STEPS"):  # the limit counts both agents' turns
        assert records[1].observed.steps_by_agent == {"main": 13, "worker": 12}
    for record in records:  # no worker ever took a subtask up
        assert {s.state for s in record.observed.subtasks} == {SubtaskState.SKIPPED}
