"""The real coding-agent CLIs (Claude Code, Codex, Gemini CLI) failing before any step, here on
a flag they do not know: the crash names the CLI, its exit and the end of its stderr, never the
``exec:`` face's advice to print a structured exit, which is no user's to write for a CLI.
Each is skipped when its CLI is not on PATH (.ci/run installs them with npm)."""

from __future__ import annotations

import pytest

import unsolvable
from tests.frameworks._glue import CHILD_CEILINGS, needs_cli
from unsolvable import Outcome, scenarios
from unsolvable.adapters._coding_agent import CodingAgentAdapter
from unsolvable.adapters.claude_code import ClaudeCodeAdapter
from unsolvable.adapters.codex_cli import CodexAdapter
from unsolvable.adapters.gemini_cli import GeminiCliAdapter


@pytest.mark.parametrize(
    ("kind", "said"),
    [
        pytest.param(
            ClaudeCodeAdapter,
            "claude exited with status 1 with no result of its own; its stderr says: error: "
            "unknown option '--no-such-flag'",
            marks=needs_cli("claude", "@anthropic-ai/claude-code"),
        ),
        pytest.param(
            CodexAdapter,
            "codex exited with status 2 with no result of its own; its stderr says: error: "
            "unexpected argument '--no-such-flag' found",
            marks=needs_cli("codex", "@openai/codex"),
        ),
        pytest.param(
            GeminiCliAdapter,
            # Its usage follows the error and is longer than the stderr kept: read as it is written.
            "gemini exited with status 1 with no result of its own; its stderr says: Unknown "
            "arguments: such-flag, suchFlag",
            marks=needs_cli("gemini", "@google/gemini-cli"),
        ),
    ],
)
def test_a_cli_that_fails_on_its_own_says_so_as_a_cli(
    kind: type[CodingAgentAdapter], said: str
) -> None:
    adapter = kind(args=["--no-such-flag"])
    record = unsolvable.run(
        adapter, scenarios.get("constant-return/repeat"), ceilings=CHILD_CEILINGS
    )
    assert record.outcome is Outcome.CRASHED
    assert said in record.observed.error
    assert "print a JSON object" not in record.observed.error
