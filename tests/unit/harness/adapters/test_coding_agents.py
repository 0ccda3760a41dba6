"""The coding-agent CLI adapters share their options, their label and their wall ceiling, and
each spells the harness's MCP tools on the wire as its CLI does. (The runs of the CLIs themselves
are in ``tests/frameworks``.)"""

from __future__ import annotations

import json
import sys

import pytest

import unsolvable
from unsolvable import Outcome, Session, scenarios
from unsolvable.adapters._coding_agent import CODING_AGENT_WALL_SECONDS, CodingAgentAdapter
from unsolvable.adapters.claude_code import ClaudeCodeAdapter, command
from unsolvable.adapters.codex_cli import CodexAdapter, _events, _failure
from unsolvable.adapters.gemini_cli import GeminiCliAdapter
from unsolvable.adapters.process import ProcessExit
from unsolvable.wire import ToolNames

SPELLINGS = [
    (ClaudeCodeAdapter, "claude-code", "mcp__unsolvable__"),
    (CodexAdapter, "codex", "mcp__unsolvable__"),
    (GeminiCliAdapter, "gemini-cli", "mcp_unsolvable_"),
]


@pytest.mark.parametrize(("kind", "label", "prefix"), SPELLINGS)
def test_each_takes_the_shared_options_and_spells_the_tools_as_its_cli(
    kind: type[CodingAgentAdapter], label: str, prefix: str
) -> None:
    default = kind()
    assert (default.name, default.wall_seconds) == (label, CODING_AGENT_WALL_SECONDS)
    assert (default.model, default.args, default.isolate_network) == (None, (), True)
    given = kind("/opt/cli", model="m-1", args=["--x"], isolate_network=False, name="mine")
    assert (given.executable, given.model, given.args) == ("/opt/cli", "m-1", ("--x",))
    assert (given.isolate_network, given.name) == (False, "mine")
    process = given.process(["cli", "{task}"])
    assert (process.name, process.command) == ("mine", ("cli", "{task}"))
    assert process.wire_options == {"tool_names": ToolNames(prefix=prefix)}


@pytest.mark.parametrize("kind", [kind for kind, _, _ in SPELLINGS])
def test_a_cli_given_by_a_path_that_is_not_there_is_refused_before_the_run(
    kind: type[CodingAgentAdapter],
) -> None:
    """Checked as the CLI on PATH is: one error before any run, not a crash in every run."""
    with pytest.raises(unsolvable.AdapterError, match="'/nonexistent/cli' is not on PATH"):
        unsolvable.run(kind("/nonexistent/cli"), scenarios.get("constant-return/repeat"))


@pytest.mark.parametrize("kind", [ClaudeCodeAdapter, GeminiCliAdapter])
@pytest.mark.parametrize("limit", [0, -2, True, 2.5, "budgt"])
def test_a_turn_limit_that_is_no_limit_is_refused_when_made(
    kind: type[ClaudeCodeAdapter | GeminiCliAdapter], limit: object
) -> None:
    """Each would run with no limit at all, or one the CLI refuses in every run."""
    with pytest.raises(unsolvable.AdapterError, match=rf"{kind.__name__}\(max_turns="):
        kind(max_turns=limit)  # type: ignore[arg-type]


@pytest.mark.parametrize("kind", [ClaudeCodeAdapter, GeminiCliAdapter])
def test_a_turn_limit_from_the_budget_is_the_scenarios_steps(
    kind: type[ClaudeCodeAdapter | GeminiCliAdapter],
) -> None:
    scenario = scenarios.get("constant-return/repeat")
    session = Session(scenario, scenario.build(0), seed=0, ceilings=unsolvable.Ceilings())
    assert kind(max_turns="budget").turn_limit(session) == scenario.budget.max_steps
    assert (kind(max_turns=3).turn_limit(session), kind().turn_limit(session)) == (3, None)


def test_claude_code_is_told_a_model_and_a_turn_limit_only_when_given() -> None:
    plain = command("claude", None)
    assert "--model" not in plain and "--max-turns" not in plain
    told = command("claude", 8, ["--verbose"], model="claude-haiku-4-5")
    assert told[-5:] == ["--max-turns", "8", "--model", "claude-haiku-4-5", "--verbose"]
    assert ClaudeCodeAdapter(max_turns="budget", model="m").max_turns == "budget"


def test_a_failed_exit_is_raised_with_the_clis_own_account() -> None:
    """A CLI that exits 1 after saying why (Codex's ``turn.failed`` event) crashes the run with
    what it said, not its exit status alone; one that says nothing keeps the exit status."""
    said = json.dumps({"type": "turn.failed", "error": {"message": "quota exceeded"}})

    def exits(*, account: bool) -> CodexAdapter:
        class Exits(CodexAdapter):
            def run(self, session: Session) -> ProcessExit:
                script = f"print({said!r} if {account} else ''); raise SystemExit(1)"
                literal = script.replace("{", "{{").replace("}", "}}")  # not placeholders
                line = [sys.executable, "-c", literal]
                return self.run_reading(session, line, lambda ended: _failure(_events(ended)))

        return Exits(sys.executable, isolate_network=False)  # its preflight finds a program

    told = unsolvable.run(exits(account=True), scenarios.get("constant-return/repeat"))
    assert told.outcome is Outcome.CRASHED
    assert "codex ended with turn.failed: quota exceeded" in str(told.observed.error)
    silent = unsolvable.run(exits(account=False), scenarios.get("constant-return/repeat"))
    assert silent.outcome is Outcome.CRASHED and "turn.failed" not in str(silent.observed.error)
