"""A script that changes phase keeps its tool-call ids unique: the phase counts its own steps
from 1, the ids count the run's."""

from __future__ import annotations

import random

from unsolvable import Call, Claim, Steps, Until
from unsolvable._types import ModelRequest

POLL = Call(name="poll")
SAVE = Call(name="save")


def _ids(script: Steps | Until, steps: int, results: dict[int, str]) -> list[str]:
    ids = []
    for step in range(1, steps + 1):
        request = ModelRequest(
            messages=(),
            tools=("poll", "save"),
            step=step,
            agent_step=step,
            results=(results.get(step, "pending"),),
        )
        ids += [call.id for call in script.reply(request, random.Random(0)).tool_calls]
    return ids


def test_ids_never_repeat_across_phases() -> None:
    script = Until(
        call=POLL,
        marker="ready",
        then=Steps(calls=[SAVE, POLL], then=Steps(calls=[SAVE] * 9, then=Claim())),
    )
    ids = _ids(script, 12, {5: "ready"})
    assert len(ids) == len(set(ids)) == 12


def test_a_phase_still_counts_its_own_steps() -> None:
    script = Steps(calls=[POLL, POLL], then=Steps(calls=[SAVE], then=Claim()))
    request = ModelRequest(messages=(), tools=("save",), step=3, agent_step=3)
    (call,) = script.reply(request, random.Random(0)).tool_calls
    assert (call.name, call.id) == ("save", "call_3_0")
