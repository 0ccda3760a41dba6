"""A ``langgraph-supervisor`` system — ``create_supervisor`` over one LangChain ``create_agent``
worker, the supervisor's handoff to it under the scripts' name, ``delegate`` — on the
multi-agent families, at LangGraph's defaults and with a ``recursion_limit`` of 25, with two
handoffs: the package's own ``create_handoff_tool``, and the task-description handoff of
LangGraph's supervisor tutorial. Each cell of docs/frameworks.md's table for this system.

The package's handoff carries no brief: the worker is handed the whole conversation, where its
subtask is only in the supervisor's call's arguments, which the scripted worker does not take
for one (as for the Agents SDK's handoffs); so it claims its work done at once. The tutorial's
handoff sends the worker its brief alone, and it takes its subtask up; but of a turn's parallel
handoffs only one runs, and which one varies from run to run."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, Any

import pytest

pytest.importorskip("langgraph")
pytest.importorskip("langgraph_supervisor")

from langchain.agents import create_agent
from langchain_core.tools import BaseTool, tool
from langgraph.prebuilt import InjectedState
from langgraph.types import Command, Send
from langgraph_supervisor import create_handoff_tool, create_supervisor
from langgraph_supervisor.handoff import METADATA_KEY_HANDOFF_DESTINATION

import unsolvable
from tests.frameworks._families import DELEGATION_FAMILIES, ROOMY, ending
from tests.frameworks.langgraph.test_async import AsyncWatch
from unsolvable import SubtaskState, scenarios
from unsolvable.adapters.langgraph import AgentBindings, LangGraphAdapter

RECURSION_LIMIT = 25
"""The recommended setting: LangGraph's former default (1.2's is 10,007)."""
DESCRIPTION = "Hand a subtask to a worker agent."

pytestmark = pytest.mark.filterwarnings(
    # create_supervisor builds its supervisor with LangGraph's own deprecated create_react_agent.
    "ignore:create_react_agent has been moved:DeprecationWarning",
)

Handoff = Callable[[str], BaseTool]
"""Makes the supervisor's handoff to the agent of that name."""


def package_handoff(agent_name: str) -> BaseTool:
    """The package's own handoff: the worker is handed the whole conversation."""
    return create_handoff_tool(agent_name=agent_name, name="delegate", description=DESCRIPTION)


def task_description_handoff(agent_name: str) -> BaseTool:
    """The tutorial's ``create_task_description_handoff_tool`` ("Implement advanced task
    delegation"), its ``task_description`` written from the scripts' arguments as the other
    family tests write a worker's brief; the package's destination key marks it the handoff to
    ``agent_name``, as ``create_supervisor`` requires of a handoff of one's own (or it adds its
    own beside it)."""

    @tool("delegate", description=DESCRIPTION)
    def delegate(
        subtask: str,
        state: Annotated[dict[str, Any], InjectedState],
        depends_on: list[str] | None = None,
        role: str | None = None,
    ) -> Command[Any]:
        brief = {"subtask": subtask, "depends_on": depends_on or []}
        task_description = json.dumps(brief | ({"role": role} if role else {}))
        task_description_message = {"role": "user", "content": task_description}
        agent_input = {**state, "messages": [task_description_message]}
        return Command(goto=[Send(agent_name, agent_input)], graph=Command.PARENT)

    delegate.metadata = {METADATA_KEY_HANDOFF_DESTINATION: agent_name}
    return delegate


def system(
    limit: int | None, handoff: Handoff = package_handoff, *, asynchronous: bool = False
) -> LangGraphAdapter:
    """The supervisor over its worker; ``asynchronous``: the worker watched by an async-only
    middleware, which runs only under ``astream``."""

    def build(bind: AgentBindings) -> Any:
        tools = [t for t in bind.tools("worker") if t.name != "delegate"]
        middleware = [AsyncWatch()] if asynchronous else []
        worker = create_agent(bind.model("worker"), tools, name="worker", middleware=middleware)
        own = [t for t in bind.tools("main") if t.name != "delegate"]
        supervisor = create_supervisor(
            [worker], model=bind.model("main"), tools=[handoff("worker"), *own]
        )
        return supervisor.compile()

    return LangGraphAdapter(
        build,
        per_agent=True,
        recursion_limit=limit,
        config={"max_concurrency": 1},
        asynchronous=asynchronous,
    )


