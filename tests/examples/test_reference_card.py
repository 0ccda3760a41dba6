"""The README's reference card: the session it shows is the session an agent is handed, and
the tool results it lists are real: each call, made in that scenario and seed in the order
shown, answers (or raises) exactly what the card says."""

from __future__ import annotations

import dataclasses
import inspect
import json
import re

import pytest

import unsolvable
from tests._docs import ROOT, TEXTS
from unsolvable import Code, Session, Stop, scenarios
from unsolvable.fake_tools import PermissionDenied

SESSION_CARD = TEXTS[ROOT / "README.md"].partition("**The session**")[2].partition("**What")[0]
TABLE = "\n".join(line for line in SESSION_CARD.splitlines() if line.startswith("|"))
AFTER_TABLE = SESSION_CARD.rpartition("|\n\n")[2]
"""The paragraph under the table: which calls take an agent's name."""
CARD = TEXTS[ROOT / "README.md"].partition("**What tools return.**")[2]
LISTING = re.findall(r"```\n(# .*?)```", CARD, re.S)[0]
ENTRY = re.compile(r"# (\S+), seed (\d+)\n((?:\w+\(.*\)\n→ .*\n)+)")
CALL = re.compile(r"(\w+)\((.*)\)\n→ (.*)\n")
RAISES = "raises PermissionDenied: "

RUNS = [(name, int(seed), CALL.findall(calls)) for name, seed, calls in ENTRY.findall(LISTING)]


def _names(pattern: str, text: str) -> list[str]:
    """What ``pattern`` finds in ``text``: at least one, or the card has lost its shape."""
    found = re.findall(pattern, text)
    assert found, pattern
    return found


def _handed() -> Session:
    """The session an agent is handed, as `unsolvable.run` hands it."""
    handed: list[Session] = []

    def agent(session: Session) -> Stop:
        handed.append(session)
        return Stop(code=Code.NO_PROGRESS, reason="kept its session")

    unsolvable.run(agent, scenarios.get("constant-return/repeat"))
    return handed[0]


def test_the_card_names_only_what_the_session_has() -> None:
    session = _handed()
    assert [n for n in _names(r"`session\.(\w+)", TABLE) if not hasattr(session, n)] == []
    budget = TABLE.partition("`session.budget`")[2].partition("`session.pricing`")[0]
    fields = {field.name for field in dataclasses.fields(session.budget)}
    assert set(_names(r"`(\w+)`", budget)) == fields
    assert callable(session.pricing.cost)


def test_the_calls_said_to_take_an_agent_name_take_it() -> None:
    session = _handed()
    said = AFTER_TABLE.partition('take `agent="worker-1"`')[0]
    for name in _names(r"`(\w+)`", said):
        assert "agent" in inspect.signature(getattr(session, name)).parameters, name


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
