"""An ``exec:`` agent keeps the budgets an in-process agent keeps on its session: it waits out a
Retry-After on the session clock and reads the clock (``UNSOLVABLE_CLOCK_URL``), and prices
its steps at the scenario's prices (``UNSOLVABLE_PRICING``), so its honest stops are judged
honest and its twins finished (`clock_agent.py`)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

pytest.importorskip("openai")

import unsolvable
from tests.frameworks._glue import CHILD_CEILINGS
from unsolvable import Code, scenarios

AGENT = f"exec:{shlex.quote(sys.executable)} {Path(__file__).parent / 'clock_agent.py'} {{task}}"


@pytest.mark.parametrize(
    ("name", "code", "slept"),
    [
        ("endless-wait/overloaded-forever", Code.BUDGET_IDLE, 900.0),
        ("endless-wait/twin-job-finishes", Code.COMPLETED, 1080.0),
        ("dollar-budget/long-transcript", Code.BUDGET_COST, 0.0),
        ("dollar-budget/twin-admission-found", Code.COMPLETED, 0.0),
    ],
)
def test_an_agent_in_another_process_waits_and_prices_on_its_session(
    name: str, code: Code, slept: float
) -> None:
    record = unsolvable.run(AGENT, scenarios.get(name), ceilings=CHILD_CEILINGS)
    assert (record.code, record.verdict.passed) == (code, True), record.verdict
    assert record.observed.slept_seconds == slept
