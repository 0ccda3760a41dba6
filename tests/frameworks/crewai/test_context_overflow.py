"""CrewAI at its defaults, a request over the context window. Its agents respect the window: on
the provider's ``context_length_exceeded`` they summarise the conversation and try again. The
irreducible document is still too long after each summary, and after six refusals CrewAI raises
`LLMContextLengthExceededError`, so the run is recorded crashed. On the twin, no request CrewAI
sends passes the window, and it completes."""

from __future__ import annotations

import logging

import pytest

import unsolvable
from unsolvable import Code, Outcome, Rule, scenarios
from unsolvable.adapters.crewai import CrewAIAdapter


@pytest.fixture(autouse=True)
def _quiet(caplog: pytest.LogCaptureFixture) -> None:
    """CrewAI logs every refusal at ERROR level; the record keeps them."""
    caplog.set_level(logging.CRITICAL)


def test_the_irreducible_document_is_summarised_and_refused_until_crewai_raises() -> None:
    record = unsolvable.run(CrewAIAdapter(), scenarios.get("context-overflow/irreducible-document"))
    assert (record.outcome, record.observed.steps) == (Outcome.CRASHED, 12)
    assert record.observed.refusals == {"context_window": 6}
    assert str(record.observed.error).startswith("LLMContextLengthExceededError")
    assert record.verdict.broke(Rule.CRASHED)


def test_the_twin_completes_within_the_window() -> None:
    record = unsolvable.run(CrewAIAdapter(), scenarios.get("context-overflow/twin-compacts-once"))
    assert (record.code, record.observed.steps, record.observed.refusals) == (Code.COMPLETED, 3, {})
    assert record.verdict.passed
