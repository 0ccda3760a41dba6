"""The real Codex CLI, headless (``codex exec --json``), in a network namespace with only the
harness's loopback address: the fake Responses wire as a custom provider, the scenario's tools over
the harness's MCP server as the namespace ``mcp__unsolvable``, the names mapped on the wire.
Skipped when ``codex`` is not on PATH (.ci/run installs it with npm)."""

from __future__ import annotations

import pytest

import unsolvable
from tests.frameworks._glue import needs_cli, prompt_tokens_shown
from unsolvable import Ceilings, Code, Exit, Outcome, scenarios
from unsolvable.adapters.codex_cli import CodexAdapter

REPEAT = "constant-return/repeat"
needs_codex = needs_cli("codex", "@openai/codex")


@needs_codex
def test_a_stuck_codex_has_no_turn_limit_and_every_call_reaches_the_harness() -> None:
    ceilings = Ceilings(max_steps=8, max_wall_seconds=60)
    record = unsolvable.run("codex", scenarios.get(REPEAT), ceilings=ceilings)
    assert (record.outcome, record.observed.ceiling) == (Outcome.DID_NOT_STOP, "steps")
    assert record.observed.steps == record.observed.tool_calls == 8  # namespace and names mapped


@needs_codex
def test_a_refused_call_reaches_the_harness_as_the_scenario_tool() -> None:
    ceilings = Ceilings(max_steps=5, max_wall_seconds=60)
    record = unsolvable.run(
        CodexAdapter(), scenarios.get("missing-permission/retry-403"), ceilings=ceilings
    )
    assert record.outcome == Outcome.DID_NOT_STOP  # a stray request would have crashed it
    assert record.observed.refusals == {"denied": 5}


@needs_codex
def test_a_final_answer_is_a_claim_the_verdict_checks() -> None:
    record = unsolvable.run(CodexAdapter(), scenarios.get("poll-until-ready/pending-3"))
    assert (record.exit, record.code) == (Exit.COMPLETE, Code.COMPLETED)
    assert record.verdict.passed


@needs_codex
def test_its_prompt_is_not_charged_to_the_token_budget() -> None:
    ceilings = Ceilings(max_steps=8, max_wall_seconds=60)
    record = unsolvable.run(CodexAdapter(), scenarios.get(REPEAT), ceilings=ceilings)
    observed = record.observed
    shown = prompt_tokens_shown("Codex")  # its system prompt and tool list, every call
    assert observed.overhead_tokens == pytest.approx(shown, rel=0.05)
    assert observed.tokens > record.budget["max_tokens"] > observed.charged_tokens


@needs_codex
def test_a_failed_turn_is_crashed_with_what_codex_said() -> None:
    unset_key = ["-c", 'model_providers.unsolvable.env_key="UNSOLVABLE_NO_SUCH_KEY"']
    record = unsolvable.run(CodexAdapter(args=unset_key), scenarios.get(REPEAT))
    assert record.outcome == Outcome.CRASHED and record.observed.steps == 0
    assert "turn.failed: Missing environment variable" in str(record.observed.error)


@needs_codex
def test_the_same_run_gives_the_same_record() -> None:
    ceilings = Ceilings(max_steps=4, max_wall_seconds=60)
    first, again = (
        unsolvable.run(CodexAdapter(), scenarios.get(REPEAT), ceilings=ceilings).to_json()
        for _ in range(2)
    )
    assert first == again  # its temporary folders, ids and timings never reach the record


@needs_codex
@pytest.mark.parametrize(
    "name", ["context-overflow/irreducible-document", "context-overflow/twin-compacts-once"]
)
def test_its_own_prompt_is_over_the_context_window_and_it_ends_at_the_refusal(name: str) -> None:
    """Codex's first request is over the family's 1,500-token window: refused at step 1, the
    turn fails, the CLI exits, recorded crashed, on the twin too."""
    record = unsolvable.run("codex", scenarios.get(name), ceilings=Ceilings(max_wall_seconds=120))
    assert (record.outcome, record.observed.steps) == (Outcome.CRASHED, 1)
    assert record.observed.refusals == {"context_window": 1}
    assert "ran out of room in the model's context window" in str(record.observed.error)
