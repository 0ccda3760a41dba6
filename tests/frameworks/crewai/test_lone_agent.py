"""A lone CrewAI `Agent` run as production runs one, ``agent.kickoff(task)``: the same executor
as a crew's task, so the same stops, read from what `Agent.kickoff` returns or raises."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from crewai import Agent

import unsolvable
from tests.frameworks._glue import reported
from tests.frameworks.crewai._crews import clerk
from unsolvable import Ceilings, Code, Exit, Outcome, Rule, scenarios
from unsolvable.adapters.crewai import CrewAIAdapter


def lone(**options: Any) -> CrewAIAdapter:
    """A build of one `clerk` alone, ``options`` on it."""

    def build(llm: Any, tools: Any) -> Agent:
        return clerk(llm, tools, **options)

    return CrewAIAdapter(build)


def unpaid(output: Any) -> tuple[bool, str]:
    return False, "the invoice is still unpaid"


def test_at_max_iter_the_forced_final_answer_is_a_claim_and_checked() -> None:
    record = unsolvable.run(lone(), scenarios.get("constant-return/repeat"))
    assert (record.exit, record.code, record.observed.steps) == (Exit.COMPLETE, Code.COMPLETED, 26)
    assert record.observed.tool_calls == 25
    assert "forced at max_iter=25" in reported(record).reason
    assert reported(record).partial["tool_results"] == 25
    assert record.verdict.broke(Rule.FALSE_COMPLETION)


def test_an_answer_of_its_own_is_not_called_forced() -> None:
    record = unsolvable.run(lone(), scenarios.get("poll-until-ready/pending-3"))
    assert (record.exit, record.observed.steps) == (Exit.COMPLETE, 6)
    assert reported(record).reason == "final answer: Done: the task is complete."


def test_the_same_call_failing_the_same_way_five_times_forces_the_final_answer() -> None:
    record = unsolvable.run(lone(), scenarios.get("missing-permission/retry-raises"))
    assert (record.exit, record.code, record.observed.steps) == (
        Exit.COMPLETE,
        Code.COMPLETED,
        6,
    )
    assert reported(record).reason.startswith(
        "final answer: forced by its repeated-call guard ('publish_report' 5 times in a row)"
    ), "read from the agent's own output (LiteAgentOutput.tool_failures)"


def test_a_guardrail_failing_past_its_retries_halts_the_run_for_a_person() -> None:
    """CrewAI runs the agent again on each failed check, then raises a `ValueError` when its
    ``guardrail_max_retries`` (3) are spent: the agent's own check halted it, not a crash."""
    record = unsolvable.run(
        lone(guardrail=unpaid, max_iter=1), scenarios.get("constant-return/repeat")
    )
    assert (record.exit, record.code, record.observed.steps) == (
        Exit.ABANDONED,
        Code.NEEDS_HUMAN,
        8,
    ), "four runs of the agent, each one call and one forced"
    assert reported(record).reason == (
        "CrewAI: Agent's guardrail failed validation after 3 retries. "
        "Last error: the invoice is still unpaid"
    )
    assert reported(record).partial["tool_results"] == 1, "the last run's one call, as a task's"


def test_max_rpm_waits_for_the_next_minute_on_the_session_clock() -> None:
    record = unsolvable.run(lone(max_rpm=2, max_iter=4), scenarios.get("constant-return/repeat"))
    assert (record.exit, record.observed.steps) == (Exit.COMPLETE, 5)
    assert record.observed.slept_seconds == 120.0, "the third call, and the forced fifth"


def test_max_iter_from_the_budget_applies_to_the_agent() -> None:
    scenario = scenarios.get("constant-return/repeat")
    adapter = lone()
    adapter.max_iter = "budget"
    record = unsolvable.run(adapter, scenario)
    assert record.observed.steps == scenario.budget.max_steps
    assert "forced at max_iter=11" in reported(record).reason


@pytest.mark.parametrize(
    ("options", "says"),
    [
        ({"llm": "gpt-4o-mini"}, "agent 'Billing' runs on gpt-4o-mini, not on the llm"),
        ({"memory": True}, "agent 'Billing' has memory"),
    ],
    ids=["real-model", "memory"],
)
def test_an_agent_that_would_leave_the_script_is_refused(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    offline: list[str],
    options: dict[str, Any],
    says: str,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-unsolvable-not-a-real-key")
    monkeypatch.setenv("CREWAI_STORAGE_DIR", str(tmp_path))

    def build(llm: Any, tools: Any) -> Agent:
        return clerk(**{"llm": llm, "tools": tools, **options})

    # Building the agent imports its memory's modules inside the run: seconds on a loaded
    # machine, which the default 10 s wall ceiling would count against the refusal.
    wall = Ceilings(max_wall_seconds=60)
    record = unsolvable.run(
        CrewAIAdapter(build), scenarios.get("constant-return/repeat"), ceilings=wall
    )
    assert (record.outcome, record.observed.steps) == (Outcome.CRASHED, 0)
    assert says in str(record.observed.error)
    assert offline == []


def test_the_same_run_gives_the_same_record() -> None:
    scenario = scenarios.get("missing-permission/retry-403")
    first, second = (unsolvable.run(lone(max_iter=4), scenario) for _ in range(2))
    assert first.to_json() == second.to_json()
