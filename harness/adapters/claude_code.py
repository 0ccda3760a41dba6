"""Consumes the Claude Code CLI (npm ``@anthropic-ai/claude-code``), produces a run of it in its own
process — headless (``claude -p``), on the fake Anthropic wire, its tools over the harness's MCP
server — and the `Stop` read from its JSON result.

Its stops, read into the vocabulary (the result's ``subtype``, as claude-agent-sdk reads them):
``error_max_turns`` (``--max-turns``; by default there is none) → ``exhausted``/``BUDGET_STEPS``,
``error_max_budget_usd`` → ``BUDGET_COST``, ``success`` → a claim the verdict checks; anything else
(an error during execution, an API error it gave up on) → ``crashed`` with its message.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from typing import TYPE_CHECKING

from unsolvable._stop import Code, Stop
from unsolvable.adapters._coding_agent import CodingAgentCli, TurnLimitedAdapter
from unsolvable.adapters.kit import BUDGET
from unsolvable.adapters.process import ProcessExit, ProcessExited

if TYPE_CHECKING:
    from unsolvable._session import Session

__all__ = ["ENVIRON", "ClaudeCodeAdapter", "adapter", "command"]

ENVIRON = {
    # Wait for the MCP server before the first turn, or a run can end before the tools appear.
    "MCP_CONNECTION_NONBLOCKING": "0",
    # No title call (one more step), no telemetry, update checks or other hosts contacted.
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    # Tool search would hide the tools behind a search tool the scripted model never calls.
    "ENABLE_TOOL_SEARCH": "false",
    # Root in its namespace, it refuses ``--permission-mode bypassPermissions`` (in ``args``)
    # unless told it is sandboxed, which it is.
    "IS_SANDBOX": "1",
}
"""What Claude Code needs to run on the fake, measured on 2.1.x; set with ``env``."""
SERVER = "unsolvable"
"""The MCP server's name in the config the harness writes (`unsolvable.mcp`)."""
STOP_SUBTYPES = {"error_max_turns": Code.BUDGET_STEPS, "error_max_budget_usd": Code.BUDGET_COST}


def command(
    executable: str, max_turns: int | None, extra: Sequence[str] = (), *, model: str | None = None
) -> list[str]:
    """The headless command line: the task as the prompt, a JSON result, only the harness's MCP
    server (``--strict-mcp-config``), its tools granted by the server's name, no prompts; the
    turn limit and the model when they are given."""
    line = [executable, "-p", "{task}", "--output-format", "json"]
    line += ["--mcp-config", "{mcp_config}", "--strict-mcp-config"]
    line += ["--allowedTools", f"mcp__{SERVER}"]
    if max_turns is not None:
        line += ["--max-turns", str(max_turns)]
    if model is not None:
        line += ["--model", model]
    return [*line, *extra]


def _env_prefix(folder: str) -> list[str]:
    """``env``: `ENVIRON`, a fresh config folder (no user settings, hooks or credentials) and an
    empty working directory (no ``CLAUDE.md`` read into its prompt), both in ``folder``."""
    config, work = os.path.join(folder, "config"), os.path.join(folder, "work")
    os.makedirs(config)
    os.makedirs(work)
    settings = {**ENVIRON, "CLAUDE_CONFIG_DIR": config}
    return ["env", "-C", work, *(f"{name}={value}" for name, value in settings.items())]


CLI = CodingAgentCli(
    command="claude",
    who="claude-code",
    product="Claude Code",
    npm="@anthropic-ai/claude-code",
    adapter="ClaudeCodeAdapter",
)


class ClaudeCodeAdapter(TurnLimitedAdapter):
    """Runs ``claude -p`` on the session's task, in a network namespace with only the harness's
    loopback address (``isolate_network``, the default), tool names mapped on the wire
    (``mcp__unsolvable__<tool>`` to the agent, ``<tool>`` to the scenario).

    ``max_turns``: ``None`` keeps its default (no limit), ``"budget"`` takes the scenario's
    ``max_steps``; ``model``: passed as ``--model`` (default: its own); the other options are
    `CodingAgentAdapter`'s.
    """

    cli = CLI
    tool_prefix = f"mcp__{SERVER}__"

    def run(self, session: Session) -> ProcessExit:
        executable = self.cli.find(self.executable)
        line = command(executable, self.turn_limit(session), self.args, model=self.model)
        with tempfile.TemporaryDirectory(prefix="unsolvable-claude-") as folder:
            process = self.process([*_env_prefix(folder), *line])
            try:
                ended = process.run(session)
            except ProcessExited as error:  # a limit reached exits 1, its result on stdout
                if error.ended is None:
                    raise
                if _result(error.ended) is None:
                    raise self.unaccounted(error.ended) from None
                ended = error.ended
        result = _result(ended) or {}
        subtype = result.get("subtype")
        if subtype not in STOP_SUBTYPES and (subtype != "success" or result.get("is_error")):
            said = result.get("result") or result.get("errors")
            raise ProcessExited(f"claude-code ended with {_ending(result)}: {said!s:.200}", ended)
        return ended

    def interpret(self, returned: object, error: BaseException | None) -> Stop | None:
        if error is not None or not isinstance(returned, ProcessExit):
            return None
        result = _result(returned)
        if result is None:
            return None
        subtype = str(result.get("subtype"))
        turns = result.get("num_turns")
        if subtype in STOP_SUBTYPES:
            reason = f"claude-code: {subtype} after {turns} turns"
            return Stop(code=STOP_SUBTYPES[subtype], reason=reason, partial={"num_turns": turns})
        said = str(result.get("result") or "")
        return Stop(code=Code.COMPLETED, reason=f"final result: {said:.160}")


def _ending(result: dict[str, object]) -> str:
    """How an error result ended: the API's status where the model API refused the run (Claude
    Code then reports the subtype ``success`` with ``is_error``), else its subtype."""
    status = result.get("api_error_status")
    if status is not None:
        return f"API error {status}"
    subtype = result.get("subtype")
    return "an error" if subtype == "success" else str(subtype)


def _result(ended: ProcessExit) -> dict[str, object] | None:
    """The JSON result Claude Code prints as its last stdout line (`ProcessExit.last_line`,
    kept whole): the result object, or with ``--verbose`` the array of every message, the result
    last. Read by its ``type``, not by where that key stands: 2.1.197 writes it first, 2.1.332
    near the end, and a result longer than the stdout tail kept is read all the same."""
    try:
        data = json.loads(ended.last_line) if ended.last_line.strip() else None
    except (ValueError, RecursionError):
        return None
    items = data if isinstance(data, list) else [data]
    last = next((item for item in reversed(items) if isinstance(item, dict)), None)
    return last if last is not None and last.get("type") == "result" else None


adapter = ClaudeCodeAdapter(max_turns=BUDGET)
"""``--agent claude-code``: ``--max-turns`` from the scenario's budget."""
