"""The coding-agent CLI adapters share their options, their label and their wall ceiling, and
each spells the harness's MCP tools on the wire as its CLI does. (The runs of the CLIs themselves
are in ``tests/frameworks``.)"""

from __future__ import annotations

import pytest

from unsolvable.adapters._coding_agent import CODING_AGENT_WALL_SECONDS, CodingAgentAdapter
from unsolvable.adapters.claude_code import ClaudeCodeAdapter, command
from unsolvable.adapters.codex_cli import CodexAdapter
from unsolvable.adapters.gemini_cli import GeminiCliAdapter
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


def test_claude_code_is_told_a_model_and_a_turn_limit_only_when_given() -> None:
    plain = command("claude", None)
    assert "--model" not in plain and "--max-turns" not in plain
    told = command("claude", 8, ["--verbose"], model="claude-haiku-4-5")
    assert told[-5:] == ["--max-turns", "8", "--model", "claude-haiku-4-5", "--verbose"]
    assert ClaudeCodeAdapter(max_turns="budget", model="m").max_turns == "budget"
