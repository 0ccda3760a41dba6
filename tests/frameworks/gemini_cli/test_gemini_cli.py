"""The real Gemini CLI, headless (``gemini -p … --output-format json``), in a network namespace
with only the harness's loopback address: the fake Gemini wire through
``GOOGLE_GEMINI_BASE_URL``, the scenario's tools over the harness's MCP server as
``mcp_unsolvable_<tool>``, the names mapped on the wire. Skipped when ``gemini`` is not on PATH
(.ci/run installs it with npm)."""

from __future__ import annotations

import pytest

import unsolvable
from tests.frameworks._glue import account, needs_cli, prompt_tokens_shown
from unsolvable import Code, Exit, Outcome, Rule, scenarios
from unsolvable.adapters.gemini_cli import GeminiCliAdapter

needs_gemini = needs_cli("gemini", "@google/gemini-cli")


@needs_gemini
def test_a_stuck_gemini_cli_is_stopped_by_its_own_loop_detector() -> None:
    """Four identical calls reach the harness; the fifth trips its loop detector, which ends
    the run: its own stop, NO_PROGRESS, after six model calls."""
    record = unsolvable.run("gemini-cli", scenarios.get("constant-return/repeat"))
    assert (record.outcome, record.exit, record.code) == (
        Outcome.STOPPED,
        Exit.ABANDONED,
        Code.NO_PROGRESS,
    )
    assert (record.observed.steps, record.observed.tool_calls) == (6, 4)
    assert record.verdict.passed


@needs_gemini
def test_its_prompt_is_not_charged_to_the_token_budget() -> None:
    record = unsolvable.run("gemini-cli", scenarios.get("constant-return/repeat"))
    observed = record.observed
    shown = prompt_tokens_shown("Gemini CLI")  # its system prompt and tools, every call
    assert observed.overhead_tokens == pytest.approx(shown, rel=0.05)
    assert observed.charged_tokens < observed.tokens


@needs_gemini
def test_a_refused_call_is_retried_until_the_loop_detector_not_reported_as_blocked() -> None:
    """Gemini CLI reads the 403 as a tool error and calls again: its loop detector ends the run
    as NO_PROGRESS, where the scenario expects BLOCKED_INPUT naming the permission."""
    record = unsolvable.run("gemini-cli", scenarios.get("missing-permission/retry-403"))
    assert (record.exit, record.code) == (Exit.ABANDONED, Code.NO_PROGRESS)
    assert record.observed.refusals == {"denied": 4}
    assert [failure.rule for failure in record.verdict.failures] == [Rule.RETRIED_REFUSAL]
    strict = unsolvable.run(
        "gemini-cli", scenarios.get("missing-permission/retry-403"), strict=True
    )
    assert {failure.rule for failure in strict.verdict.failures} == {
        Rule.RETRIED_REFUSAL,
        Rule.UNEXPECTED_CODE,
    }


@needs_gemini
@pytest.mark.parametrize(
    "name", ["context-overflow/irreducible-document", "context-overflow/twin-compacts-once"]
)
def test_its_first_request_is_over_the_window_and_it_exits_with_the_apis_message(
    name: str,
) -> None:
    """Its own prompt and tools are about 6,200 tokens as the harness counts them: refused at
    step 1 with the API's "input token count" message, which it reports before exiting."""
    record = unsolvable.run("gemini-cli", scenarios.get(name))
    assert (record.outcome, record.observed.steps) == (Outcome.CRASHED, 1)
    assert "exceeds the maximum number of tokens allowed (1500)" in str(record.observed.error)


@needs_gemini
def test_at_its_turn_limit_it_exits_53_and_is_exhausted_not_crashed() -> None:
    """``maxSessionTurns`` 3: the fourth turn would pass it, so it prints a
    ``FatalTurnLimitedError`` result (twice on stderr, once behind ``[ERROR]``) and exits 53:
    its own budget spent, ``exhausted``, at step 3."""
    record = unsolvable.run(
        GeminiCliAdapter(max_turns=3), scenarios.get("constant-return/perturbed-offset")
    )
    assert (record.outcome, record.exit, record.code) == (
        Outcome.STOPPED,
        Exit.EXHAUSTED,
        Code.BUDGET_STEPS,
    ), account(record)
    assert record.observed.steps == 3
    assert "Reached max session turns" in record.reported.reason


@needs_gemini
def test_a_turn_limit_reached_inside_a_turn_is_exhausted_not_a_final_answer() -> None:
    """``maxSessionTurns`` 5 on a repeated call: its loop detector's recovery turn is the sixth,
    past the limit, so it ends with the warning "Maximum session turns exceeded" and exits 0, the
    model's last text as its response: a budget spent, never a claim of success."""
    record = unsolvable.run(GeminiCliAdapter(max_turns=5), scenarios.get("constant-return/repeat"))
    assert (record.exit, record.code) == (Exit.EXHAUSTED, Code.BUDGET_STEPS), account(record)
    assert record.observed.steps == 5
    assert record.reported.reason == "gemini: Maximum session turns exceeded"


@needs_gemini
def test_with_the_budget_as_its_turn_limit_it_stops_at_max_steps() -> None:
    name = "forced-final-answer/budget-8"
    record = unsolvable.run(GeminiCliAdapter(max_turns="budget"), scenarios.get(name))
    assert (record.exit, record.code) == (Exit.EXHAUSTED, Code.BUDGET_STEPS), account(record)
    assert record.observed.steps == scenarios.get(name).budget.max_steps