# scenario → (at the defaults, with the recursion limit): how the run ended and the rules it broke
MEASURED: dict[str, tuple[str, str]] = {
    "mixed-fan-out/one-denied": ("COMPLETED at 3: false_completion, incomplete_subtasks",) * 2,
    "duplicate-dispatch/lost-return": (
        "did_not_stop at 200: did_not_stop, past_budget, past_token_budget",
        "BUDGET_STEPS at 25: past_bound",
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
    "fan-out/rate-limit-storm": (
        "did_not_stop at 200: did_not_stop, past_budget, past_token_budget, retried_refusal",
        "BUDGET_STEPS at 14: past_bound, retried_refusal, unspent_budget",
    ),
    "mixed-fan-out/one-worker-hangs": ("COMPLETED at 3: false_completion, incomplete_subtasks",)
    * 2,
    "todo-spawn/subtasks-spawned": (
        "did_not_stop at 200: did_not_stop, past_budget, past_token_budget",
        "BUDGET_STEPS at 25: past_bound",
    ),
}


NEVER_HANDS_BACK = frozenset({"fan-out/rate-limit-storm"})
"""Where the worker, named no subtask, retries a lookup the registry keeps refusing, and never
hands the turn back: the limit cuts the worker's own run, at its 13th model call."""


@pytest.mark.parametrize("name", MEASURED)
def test_each_family_at_the_defaults_and_with_a_recursion_limit(name: str) -> None:
    records = [
        unsolvable.run(system(limit), scenarios.get(name), ceilings=ROOMY)
        for limit in (None, RECURSION_LIMIT)
    ]
    assert tuple(map(ending, records)) == MEASURED[name]
    # the limit counts both agents' turns, or the worker's own calls where it keeps the turn
    if MEASURED[name][1].startswith("BUDGET_STEPS"):
        turns = (
            {"main": 1, "worker": 13} if name in NEVER_HANDS_BACK else {"main": 13, "worker": 12}
        )
        assert records[1].observed.steps_by_agent == turns
    for record in records:  # no worker ever took a subtask up
        assert {s.state for s in record.observed.subtasks} == {SubtaskState.SKIPPED}


@pytest.mark.parametrize(
    "name", ["task-graph/upstream-down", "role-ping-pong/reviewer-never-accepts"]
)
def test_a_supervisor_whose_worker_is_async_only_is_recorded_as_its_sync_twin(name: str) -> None:
    scenario = scenarios.get(name)
    sync = unsolvable.run(system(RECURSION_LIMIT), scenario, ceilings=ROOMY)
    run_async = system(RECURSION_LIMIT, asynchronous=True)
    assert unsolvable.run(run_async, scenario, ceilings=ROOMY).to_dict() == sync.to_dict()


COMPLETED_AT_5 = "COMPLETED at 5: false_completion, incomplete_subtasks"
# scenario → (at the defaults, with the recursion limit): the endings a run with the tutorial's
# handoff may have, one for each handoff of a parallel turn that may be the one to run
BRIEFED: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "mixed-fan-out/one-denied": (  # S-1 to S-3 are filed; the denied S-4 is retried
        frozenset(
            {
                COMPLETED_AT_5,
                "did_not_stop at 200: did_not_stop, past_budget, past_token_budget, "
                "retried_refusal",
            }
        ),
        frozenset(
            {
                COMPLETED_AT_5,
                "BUDGET_STEPS at 14: blocker_not_named, retried_refusal, unspent_budget",
            }
        ),
    ),
    "duplicate-dispatch/lost-return": (
        frozenset(
            {
                "did_not_stop at 200: did_not_stop, duplicate_dispatch, past_budget, "
                "past_token_budget"
            }
        ),
        frozenset({"BUDGET_STEPS at 49: duplicate_dispatch, finished_not_listed, past_bound"}),
    ),
    "task-graph/upstream-down": (  # the outline is written, or the down search is retried
        frozenset(
            {
                "COMPLETED at 10: failure_not_propagated, false_completion, incomplete_subtasks",
                "did_not_stop at 200: did_not_stop, past_budget, past_token_budget, "
                "retried_refusal",
            }
        ),
        frozenset(
            {
                "COMPLETED at 10: failure_not_propagated, false_completion, incomplete_subtasks",
                "BUDGET_STEPS at 17: blocker_not_named, retried_refusal, unspent_budget",
            }
        ),
    ),
    "role-ping-pong/reviewer-never-accepts": (
        frozenset({"did_not_stop at 200: did_not_stop, past_budget, past_token_budget"}),
        frozenset({"BUDGET_STEPS at 37: past_bound"}),
    ),
    "nested-delegation/passed-on": (  # S-1 is filed, or S-2's worker passes it on
        frozenset({COMPLETED_AT_5, "COMPLETED at 4: false_completion, incomplete_subtasks"}),
    )
    * 2,
    "budget-edge/shared-dollars": (
        frozenset(
            {
                "did_not_stop at 200: did_not_stop, past_budget, shared_budget_overrun, "
                "unaffordable_step"
            }
        ),
        frozenset({"BUDGET_STEPS at 14: past_budget, shared_budget_overrun, unaffordable_step"}),
    ),
    "per-role-budgets/role-cap-spent": (
        frozenset({"did_not_stop at 200: did_not_stop, role_budget_overrun"}),
        frozenset({"BUDGET_STEPS at 14: role_budget_overrun"}),
    ),
    "per-role-budgets/run-cap-spent": (
        frozenset({"did_not_stop at 200: did_not_stop, role_budget_overrun"}),
        frozenset({"BUDGET_STEPS at 14: past_bound, role_budget_overrun"}),
    ),
    "fan-out/rate-limit-storm": (  # whichever audit runs, its worker retries the 429s
        frozenset(
            {"did_not_stop at 200: did_not_stop, past_budget, past_token_budget, retried_refusal"}
        ),
        frozenset(
            {"BUDGET_STEPS at 14: blocker_not_named, past_bound, retried_refusal, unspent_budget"}
        ),
    ),
    "mixed-fan-out/one-worker-hangs": (  # S-1 to S-3 are filed; the hung S-4 is retried
        frozenset(
            {
                COMPLETED_AT_5,
                "did_not_stop at 200: did_not_stop, past_budget, past_time_budget, "
                "past_token_budget, retried_refusal",
            }
        ),
        frozenset(
            {
                COMPLETED_AT_5,
                "BUDGET_STEPS at 14: blocker_not_named, past_time_budget, retried_refusal, "
                "unspent_budget",
            }
        ),
    ),
    "todo-spawn/subtasks-spawned": (  # S-1 is handed back, or S-2 is filed, then the queue
        frozenset({"did_not_stop at 200: did_not_stop, past_budget, past_token_budget"}),
        frozenset(
            {
                "BUDGET_STEPS at 49: past_bound",
                "BUDGET_STEPS at 49: finished_not_listed, past_bound",
            }
        ),
    ),
}


@pytest.mark.parametrize("name", DELEGATION_FAMILIES)
def test_each_family_with_the_tutorials_task_description_handoff(name: str) -> None:
    records = [
        unsolvable.run(system(limit, task_description_handoff), scenarios.get(name), ceilings=ROOMY)
        for limit in (None, RECURSION_LIMIT)
    ]
    for record, endings in zip(records, BRIEFED[name], strict=True):
        assert ending(record) in endings, ending(record)
        started = [s for s in record.observed.subtasks if s.state is not SubtaskState.SKIPPED]
        # each worker takes its brief up, but a supervisor's turn starts one at most
        assert 1 <= len(started) <= record.observed.steps_by_agent["main"], started
