"""The real Claude Code CLI, headless, in a network namespace with only the harness's loopback
address: the fake Anthropic wire, the scenario's tools over the harness's MCP server, the
``mcp__unsolvable__`` names mapped on the wire. Skipped when ``claude`` is not on PATH (.ci/run
installs it with npm)."""

from __future__ import annotations

import shutil

import pytest

if shutil.which("claude") is None:
    pytest.skip(
        "the Claude Code CLI is not on PATH (npm i @anthropic-ai/claude-code)",
        allow_module_level=True,
    )

import unsolvable
from tests.frameworks._glue import account, prompt_tokens_shown
from unsolvable import Ceilings, Code, Exit, Outcome, scenarios
from unsolvable.adapters.claude_code import ClaudeCodeAdapter

REPEAT = "constant-return/repeat"


def test_at_its_turn_limit_it_is_exhausted_and_every_call_reached_the_harness() -> None:
    record = unsolvable.run("claude-code", scenarios.get("missing-permission/retry-403"))
    steps = scenarios.get("missing-permission/retry-403").budget.max_steps
    assert (record.exit, record.code) == (Exit.EXHAUSTED, Code.BUDGET_STEPS)
    assert record.observed.steps == record.observed.tool_calls == steps  # names mapped
    assert record.observed.transport_attempts == steps  # no title call, no stray
    assert record.observed.refusals == {"denied": steps}


def test_at_its_defaults_it_has_no_turn_limit() -> None:
    ceilings = Ceilings(max_steps=5, max_wall_seconds=60)
    record = unsolvable.run(ClaudeCodeAdapter(), scenarios.get(REPEAT), ceilings=ceilings)
    assert (record.outcome, record.observed.ceiling) == (Outcome.DID_NOT_STOP, "steps")


def test_a_final_answer_is_a_claim_the_verdict_checks() -> None:
    record = unsolvable.run(ClaudeCodeAdapter(), scenarios.get("poll-until-ready/pending-3"))
    assert (record.exit, record.code) == (Exit.COMPLETE, Code.COMPLETED)
    assert record.verdict.passed


def test_its_prompt_is_not_charged_to_the_token_budget() -> None:
    record = unsolvable.run(ClaudeCodeAdapter(max_turns=8), scenarios.get(REPEAT))
    observed = record.observed
    shown = prompt_tokens_shown("Claude Code")  # its system prompt and tools, every call
    assert observed.overhead_tokens == pytest.approx(shown, rel=0.05)
    assert observed.tokens > record.budget["max_tokens"] > observed.charged_tokens
    assert observed.steps_past_token_budget == 0


@pytest.mark.parametrize(
    "name", ["context-overflow/irreducible-document", "context-overflow/twin-compacts-once"]
)
def test_its_own_prompt_is_over_the_context_window_and_it_ends_at_the_refusal(name: str) -> None:
    """Claude Code's first request (its system prompt and tools, about 3,400 tokens as the
    harness counts them) is over the family's 1,500-token window: it is refused at step 1, and the
    CLI reports it (a result of subtype ``success`` with ``is_error`` and the API's status 400)
    and exits 1, recorded crashed by the API error, never as a success, on the twin too."""
    record = unsolvable.run(
        ClaudeCodeAdapter(), scenarios.get(name), ceilings=Ceilings(max_wall_seconds=120)
    )
    assert (record.outcome, record.observed.steps) == (Outcome.CRASHED, 1)
    assert record.observed.refusals == {"context_window": 1}
    error = str(record.observed.error)
    assert "claude-code ended with API error 400: Prompt is too long" in error


@pytest.mark.parametrize(
    ("max_turns", "name", "ended"),
    [
        (None, "poll-until-ready/pending-3", (Exit.COMPLETE, Code.COMPLETED)),
        (3, REPEAT, (Exit.EXHAUSTED, Code.BUDGET_STEPS)),
    ],
)
def test_the_release_claude_agent_sdk_bundles_is_read_as_npms_is(
    max_turns: int | None, name: str, ended: tuple[Exit, Code]
) -> None:
    """The Claude Code claude-agent-sdk bundles is another release than npm's (2.1.332 beside
    2.1.197 here), whose JSON result puts ``"type": "result"`` near its end, not first: its final
    answer and its turn limit are read all the same."""
    pytest.importorskip("claude_agent_sdk")
    from unsolvable.adapters.claude_agent_sdk import _bundled_cli

    adapter = ClaudeCodeAdapter(_bundled_cli(), max_turns=max_turns)
    record = unsolvable.run(adapter, scenarios.get(name))
    assert (record.exit, record.code) == ended, account(record)
