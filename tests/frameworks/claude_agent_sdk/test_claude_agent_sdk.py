"""The real claude-agent-sdk, its bundled Claude Code CLI in a network namespace with only the
harness's loopback address, on the fake Anthropic wire; its tools are in-process SDK MCP tools.
Each run starts the CLI (a few seconds), so the runs are few and short."""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("claude_agent_sdk")

from claude_agent_sdk import ClaudeAgentOptions, HookMatcher, PermissionResultDeny

import unsolvable
from tests.frameworks._glue import account, reported
from unsolvable import AdapterError, Ceilings, Code, Exit, Outcome, scenarios
from unsolvable._loading import load_agent
from unsolvable.adapters.claude_agent_sdk import CODING_AGENT_WALL_SECONDS, ClaudeAgentSDKAdapter

REPEAT = "constant-return/repeat"


def test_at_its_turn_limit_it_is_exhausted_after_that_many_model_calls() -> None:
    record = unsolvable.run(ClaudeAgentSDKAdapter(max_turns=5), scenarios.get(REPEAT))
    assert (record.exit, record.code) == (Exit.EXHAUSTED, Code.BUDGET_STEPS), account(record)
    assert (record.observed.steps, record.observed.tool_calls) == (5, 5)
    assert record.observed.transport_attempts == 5  # no retry, no title call, no stray
    assert "error_max_turns" in reported(record).reason
    assert reported(record).partial["tool_results"] == 5


def test_the_registered_name_takes_its_turn_limit_from_the_budget() -> None:
    scenario = scenarios.get("missing-permission/retry-raises")
    record = unsolvable.run("claude-agent-sdk", scenario)
    assert load_agent("claude-agent-sdk").name == "claude-agent-sdk"
    assert (record.exit, record.code) == (Exit.EXHAUSTED, Code.BUDGET_STEPS), account(record)
    assert record.observed.steps == scenario.budget.max_steps
    # the tool raises PermissionError: the SDK's default tells the model and the run goes on
    assert record.observed.refusals == {"denied": scenario.budget.max_steps}


def test_at_its_defaults_it_has_no_turn_limit_and_runs_into_the_ceiling() -> None:
    mark = uuid.uuid4().hex
    adapter = ClaudeAgentSDKAdapter(ClaudeAgentOptions(env={"UNSOLVABLE_TEST_MARK": mark}))
    ceilings = Ceilings(max_steps=6, max_wall_seconds=CODING_AGENT_WALL_SECONDS)
    record = unsolvable.run(adapter, scenarios.get(REPEAT), ceilings=ceilings)
    assert (record.outcome, record.observed.ceiling) == (Outcome.DID_NOT_STOP, "steps"), account(
        record
    )
    assert record.observed.steps == 6
    assert _alive_with(mark) == []  # the CLI and whatever it started are gone


def test_its_budget_limit_is_a_cost_budget() -> None:
    adapter = ClaudeAgentSDKAdapter(max_budget_usd=0.05)
    record = unsolvable.run(adapter, scenarios.get(REPEAT))
    assert (record.exit, record.code) == (Exit.EXHAUSTED, Code.BUDGET_COST), account(record)
    assert "error_max_budget_usd" in reported(record).reason


def test_a_final_answer_is_a_claim_the_verdict_checks() -> None:
    record = unsolvable.run(ClaudeAgentSDKAdapter(), scenarios.get("poll-until-ready/pending-3"))
    assert (record.exit, record.code) == (Exit.COMPLETE, Code.COMPLETED)
    assert record.observed.world_complete and record.verdict.passed


def test_the_cli_runs_in_a_network_namespace_of_its_own() -> None:
    """Seen from a hook the CLI calls before each tool use, while it runs."""
    mark, seen = uuid.uuid4().hex, set()

    async def look(data: Any, tool_use_id: str | None, context: Any) -> dict[str, Any]:
        seen.update(os.readlink(f"/proc/{pid}/ns/net") for pid in _alive_with(mark))
        return {}

    hooks: Any = {"PreToolUse": [HookMatcher(hooks=[look])]}
    options = ClaudeAgentOptions(env={"UNSOLVABLE_TEST_MARK": mark}, hooks=hooks)
    record = unsolvable.run(ClaudeAgentSDKAdapter(options, max_turns=2), scenarios.get(REPEAT))
    assert record.code is Code.BUDGET_STEPS
    assert seen and os.readlink("/proc/self/ns/net") not in seen


def refusing(interrupt: bool) -> ClaudeAgentOptions:
    """Options whose permission callback refuses every tool call, stopping the run for a person
    (``interrupt``) or telling the model and going on."""

    async def refuse(name: str, arguments: Any, context: Any) -> PermissionResultDeny:
        return PermissionResultDeny(message="no one here to approve", interrupt=interrupt)

    return ClaudeAgentOptions(can_use_tool=refuse)


def test_a_permission_callback_gates_the_scenarios_tools_as_it_gates_production_s() -> None:
    adapter = ClaudeAgentSDKAdapter(refusing(interrupt=False), max_turns=3)
    record = unsolvable.run(adapter, scenarios.get(REPEAT))
    assert (record.exit, record.code) == (Exit.EXHAUSTED, Code.BUDGET_STEPS), account(record)
    assert (record.observed.steps, record.observed.tool_calls) == (3, 0)


def test_a_permission_callback_that_interrupts_stops_the_run_for_a_human() -> None:
    """The CLI tells the model to wait for the user and ends the run with an error."""
    adapter = ClaudeAgentSDKAdapter(refusing(interrupt=True), max_turns=3)
    record = unsolvable.run(adapter, scenarios.get(REPEAT))
    assert (record.exit, record.code) == (Exit.ABANDONED, Code.NEEDS_HUMAN), account(record)
    assert (record.observed.steps, record.observed.tool_calls) == (1, 0)
    stop = reported(record)
    assert stop.reason == (
        "claude-agent-sdk: can_use_tool stopped the run for a person at search_invoices: "
        "no one here to approve"
    )
    assert stop.partial["tail"][-2]["tool_calls"] == ["search_invoices"]


@pytest.mark.parametrize(
    "options",
    [
        {"max_turns": 0},
        {"max_turns": "budgets"},
        {"max_budget_usd": 0},
        {"max_budget_usd": "budgets"},
        {"options": {"max_turns": 5}},
    ],
    ids=["no-turns", "misspelt-turn-budget", "no-dollars", "misspelt-cost-budget", "a-dict"],
)
def test_bad_options_are_refused_before_any_run(options: dict[str, Any]) -> None:
    with pytest.raises(AdapterError, match=r"ClaudeAgentSDKAdapter\((options|max_)"):
        ClaudeAgentSDKAdapter(**options)


def _alive_with(mark: str) -> list[int]:
    """Processes still running (not zombies) whose environment holds ``mark``."""
    alive = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            found = mark.encode() in (entry / "environ").read_bytes()
        except OSError:
            continue
        if found and state != "Z" and int(entry.name) != os.getpid():
            alive.append(int(entry.name))
    return alive
