"""What a twin shares with its sibling until the step it declares, in words: the checks of the
library's twins, and of the twins generated for users' own variants."""

from __future__ import annotations

from typing import NamedTuple

from tests._explorer import Seen, explore, first_difference
from unsolvable import DELEGATE_TOOL, Ceilings, Scenario, Session, TerminationRecord, scenarios
from unsolvable.scenarios.catalog._common import LEADS

__all__ = [
    "AGENTS_OWN_MOVES",
    "DELEGATES",
    "LEAD",
    "MOVES_PER_CALL",
    "FirstDifference",
    "first_moves",
    "shown",
    "unlike_its_sibling",
    "where_a_system_first_differs",
]

MOVES_PER_CALL = {
    "tool-timeout": "the sensor warms up with attempts, each spending its timeout on the session "
    "clock and one of the sibling's allowed retries: a client that retries in a loop of its own "
    "spends them within one step, and a sensor that warmed with the steps would still be cold "
    "when its wall budget runs out",
    "endless-wait": "the job moves with each poll, as an agent that polls in a loop of its own, "
    "waiting out each Retry-After, must see it move (moved with the steps, it stays queued "
    "through that loop until the idle budget is spent); the sibling's stagnant step is where "
    "its idle budget is spent, so an early poll buys no lag there",
}
"""Families whose twins' answers move with each call, for the reason given, rather than with
the run's steps: a call the agent repeats within a step sees them move
(`tests/unit/scenarios/test_moves_per_call.py` checks the reasons)."""

LEAD = max(LEADS)
"""Room for the longest background reading of a seed, explored beside the sibling's N."""
DELEGATES = [
    (twin, seed)
    for twin in scenarios.SCENARIOS
    if twin.twin_of is not None
    if DELEGATE_TOOL in {spec.name for spec in twin.build(0).toolbox.specs}
    for seed in twin.seeds
]
"""The library's twins whose supervisors delegate, each with each of its seeds."""


def unlike_its_sibling(
    twin: Scenario, sibling: Scenario, seed: int, *, repeats: bool = False, probes: bool = False
) -> str | None:
    """Where ``twin`` tells itself apart from ``sibling`` on ``seed`` other than at the step it
    declares, explored up to that step (or the sibling's N where it declares none, being the
    sibling until the agent hints), each call made twice with ``repeats``, every tool called
    after each step with ``probes``; ``None`` when nowhere."""
    assert twin.diverges_at is not None
    diverges = twin.diverges_at(seed)
    steps = sibling.step_bound if diverges is None else diverges
    mine, theirs = (
        explore(s, seed, steps, repeats=repeats, probes=probes) for s in (twin, sibling)
    )
    difference = first_difference(mine, theirs, upto=diverges or steps + 1)
    if (
        difference is None
        and diverges is not None
        and mine.seen[diverges - 1] == theirs.seen[diverges - 1]
    ):
        return f"step {diverges}: it does not diverge where it says"
    return difference


AGENTS_OWN_MOVES = ("probes", "repeats", "delegations")
"""What a system of agents may do of its own accord after each step, beside running its
workers: call every tool, make each call twice, or delegate every subtask once more to a fresh
worker (`tests._explorer.Explorer`)."""


class FirstDifference(NamedTuple):
    """Where a twin and its sibling first differ (`where_a_system_first_differs`)."""

    model_moved: bool
    """The model moved otherwise there (its words or calls, or a fresh worker's on a subtask
    delegated again), rather than a tool answering otherwise."""
    words: str
    """The difference, in words."""


def where_a_system_first_differs(
    twin: Scenario, sibling: Scenario, seed: int, steps: int, *, move: str | None = None
) -> FirstDifference:
    """Where ``twin`` and ``sibling``, explored for ``steps`` steps with a worker for each
    ``delegate`` call (and the agent's own ``move``, one of `AGENTS_OWN_MOVES`), first differ.
    A task, tools or agent that differ there fail the assertion at once."""
    moves = {} if move is None else {move: True}
    mine, theirs = (explore(s, seed, steps, workers=True, **moves) for s in (twin, sibling))
    pairs = zip(mine.seen, theirs.seen, strict=False)  # either may run on past the other
    at = next(i for i, (ours, its) in enumerate(pairs) if ours != its)
    ours, its = mine.seen[at], theirs.seen[at]
    assert mine.task == theirs.task and ours.tools == its.tools and ours.agent == its.agent
    return FirstDifference(
        model_moved=_moved(ours) != _moved(its),
        words=first_difference(mine, theirs, steps + 1) or "",
    )


def _moved(seen: Seen) -> tuple[object, ...]:
    """The model's own moves in a step: its words and calls, and each fresh worker's."""
    return seen.said, seen.calls, tuple((d.said, d.calls) for d in seen.delegated)


def shown(scenario: Scenario, seed: int) -> dict[str, object]:
    """What a session shows an agent before its first step."""
    session = Session(scenario, scenario.build(seed), seed=seed, ceilings=Ceilings())
    return {
        "task": session.task,
        "tools": session.openai_tools,
        "specs": session.tools,
        "budget": session.budget,
        "pricing": session.pricing,
        "context_window": session.context_window,
        "role_steps": session.role_steps,
    }


def first_moves(record: TerminationRecord) -> dict[str, tuple[str, str]]:
    """The first call a worker made on each subtask of the record's table."""
    moves = {}
    for subtask in record.observed.subtasks or ():
        steps = (s for s in record.observed.trajectory if s.agent in subtask.workers and s.calls)
        if (first := next(steps, None)) is not None:
            moves[subtask.name] = (first.calls[0].name, first.calls[0].arguments)
    return moves
