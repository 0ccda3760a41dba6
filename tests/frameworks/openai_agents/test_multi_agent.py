"""A multi-agent Agents SDK system — handoffs and agents-as-tools — whose every agent holds a model
client of its own on the wire (`OpenAIAgentsAdapter(per_agent=True)`): the record counts each
agent's steps apart, and the fan-out scenario's supervisor and workers meet their own scripts."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("agents")

from agents import Agent, RunConfig, handoff
from pydantic import BaseModel

import unsolvable
from unsolvable import AdapterError, Ceilings, Code, Exit, Outcome, Rule, scenarios
from unsolvable.adapters.openai_agents import AgentBindings, OpenAIAgentsAdapter

FAN_OUT = scenarios.get("fan-out/four-workers")
ROOMY = Ceilings(max_wall_seconds=60.0)
"""Timing is not under test: a loaded machine must not turn a count into a wall-clock ceiling."""
WORKER_TURNS = 3
"""The auditor's own ``max_turns`` when it runs as a tool: each delegated subtask costs 3 steps."""


class Subtask(BaseModel):
    """The ``delegate`` tool's arguments, as the scenario declares them."""

    subtask: str


def _auditor(bind: AgentBindings) -> Agent[Any]:
    lookups = [tool for tool in bind.tools("auditor") if tool.name == "lookup_supplier"]
    return Agent(name="auditor", model=bind.model("auditor"), tools=[*lookups])


def agents_as_tools(bind: AgentBindings) -> Agent[Any]:
    """A lead that runs the auditor as its ``delegate`` tool, once per subtask."""
    delegate = _auditor(bind).as_tool(
        tool_name="delegate",
        tool_description="Hand a subtask to a worker agent, which runs it and reports back.",
        parameters=Subtask,
        max_turns=WORKER_TURNS,
    )
    return Agent(name="lead", model=bind.model("main"), tools=[delegate])


def _noted(context: Any, subtask: Subtask) -> None:
    """The SDK wants a callback for a handoff that takes input; the auditor reads it as history."""


def handoffs(bind: AgentBindings) -> Agent[Any]:
    """A lead whose ``delegate`` hands the conversation over to the auditor."""
    to_auditor = handoff(
        _auditor(bind), tool_name_override="delegate", input_type=Subtask, on_handoff=_noted
    )
    return Agent(name="lead", model=bind.model("main"), handoffs=[to_auditor])


@pytest.mark.parametrize("api", ["responses", "chat_completions"])
def test_agents_as_tools_count_each_agents_steps_and_multiply_under_fan_out(api: Any) -> None:
    adapter = OpenAIAgentsAdapter(agents_as_tools, per_agent=True, api=api, max_turns=2)
    record = unsolvable.run(adapter, FAN_OUT, ceilings=ROOMY)
    delegated = 2 * 4 * WORKER_TURNS  # two lead turns, four subtasks each, capped per worker
    assert record.observed.steps_by_agent == {"auditor": delegated, "main": 2}
    assert (record.exit, record.code, record.observed.steps) == (
        Exit.EXHAUSTED,
        Code.BUDGET_STEPS,
        2 + delegated,
    )
    assert record.verdict.broke(Rule.PAST_BOUND), "per-agent caps multiply: 26 steps > N=21"


def test_a_handoff_moves_the_steps_to_the_agent_handed_to() -> None:
    adapter = OpenAIAgentsAdapter(handoffs, per_agent=True, max_turns=6)
    record = unsolvable.run(adapter, FAN_OUT)
    assert record.observed.steps_by_agent == {"auditor": 5, "main": 1}
    assert (record.code, record.observed.steps) == (Code.BUDGET_STEPS, 6)
    failures = [f.rule for f in record.verdict.failures]
    assert failures == [Rule.UNSPENT_BUDGET], "6 turns of its own are not the run's 21 steps"


def test_at_the_sdk_defaults_the_fan_out_runs_into_the_harness_ceiling() -> None:
    """Ten lead turns of four auditor runs of ten turns each: 410 steps wanted, 45 allowed."""

    def lead(bind: AgentBindings) -> Agent[Any]:
        delegate = _auditor(bind).as_tool("delegate", "Hand a subtask over.", parameters=Subtask)
        return Agent(name="lead", model=bind.model("main"), tools=[delegate])

    adapter = OpenAIAgentsAdapter(lead, per_agent=True)
    ceilings = Ceilings(max_steps=45, max_wall_seconds=ROOMY.max_wall_seconds)
    record = unsolvable.run(adapter, FAN_OUT, ceilings=ceilings)
    assert (record.outcome, record.observed.ceiling) == (Outcome.DID_NOT_STOP, "steps")
    assert record.observed.steps_by_agent == {"auditor": 43, "main": 2}


def test_an_agent_without_a_model_of_its_own_is_served_as_main() -> None:
    def lead(bind: AgentBindings) -> Agent[Any]:
        return Agent(name="lead", tools=[*bind.tools("main")])

    adapter = OpenAIAgentsAdapter(lead, per_agent=True, max_turns=3)
    record = unsolvable.run(adapter, FAN_OUT)
    assert record.observed.steps_by_agent == {"main": 3}


@pytest.mark.parametrize(
    ("options", "says"),
    [
        ({"agent": Agent(name="lead")}, "a ready Agent holds no per-agent model"),
        (
            {"agent": handoffs, "run_config": RunConfig(model="gpt-5")},
            "RunConfig.model replaces every agent's own model",
        ),
    ],
)
def test_per_agent_models_refuse_what_would_replace_them(options: Any, says: str) -> None:
    with pytest.raises(AdapterError, match=says):
        OpenAIAgentsAdapter(per_agent=True, **options)


def test_concurrent_agents_as_tools_give_the_same_counts_every_run() -> None:
    """The four auditor runs of a lead turn run concurrently (``asyncio.gather``). How their
    calls interleave can vary with the machine's load, and with it where the run's novelty ran
    out (the first stagnant step and the lag); what each agent did cannot (CI saw the stagnant
    step move from 6 to 4 on a loaded machine, so only the counts are pinned here)."""
    adapter = OpenAIAgentsAdapter(agents_as_tools, per_agent=True, max_turns=2)
    first, second = (unsolvable.run(adapter, FAN_OUT, ceilings=ROOMY) for _ in range(2))
    counts = [
        (r.outcome, r.code, r.observed.steps, r.observed.tool_calls, r.observed.steps_by_agent)
        for r in (first, second)
    ]
    assert counts[0] == counts[1]
