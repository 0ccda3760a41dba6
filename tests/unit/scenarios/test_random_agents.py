"""Agents that do anything — several names in any order, calls that offer no tools, edits of
messages sent before, tool calls the model never asked for with arguments of any shape, unknown
tools, arguments that are no JSON, a conversation cut back after an overflow — never make a
scenario of the library fail (its model or a tool raising, a `HarnessFailure`), and the same
agent gets the same record twice."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

import unsolvable
from unsolvable import Code, ContextOverflow, Outcome, Session, Stop, scenarios

AGENTS = ("main", "worker-1", "worker-2", "reviewer")
ARGUMENTS = ({}, {"query": 1}, {"items": [1, 2]}, {"query": None}, {"x": {"y": "z"}})
"""Arguments of shapes no tool asks for, for calls the model never asked for."""
RANDOM_AGENTS = 5
"""Agents drawn for each scenario and seed."""


def _tool_calls(session: Session, reply: Any, rng: random.Random, step: int) -> list[Any]:
    """The calls the model asked for, and at times one it did not, or one of no tool at all."""
    calls = list(reply.get("tool_calls") or ())
    if rng.random() < 0.15 and session.tools:
        name, arguments = rng.choice(session.tools).name, json.dumps(rng.choice(ARGUMENTS))
        calls.append({"id": f"own-{step}", "function": {"name": name, "arguments": arguments}})
    if rng.random() < 0.05:
        calls.append({"id": f"bad-{step}", "function": {"name": "nope", "arguments": "{bad"}})
    return calls


def _random_agent(seed: int) -> Any:
    def agent(session: Session) -> Stop:
        rng = random.Random(seed)
        conversations: dict[str, list[Any]] = {}
        for step in range(rng.randint(1, 25)):
            name = rng.choice(AGENTS)
            opening = [{"role": "user", "content": session.task}]
            conversation = conversations.setdefault(name, opening)
            if rng.random() < 0.1 and len(conversation) > 2:
                conversation[rng.randrange(len(conversation))]["content"] = f"edited {step}"
            tools = session.tools if rng.random() < 0.8 else []
            try:
                reply = session.call_model(conversation, tools, agent=name)
            except ContextOverflow:
                del conversation[1:]
                continue
            conversation.append({k: v for k, v in reply.items() if k != "usage"})
            for call in _tool_calls(session, reply, rng, step):
                function = call["function"]
                try:
                    text = session.call_tool(function["name"], function["arguments"], agent=name)
                except Exception as error:  # a tool that raises by design
                    text = str(error)
                conversation.append({"role": "tool", "tool_call_id": call["id"], "content": text})
        return Stop(code=rng.choice([Code.NO_PROGRESS, Code.COMPLETED]), reason="done")

    return agent


@pytest.mark.parametrize("scenario", scenarios.SCENARIOS, ids=lambda s: s.name)
def test_no_agent_makes_a_scenario_fail_and_each_gets_the_same_record_twice(
    scenario: unsolvable.Scenario,
) -> None:
    for seed in scenario.seeds:
        for drawn in range(RANDOM_AGENTS):
            record = unsolvable.run(_random_agent(drawn), scenario, seed=seed)
            assert record.outcome is Outcome.STOPPED, (seed, drawn, record.observed.error)
            again = unsolvable.run(_random_agent(drawn), scenario, seed=seed)
            assert again.to_json() == record.to_json(), (seed, drawn)
