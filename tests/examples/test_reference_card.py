"""The README's reference card shows real tool results: each call it lists, made in that
scenario and seed in the order shown, answers (or raises) exactly what the card says."""

from __future__ import annotations

import json
import re

import pytest

import unsolvable
from tests._docs import ROOT, TEXTS
from unsolvable import Code, Session, Stop, scenarios
from unsolvable.fake_tools import PermissionDenied

CARD = TEXTS[ROOT / "README.md"].partition("**What tools return.**")[2]
LISTING = re.findall(r"```\n(# .*?)```", CARD, re.S)[0]
ENTRY = re.compile(r"# (\S+), seed (\d+)\n((?:\w+\(.*\)\n→ .*\n)+)")
CALL = re.compile(r"(\w+)\((.*)\)\n→ (.*)\n")
RAISES = "raises PermissionDenied: "

RUNS = [(name, int(seed), CALL.findall(calls)) for name, seed, calls in ENTRY.findall(LISTING)]


def test_the_card_lists_every_entry_it_shows() -> None:
    assert len(RUNS) == LISTING.count("\n# ") + 1 == 6


@pytest.mark.parametrize(("name", "seed", "calls"), RUNS, ids=[f"{n}-{s}" for n, s, _ in RUNS])
def test_each_call_answers_as_shown(
    name: str, seed: int, calls: list[tuple[str, str, str]]
) -> None:
    answers: list[str] = []

    def agent(session: Session) -> Stop:
        for tool, arguments, _ in calls:
            try:
                answers.append(session.call_tool(tool, json.loads(arguments)))
            except PermissionDenied as refused:
                answers.append(RAISES + refused.body)
        return Stop(code=Code.NO_PROGRESS, reason="the card's calls made")

    unsolvable.run(agent, scenarios.get(name), seed=seed)
    assert answers == [shown for _, _, shown in calls]
