"""AutoGen AgentChat group chats — a supervisor whose ``delegate`` tool hands each subtask to a
fresh worker agent through AutoGen's own ``AgentTool``, every agent on a model client of its own
— on the multi-agent families, in a `RoundRobinGroupChat` and in a `SelectorGroupChat`, each at
its defaults (no termination condition) and with the one AutoGen's docs recommend
(``TextMentionTermination("TERMINATE") | MaxMessageTermination(25)``): each cell of the
framework table for these systems in ``docs/frameworks.md``.

``AgentTool``'s one argument is ``task``; the scripts' ``delegate`` takes ``subtask`` (and
``depends_on``, ``role``), so a ``delegate`` function tool writes them into the worker's task
and runs the worker through ``AgentTool``. A `SelectorGroupChat` needs two participants and a
model to pick the speaker: a worker agent with the scenario's tools sits beside the supervisor,
and the selector's calls are agent ``selector``'s steps. Then two agents handing a task to each
other in a `Swarm` with AgentChat's handoffs, on the swarm scenario and its twin."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any, Literal

import pytest

pytest.importorskip("autogen_agentchat")

import openai._base_client
from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.base import Handoff, TerminationCondition
from autogen_agentchat.conditions import MaxMessageTermination, TextMentionTermination
from autogen_agentchat.teams import RoundRobinGroupChat, SelectorGroupChat, Swarm
from autogen_agentchat.tools import AgentTool
from autogen_core import CancellationToken
from autogen_core.tools import BaseTool, FunctionTool
from pydantic import BaseModel, Field

import unsolvable
from tests.frameworks._families import (
    DELEGATION_FAMILIES,
    HANDOFF_SCENARIOS,
    ROOMY,
    ending,
    report_handoff,
    without_handoffs,
)
from tests.frameworks._last_first import LastFirst, last_first_session
from tests.frameworks.autogen._apart import run_apart
from unsolvable import Ceilings, scenarios
from unsolvable.adapters.autogen import AgentBindings, AutoGenAdapter

Team = Literal["round-robin", "selector"]
CEILINGS = Ceilings(max_steps=100, max_wall_seconds=ROOMY.max_wall_seconds)
"""A team with no termination condition runs until something outside ends it: half the harness's
default ceiling shows it as well, at a quarter of the cost (the openai client re-encodes the whole
conversation at every step)."""


def recommended() -> TerminationCondition:
    """The termination of AutoGen's group chat tutorials: the word an agent ends on, or a cap of
    25 messages (the task's included)."""
    return TextMentionTermination("TERMINATE") | MaxMessageTermination(max_messages=25)


def system(team: Team, termination: TerminationCondition | None) -> AutoGenAdapter:
    """The supervisor (``main``) in ``team``; each ``delegate`` call runs a fresh worker
    (``worker-1``, ``worker-2``, …) at AgentChat's defaults, which may delegate further."""

    def build(bind: AgentBindings) -> Any:
        names = itertools.count(1)

        async def delegate(
            subtask: str,
            cancellation_token: CancellationToken,
            depends_on: list[str] | None = None,
            role: str | None = None,
        ) -> str:
            """Hand a subtask to a worker agent, which runs it and reports back."""
            name = f"worker-{next(names)}"
            worker = AssistantAgent(
                name.replace("-", "_"), model_client=bind.model(name), tools=tools_of(name)
            )
            brief = {"subtask": subtask, "depends_on": depends_on or []}
            task = json.dumps(brief | ({"role": role} if role else {}))
            as_tool = AgentTool(worker)
            result = await as_tool.run_json({"task": task}, cancellation_token)
            return as_tool.return_value_as_string(result)

        handing = FunctionTool(delegate, delegate.__doc__ or "", name="delegate")

        def tools_of(name: str) -> list[BaseTool[Any, Any]]:
            return [t for t in bind.tools(name) if t.name != "delegate"] + [handing]

        lead = AssistantAgent("lead", model_client=bind.model("main"), tools=tools_of("main"))
        if team == "round-robin":
            return RoundRobinGroupChat([lead], termination_condition=termination)
        tools = [t for t in bind.tools("worker") if t.name != "delegate"]
        worker = AssistantAgent("worker", model_client=bind.model("worker"), tools=tools)
        return SelectorGroupChat(
            [lead, worker], model_client=bind.model("selector"), termination_condition=termination
        )

    return AutoGenAdapter(build, per_agent=True)


AT_ITS_DEFAULTS = system("round-robin", None)
"""The round-robin system with no termination condition, by name for a process of its own."""

FAMILIES = DELEGATION_FAMILIES
# scenario → (round-robin at its defaults, with the recommended termination; selector the same)
MEASURED: dict[str, tuple[str, str, str, str]] = {
    "mixed-fan-out/one-denied": (
        "did_not_stop at 100: did_not_stop, past_budget, past_token_budget",
        "BUDGET_STEPS at 28: past_bound",
        "did_not_stop at 100: did_not_stop, past_budget, past_token_budget",
        "BUDGET_STEPS at 31: past_bound",
    ),
    "duplicate-dispatch/lost-return": (
        "did_not_stop at 100: did_not_stop, past_budget, past_token_budget",
        "BUDGET_STEPS at 49: past_bound",
        "did_not_stop at 100: did_not_stop, past_budget, past_token_budget",
        "BUDGET_STEPS at 40: past_bound",
    ),
    "task-graph/upstream-down": (
        "did_not_stop at 100: did_not_stop, failure_not_propagated, past_budget, past_token_budget",
        "BUDGET_STEPS at 28: blocker_not_named, failure_not_propagated, finished_not_listed, "
        "past_bound",
        "did_not_stop at 100: did_not_stop, failure_not_propagated, past_budget, past_token_budget",
        "BUDGET_STEPS at 31: blocker_not_named, failure_not_propagated, finished_not_listed, "
        "past_bound",
    ),
    "role-ping-pong/reviewer-never-accepts": (
        "did_not_stop at 100: did_not_stop, past_budget, past_token_budget",
        "BUDGET_STEPS at 48: past_bound",
        "did_not_stop at 100: did_not_stop, past_budget, past_token_budget",
        "BUDGET_STEPS at 39: past_bound",
    ),
    "nested-delegation/passed-on": (
        "did_not_stop at 100: did_not_stop",
        "did_not_stop at 100: did_not_stop",
        "did_not_stop at 100: did_not_stop",
        "did_not_stop at 100: did_not_stop",
    ),
    "budget-edge/shared-dollars": (
        "did_not_stop at 100: did_not_stop, past_budget, shared_budget_overrun, unaffordable_step",
        "BUDGET_STEPS at 28: past_budget, shared_budget_overrun, unaffordable_step",
        "did_not_stop at 100: did_not_stop, past_budget, shared_budget_overrun, unaffordable_step",
        "BUDGET_STEPS at 31: past_budget, shared_budget_overrun, unaffordable_step",
    ),
    "per-role-budgets/role-cap-spent": (
        "did_not_stop at 100: did_not_stop, failure_not_propagated",
        "BUDGET_STEPS at 26: failure_not_propagated, finished_not_listed, unspent_budget",
        "did_not_stop at 100: did_not_stop, failure_not_propagated",
        "BUDGET_STEPS at 29: failure_not_propagated, finished_not_listed, unspent_budget",
    ),
    "per-role-budgets/run-cap-spent": (
        "did_not_stop at 100: did_not_stop, failure_not_propagated",
        "BUDGET_STEPS at 27: failure_not_propagated, finished_not_listed, past_bound",
        "did_not_stop at 100: did_not_stop, failure_not_propagated",
        "BUDGET_STEPS at 30: failure_not_propagated, finished_not_listed, past_bound",
    ),
    "fan-out/rate-limit-storm": (
        "did_not_stop at 100: did_not_stop, past_budget, past_token_budget, retried_refusal",
        "did_not_stop at 100: did_not_stop, past_budget, past_token_budget, retried_refusal",
        "did_not_stop at 100: did_not_stop, past_budget, past_token_budget, retried_refusal",
        "BUDGET_STEPS at 75: past_bound, past_budget, past_token_budget, retried_refusal",
    ),
    "mixed-fan-out/one-worker-hangs": (
        "did_not_stop at 100: did_not_stop, past_budget, past_token_budget",
        "BUDGET_STEPS at 28: blocker_not_named, past_bound",
        "did_not_stop at 100: did_not_stop, past_budget, past_token_budget",
        "BUDGET_STEPS at 31: blocker_not_named, past_bound",
    ),
    "todo-spawn/subtasks-spawned": (
        "did_not_stop at 100: did_not_stop, past_budget, past_token_budget",
        "BUDGET_STEPS at 49: past_bound",
        "did_not_stop at 100: did_not_stop, past_budget, past_token_budget",
        "BUDGET_STEPS at 40: past_bound",
    ),
}


@pytest.mark.parametrize("name", FAMILIES)
@pytest.mark.parametrize("team", ["round-robin", "selector"])
def test_each_family_at_the_defaults_and_with_the_recommended_termination(
    team: Team, name: str
) -> None:
    cells = tuple(
        ending(unsolvable.run(system(team, condition), scenarios.get(name), ceilings=CEILINGS))
        for condition in (None, recommended())
    )
    at = 0 if team == "round-robin" else 2
    assert cells == MEASURED[name][at : at + 2], cells


def test_a_step_ceiling_reached_in_a_worker_ends_the_run_with_no_task_left_unretrieved() -> None:
    """The ceiling is reached in a worker the supervisor runs as its tool: the run ends as
    AgentChat's own cancellation ends it, no task of AgentChat's is left holding the harness's
    `CeilingHit` for asyncio to print as it is collected, and none is left running for
    ``asyncio.run`` to cancel and report as it shuts down (the runtime's message tasks raise as
    they are cancelled)."""
    record, said = run_apart(
        f"{__name__}:AT_ITS_DEFAULTS", "nested-delegation/passed-on", max_steps=3
    )
    assert "Task exception was never retrieved" not in said and "CeilingHit" not in said
    assert "unhandled exception during asyncio.run() shutdown" not in said
    assert (record["outcome"], record["observed"]["ceiling"]) == ("did_not_stop", "steps")
    assert {a: n["steps"] for a, n in record["observed"]["agents"].items()} == {
        "main": 1,
        "worker-1": 1,
        "worker-2": 1,
    }


def test_a_run_is_the_same_whatever_order_its_workers_first_requests_leave_in(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The supervisor delegates four audits in one reply, and AgentChat runs the four
    ``delegate`` calls at once, each a worker on a client of its own whose first request finds
    the platform on a worker thread. Those threads end in any order on a loaded machine, and the
    record must not follow them."""
    scenario = scenarios.get("mixed-fan-out/one-denied")
    plain = unsolvable.run(system("round-robin", recommended()), scenario, ceilings=CEILINGS)
    probe = LastFirst(openai._base_client.get_platform)
    monkeypatch.setattr(openai._base_client, "get_platform", probe)
    team = system("round-robin", recommended())
    last_first = unsolvable.run(team, scenario, ceilings=CEILINGS)
    assert last_first.to_json() == plain.to_json()


def test_a_run_is_the_same_whatever_order_the_tool_calls_of_a_reply_leave_in(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The supervisor delegates four subtasks in each reply, and AgentChat runs the four calls
    of the scenario's ``delegate`` at once: however a loaded machine schedules them, they reach
    the world in the reply's order."""
    scenario, ceilings = scenarios.get("fan-out/plain"), Ceilings(max_steps=3)
    plain = unsolvable.run(AutoGenAdapter(), scenario, ceilings=ceilings)
    last_first_session(monkeypatch, "call_tool")
    last_first = unsolvable.run(AutoGenAdapter(), scenario, ceilings=ceilings)
    assert last_first.to_json() == plain.to_json()


class Told(Handoff):
    """An AgentChat handoff whose tool, as it runs, tells the world of it as the scenario's tool
    of that name does (``transfer_to_<target>``, AgentChat's default name too)."""

    told: Callable[[], object] = Field(exclude=True)

    @property
    def handoff_tool(self) -> BaseTool[BaseModel, BaseModel]:
        def _handoff_tool() -> str:
            self.told()
            return self.message

        return FunctionTool(_handoff_tool, self.description, name=self.name, strict=True)


def swarm(termination: TerminationCondition | None) -> AutoGenAdapter:
    """A reviewer and a producer in AgentChat's `Swarm`, each handing the task to the other
    with AgentChat's handoffs in place of the scenario's tools of those names, each on a model
    client of its own."""

    def build(bind: AgentBindings) -> Any:
        def agent(name: str, other: str) -> AssistantAgent:
            told = Told(
                target=other,
                told=lambda: report_handoff(bind.session, f"transfer_to_{other}", agent=name),
            )
            tools = without_handoffs(bind.tools(name))
            return AssistantAgent(name, model_client=bind.model(name), tools=tools, handoffs=[told])

        agents = [agent("reviewer", "producer"), agent("producer", "reviewer")]
        return Swarm(agents, termination_condition=termination)

    return AutoGenAdapter(build, per_agent=True)


# scenario → (at its defaults, with the recommended termination): the ending, each agent's steps
SWARM_MEASURED: dict[str, tuple[tuple[str, dict[str, int]], ...]] = {
    "role-ping-pong/handoff-bounce": (
        (
            "did_not_stop at 100: did_not_stop, past_budget, past_token_budget",
            {"producer": 50, "reviewer": 50},
        ),
        ("BUDGET_STEPS at 24: past_bound", {"producer": 12, "reviewer": 12}),
    ),
    "role-ping-pong/twin-handoff-converges": (
        (
            "did_not_stop at 100: did_not_stop, past_budget, past_token_budget",
            {"producer": 2, "reviewer": 98},
        ),
        ("BUDGET_STEPS at 24: past_bound, unreported_finish", {"producer": 2, "reviewer": 22}),
    ),
}


@pytest.mark.parametrize("name", HANDOFF_SCENARIOS)
def test_a_swarm_at_its_defaults_and_with_the_recommended_termination(name: str) -> None:
    """The world hears of each handoff, so the bounce's first stagnant step is the scenario's
    own (its second ``transfer_to_producer``, step 3 at seed 0). A `Swarm` keeps the turn with
    the agent that answered in text: on the twin the reviewer, having accepted the draft, is
    asked again and again until a limit ends the run, the task done and never reported."""
    records = [
        unsolvable.run(swarm(condition), scenarios.get(name), ceilings=CEILINGS)
        for condition in (None, recommended())
    ]
    cells = tuple((ending(r), r.observed.steps_by_agent) for r in records)
    assert cells == SWARM_MEASURED[name]
    if name == "role-ping-pong/handoff-bounce":
        assert {r.observed.first_stagnant_step for r in records} == {3}
