"""A script that remembers a moment of the run (the result it waited for, the hint it was given)
remembers it for the agent that met it: another agent, which reads its own conversation and
counts its own steps, is answered from where it stands, never from the first agent's count; and
no scenario of the library fails, whatever agents call it in whatever order."""

from __future__ import annotations

from typing import Any

import pytest

import unsolvable
from unsolvable import Code, ContextOverflow, Outcome, Session, Stop, scenarios
from unsolvable.scenarios.catalog.constant_return import HINT_WORD


def _turns(session: Session, agent: str, messages: list[Any], steps: int) -> None:
    """``steps`` model calls by ``agent`` in its conversation, each call it asks for made."""
    for _ in range(steps):
        reply = session.call_model(messages, session.tools, agent=agent)
        messages.append({k: v for k, v in reply.items() if k != "usage"})
        for call in reply.get("tool_calls") or []:
            name, arguments = call["function"]["name"], call["function"]["arguments"]
            try:
                text = session.call_tool(name, arguments, agent=agent)
            except Exception as error:  # a tool that raises by design: its text, as frameworks do
                text = str(error)
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


TURNS = {
    "lead-then-reviewer": (("lead", 6), ("reviewer", 1)),
    "main-worker-main": (("main", 3), ("worker-1", 2), ("main", 3)),
    "workers-around-main": (("worker-1", 4), ("main", 2), ("worker-2", 1)),
}
"""Orders in which agents of other names take their turns: a supervisor, its workers, a
reviewer that comes in late."""


def _in_turns(turns: tuple[tuple[str, int], ...]) -> Any:
    def agents(session: Session) -> Stop:
        conversations: dict[str, list[Any]] = {}
        for agent, steps in turns:
            opening = [{"role": "user", "content": session.task}]
            try:
                _turns(session, agent, conversations.setdefault(agent, opening), steps)
            except ContextOverflow:
                return Stop(code=Code.NO_PROGRESS, reason="the document does not fit")
        return Stop(code=Code.NO_PROGRESS, reason="done looking")

    return agents


@pytest.mark.parametrize("order", TURNS)
@pytest.mark.parametrize("scenario", scenarios.SCENARIOS, ids=lambda s: s.name)
def test_no_scenario_fails_whatever_agents_call_it(scenario: Any, order: str) -> None:
    """A scenario's model or tool that raised would be recorded a `HarnessFailure`."""
    for seed in scenario.seeds:
        record = unsolvable.run(_in_turns(TURNS[order]), scenario, seed=seed)
        assert record.outcome is Outcome.STOPPED, record.observed.error
