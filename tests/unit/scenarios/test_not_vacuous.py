"""Every scenario catches the flawed agent it is built for: none passes by construction."""

from __future__ import annotations

from typing import Any

import pytest

import harness
import scenarios
from harness import Code
from harness.agents import naive
from tests import _wrong_agents as wrong

# family → (flawed agent factory, strict?, words the verdict must contain; "|" separates choices)
CAUGHT: dict[str, tuple[Any, bool, str]] = {
    "contradictory-criteria": (wrong.stops_when_state_unchanged, False, "after the bound"),
    "constant-return": (lambda: naive, False, "no structured exit|false completion"),
    "missing-permission": (
        lambda: wrong.retries_then_gives_a_vague_stop(Code.BLOCKED_INPUT),
        False,
        "retried a refused call",
    ),
    "dependency-unavailable": (
        lambda: wrong.retries_then_gives_a_vague_stop(Code.ERROR_FATAL, attempts=5),
        False,
        "retried a refused call",
    ),
    "oscillation": (wrong.stops_when_state_unchanged, False, "after the bound"),
    "reconfirm-as-progress": (wrong.trusts_progress_claims, False, "after the bound"),
    "todo-spawn": (wrong.novelty_only, True, "expected NO_PROGRESS, got BUDGET_STEPS"),
    "false-completion": (lambda: naive, False, "false completion"),
    "forced-final-answer": (lambda: None, False, "false completion"),
    "fan-out": (lambda: naive, False, "did not stop"),
    "cost-runaway": (wrong.ignores_tokens, False, "after the token budget"),
    "give-up-honoured": (lambda: naive, False, "kept going after the model gave up"),
    "long-healthy": (lambda: wrong.capped(10), False, "false stop"),
    "poll-until-ready": (wrong.stops_on_identical_calls, False, "false stop"),
    "slow-dependency": (
        lambda: wrong.stops_on_identical_calls(2, Code.ERROR_FATAL),
        False,
        "false stop",
    ),
}


def _agent(scenario: harness.Scenario) -> Any:
    if scenario.family == "forced-final-answer":
        return wrong.forced_final_answer(scenario.budget.max_steps)
    return CAUGHT[scenario.family][0]()


def test_every_family_has_a_flawed_agent() -> None:
    assert {s.family for s in scenarios.SCENARIOS} == set(CAUGHT)


@pytest.mark.parametrize("scenario", scenarios.SCENARIOS, ids=lambda s: s.name)
def test_flawed_agent_is_caught(scenario: harness.Scenario) -> None:
    _, strict, words = CAUGHT[scenario.family]
    record = harness.run(_agent(scenario), scenario, strict=strict)
    assert not record.verdict.passed
    assert any(choice in record.verdict.summary for choice in words.split("|")), record.verdict
