"""Neither axis can be gamed: calls that are no progress never move the first stagnant step."""

from __future__ import annotations

from typing import Any

import pytest

import unsolvable
from unsolvable import Code, Session, Stagnation, Stop, scenarios
from unsolvable.agents._loop import assistant, dispatch, opening, tool_calls
from unsolvable.scenarios.catalog._common import BACKGROUND

STOP_AT = 8
"""The step both agents below stop at: past every lead, before any bound."""


def _follows_the_model(*, pages_on: bool) -> Any:
    """Does what the model asks for `STOP_AT` steps, then stops; ``pages_on`` also reads one
    more page of background at every step, and page 1 again: the same stop logic, padded."""

    def agent(session: Session) -> Stop:
        messages = opening(session)
        book = next(t.name for t in session.tools if t.description == BACKGROUND.description)
        for step in range(1, STOP_AT + 1):
            reply = session.call_model(messages, session.tools)
            messages.append(assistant(reply))
            for call_id, name, arguments in tool_calls(reply):
                messages.append(dispatch(session, call_id, name, arguments)[0])
            if pages_on:
                session.call_tool(book, {"page": 100 + step})
                session.call_tool(book, {"page": 1})
        return Stop(code=Code.NO_PROGRESS, reason="nothing new")

    return agent


LED = [
    (s, seed)
    for s in scenarios.SCENARIOS
    if not s.solvable and s.stagnation is Stagnation.NOVELTY
    for seed in s.seeds
    if s.build(seed).lead
]


@pytest.mark.parametrize(("scenario", "seed"), LED, ids=[f"{s.name}-seed{n}" for s, n in LED])
def test_reading_past_the_background_never_moves_the_first_stagnant_step(
    scenario: unsolvable.Scenario, seed: int
) -> None:
    honest = unsolvable.run(_follows_the_model(pages_on=False), scenario, seed=seed)
    padded = unsolvable.run(_follows_the_model(pages_on=True), scenario, seed=seed)
    assert padded.observed.first_stagnant_step == honest.observed.first_stagnant_step
