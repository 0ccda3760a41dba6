"""A LangGraph swarm (``langgraph-swarm``'s ``create_swarm``) of two LangChain ``create_agent``
agents, a reviewer and a producer, each holding the package's ``create_handoff_tool`` to the
other (``transfer_to_producer``, ``transfer_to_reviewer``, at its defaults) in place of the
scenario's tools of those names, on the swarm scenario and its twin: at LangGraph's defaults and
with a ``recursion_limit`` of 25. Each cell of docs/frameworks.md's handoff table for the swarm.

Each agent is on a model of its own, its calls its own steps; a ``wrap_tool_call`` middleware
tells the world of each handoff as the scenario's tool of that name does, and the model reads the
package's own answer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("langgraph")
pytest.importorskip("langgraph_swarm")

from langchain.agents import create_agent
from langchain.agents.middleware import wrap_tool_call
from langchain.messages import ToolMessage
from langchain.tools.tool_node import ToolCallRequest
from langgraph.types import Command
from langgraph_swarm import create_handoff_tool, create_swarm

import unsolvable
from tests.frameworks._families import (
    HANDOFF_SCENARIOS,
    ROOMY,
    ending,
    report_handoff,
    without_handoffs,
)
from unsolvable import scenarios
from unsolvable.adapters.langgraph import AgentBindings, LangGraphAdapter
from unsolvable.scenarios.catalog._dialect import HANDOFF_PREFIX

RECURSION_LIMIT = 25
"""The recommended setting: LangGraph's former default (1.2's is 10,007)."""


def swarm(limit: int | None) -> LangGraphAdapter:
    def build(bind: AgentBindings) -> Any:
        def agent(name: str, other: str) -> Any:
            @wrap_tool_call
            def heard(
                request: ToolCallRequest,
                handler: Callable[[ToolCallRequest], ToolMessage | Command[Any]],
            ) -> ToolMessage | Command[Any]:
                called = str(request.tool_call["name"])
                if called.startswith(HANDOFF_PREFIX):
                    report_handoff(bind.session, called, agent=name)
                return handler(request)

            tools = [*without_handoffs(bind.tools(name)), create_handoff_tool(agent_name=other)]
            return create_agent(bind.model(name), tools, name=name, middleware=[heard])

        agents = [agent("reviewer", "producer"), agent("producer", "reviewer")]
        return create_swarm(agents, default_active_agent="reviewer").compile()

    return LangGraphAdapter(build, per_agent=True, recursion_limit=limit)


# scenario → (at the defaults, with the recursion limit): how the run ended, its steps, the rules
MEASURED: dict[str, tuple[str, str]] = {
    "role-ping-pong/handoff-bounce": (
        "did_not_stop at 200: did_not_stop, past_budget, past_token_budget",
        "BUDGET_STEPS at 25: past_bound",
    ),
    "role-ping-pong/twin-handoff-converges": ("COMPLETED at 5: pass",) * 2,
}


@pytest.mark.parametrize("name", HANDOFF_SCENARIOS)
def test_a_swarm_at_the_defaults_and_with_a_recursion_limit(name: str) -> None:
    """A handoff is one superstep of the swarm's graph, each agent's own model and tool calls a
    sub-graph's: the limit counts agent turns, one model call each here."""
    records = [
        unsolvable.run(swarm(limit), scenarios.get(name), ceilings=ROOMY)
        for limit in (None, RECURSION_LIMIT)
    ]
    assert tuple(map(ending, records)) == MEASURED[name]
    assert {agent for r in records for agent in r.observed.steps_by_agent} == {
        "producer",
        "reviewer",
    }
    if name == "role-ping-pong/handoff-bounce":
        assert {r.observed.first_stagnant_step for r in records} == {3}


def test_the_packages_handoff_tool_takes_the_scenarios_name() -> None:
    made = create_handoff_tool(agent_name="producer")
    assert (made.name, made.description) == (
        "transfer_to_producer",
        "Ask agent 'producer' for help",
    )
