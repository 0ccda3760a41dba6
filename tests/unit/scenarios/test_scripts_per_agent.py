"""A script that remembers a moment of the run (the result it waited for, the hint it was given)
remembers it for the agent that met it: another agent, which reads its own conversation and
counts its own steps, is answered from where it stands, never from the first agent's count."""

from __future__ import annotations

from typing import Any

import pytest

import unsolvable
from unsolvable import Code, Outcome, Session, Stop, scenarios
from unsolvable.scenarios.catalog.constant_return import HINT_WORD


def _turns(session: Session, agent: str, messages: list[Any], steps: int) -> None:
    """``steps`` model calls by ``agent`` in its conversation, each call it asks for made."""
    for _ in range(steps):
        reply = session.call_model(messages, session.tools, agent=agent)
        messages.append({k: v for k, v in reply.items() if k != "usage"})
        for call in reply.get("tool_calls") or []:
            name, arguments = call["function"]["name"], call["function"]["arguments"]
            text = session.call_tool(name, arguments, agent=agent)
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": text})
        messages.append({"role": "user", "content": f"This action {HINT_WORD}s: try another."})


def two_agents(session: Session) -> Stop:
    """One agent works six steps, hinting after each; a second then takes one step of its own."""
    _turns(session, "lead", [{"role": "user", "content": session.task}], 6)
    _turns(session, "reviewer", [{"role": "user", "content": session.task}], 1)
    return Stop(code=Code.NO_PROGRESS, reason="done looking")


@pytest.mark.parametrize(
    "name", ["poll-until-ready/pending-3", "constant-return/twin-hint-responsive"]
)
def test_a_second_agent_after_the_first_moved_on_is_answered_from_its_own_step(
    name: str,
) -> None:
    record = unsolvable.run(two_agents, scenarios.get(name))
    assert record.outcome is Outcome.STOPPED, record.observed.error
    assert record.observed.steps == 7
    reviewer = [step for step in record.observed.trajectory if step.agent == "reviewer"]
    first_lead = next(step for step in record.observed.trajectory if step.agent == "lead")
    assert reviewer[0].calls == first_lead.calls, "it starts where the lead started"
