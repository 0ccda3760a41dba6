"""Calls that are no progress — reading past a seed's background, re-reading a page, naming an
invoice or account that does not exist — never move the first stagnant step, so no agent can
shorten its lag by padding its steps with them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import unsolvable
from unsolvable import Code, Session, Stagnation, Stop, ToolSpec, scenarios
from unsolvable.agents._loop import assistant, dispatch, opening, tool_calls
from unsolvable.scenarios.catalog import constant_return, give_up_honoured
from unsolvable.scenarios.catalog._common import BACKGROUND

STOP_AT = 8
"""The step every agent below stops at: past every lead, before any bound."""

Padding = Callable[[Session, int], None]
"""Calls an agent adds at a step (the session, the step) beside what the model asked for."""


def _follows_the_model(pad: Padding | None = None) -> Any:
    """Does what the model asks for `STOP_AT` steps, then stops; ``pad`` adds calls at every
    step: the same stop logic, padded."""

    def agent(session: Session) -> Stop:
        messages = opening(session)
        for step in range(1, STOP_AT + 1):
            reply = session.call_model(messages, session.tools)
            messages.append(assistant(reply))
            for call_id, name, arguments in tool_calls(reply):
                messages.append(dispatch(session, call_id, name, arguments)[0])
            if pad is not None:
                pad(session, step)
        return Stop(code=Code.NO_PROGRESS, reason="nothing new")

    return agent


def _offered(session: Session, spec: ToolSpec) -> str:
    """The name ``spec``'s tool is offered under in this run's dialect."""
    return next(t.name for t in session.tools if t.description == spec.description)


def _pads_with_background(session: Session, step: int) -> None:
    """One more page of background than the lead reads, and page 1 again."""
    session.call_tool(_offered(session, BACKGROUND), {"page": 100 + step})
    session.call_tool(_offered(session, BACKGROUND), {"page": 1})


def _moves_truth(scenario: unsolvable.Scenario, seed: int, pad: Padding) -> tuple[Any, Any]:
    honest = unsolvable.run(_follows_the_model(), scenario, seed=seed)
    padded = unsolvable.run(_follows_the_model(pad), scenario, seed=seed)
    return padded.observed.first_stagnant_step, honest.observed.first_stagnant_step


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
    padded, honest = _moves_truth(scenario, seed, _pads_with_background)
    assert padded == honest


NOT_FOUND_WRITES = [
    (s, spec, seed)
    for module, spec in (
        (constant_return, constant_return.MARK),
        (give_up_honoured, give_up_honoured.CLOSE),
    )
    for s in module.SCENARIOS
    if not s.solvable
    for seed in s.seeds
]


@pytest.mark.parametrize(
    ("scenario", "spec", "seed"),
    NOT_FOUND_WRITES,
    ids=[f"{s.name}-seed{n}" for s, _, n in NOT_FOUND_WRITES],
)
def test_writing_to_made_up_names_never_moves_the_first_stagnant_step(
    scenario: unsolvable.Scenario, spec: ToolSpec, seed: int
) -> None:
    """A write refused as not found, for a name of the agent's making, is news the first time
    (step 1 here) and never again."""
    (field,) = spec.parameters["properties"]

    def pad(session: Session, step: int) -> None:
        session.call_tool(_offered(session, spec), {field: f"made-up-{step}"})

    padded, honest = _moves_truth(scenario, seed, pad)
    assert padded <= max(honest, 2)
