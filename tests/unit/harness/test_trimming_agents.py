"""Agents that compact their history, as long-running agents do: one trims old tool results in
place, the other builds new messages for them. They send the same conversations, so they are
charged the same tokens — what counting each conversation from scratch gives — on every
cost-runaway scenario and seed, and their records agree."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import unsolvable
from unsolvable import JSON, Code, Session, Stop, scenarios
from unsolvable._model import estimate_tokens
from unsolvable.agents._loop import assistant, dispatch, opening, tool_calls

KEEP = 2
"""Tool results an agent keeps whole; older ones are cut to `TRIMMED`."""
TRIMMED = "[trimmed]"
Charged = list[tuple[int, int]]
"""Per step: the input tokens charged, and the count of what was sent from scratch."""


def _trim(messages: list[JSON], *, in_place: bool) -> int:
    """Cuts every tool result but the last `KEEP`; returns how many it cut now."""
    results = [at for at, message in enumerate(messages) if message["role"] == "tool"]
    cut = 0
    for at in results[:-KEEP]:
        if messages[at]["content"] != TRIMMED:
            if in_place:
                messages[at]["content"] = TRIMMED
            else:
                messages[at] = {**messages[at], "content": TRIMMED}
            cut += 1
    return cut


def _trimming(*, in_place: bool, charged: Charged) -> Callable[[Session], Stop]:
    def agent(session: Session) -> Stop:
        messages, spent, cut = opening(session), 0, 0
        offered = estimate_tokens([spec.to_openai() for spec in session.tools])
        while True:
            expected = estimate_tokens(messages) + offered
            reply = session.call_model(messages, session.tools)
            charged.append((reply["usage"]["prompt_tokens"], expected))
            spent += reply["usage"]["total_tokens"]
            messages.append(assistant(reply))
            calls = tool_calls(reply)
            if not calls:
                return Stop(code=Code.COMPLETED, reason="done")
            for call_id, name, arguments in calls:
                messages.append(dispatch(session, call_id, name, arguments)[0])
            cut += _trim(messages, in_place=in_place)
            if spent >= (session.budget.max_tokens or spent + 1):
                return Stop(code=Code.BUDGET_COST, reason=f"spent {spent}; cut {cut}")

    return agent


@pytest.mark.parametrize(
    ("name", "seed"),
    [(s.name, seed) for s in scenarios.select(["cost-runaway"]) for seed in s.seeds],
)
def test_trimming_in_place_and_by_copying_are_charged_alike_and_exactly(
    name: str, seed: int
) -> None:
    scenario = scenarios.get(name)
    in_place: Charged = []
    copying: Charged = []
    edited = unsolvable.run(_trimming(in_place=True, charged=in_place), scenario, seed=seed)
    copied = unsolvable.run(_trimming(in_place=False, charged=copying), scenario, seed=seed)
    assert in_place == copying and all(sent == fresh for sent, fresh in in_place)
    assert edited.observed == copied.observed and edited.verdict == copied.verdict
    if not scenario.solvable:  # the runaways go on long enough to trim
        assert "cut 0" not in (edited.reported.reason or "")
