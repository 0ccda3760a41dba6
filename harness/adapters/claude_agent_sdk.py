"""Consumes a claude-agent-sdk ``query()`` (the Claude Code CLI it bundles, driven from Python),
produces a run on a session — the model on the fake Anthropic wire, the tools as in-process SDK MCP
tools — and the `Stop` read from its `ResultMessage`.

The SDK's stops, read into the vocabulary (``ResultMessage.subtype``):

- ``error_max_turns`` (``max_turns``; by default there is none) → ``exhausted``/``BUDGET_STEPS``;
- ``error_max_budget_usd`` (``max_budget_usd``) → ``exhausted``/``BUDGET_COST``;
- ``error_during_execution``, or an API error the CLI gave up on → ``crashed``, with its message;
- A run its permission callback (``can_use_tool``) stopped with a ``PermissionResultDeny`` of
  ``interrupt=True`` (the CLI tells the model to wait for the user, and ends
  ``error_during_execution``) → ``abandoned``/``NEEDS_HUMAN``, naming the tool and the
  callback's message, not ``crashed``. With a callback, the scenario's tools are left to it, not
  pre-approved: ``allowed_tools`` would shadow it, where production's tools meet it.
- ``success`` → ``complete``/``COMPLETED`` as the agent's claim (checked against the world), or the
  `Stop` its ``structured_output`` carries.

``query()`` yields the `ResultMessage` and *then* raises ``ResultError`` for the two limits: the
adapter keeps the message and reads it, as a caller who catches ``ResultError`` does.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

from unsolvable._errors import AdapterError
from unsolvable._session import Session
from unsolvable._stop import Code, Stop
from unsolvable._types import JSON, ToolSpec
from unsolvable.adapters._coding_agent import CODING_AGENT_WALL_SECONDS
from unsolvable.adapters.base import interpret_plain
from unsolvable.adapters.kit import (
    BUDGET,
    Budgeted,
    ToolCaller,
    as_mapping,
    bind_tool,
    is_step_limit,
    missing_extra,
    partial_from_messages,
    shielded,
    text_of,
)
from unsolvable.wire import FAKE_API_KEY, Wire

try:
    import claude_agent_sdk
    from claude_agent_sdk import (
        AssistantMessage,
        CanUseTool,
        ClaudeAgentOptions,
        McpSdkServerConfig,
        Message,
        PermissionResultAllow,
        PermissionResultDeny,
        ResultError,
        ResultMessage,
        SdkMcpTool,
        TextBlock,
        ToolPermissionContext,
        ToolResultBlock,
        ToolUseBlock,
        UserMessage,
        create_sdk_mcp_server,
        query,
        tool,
    )
except ModuleNotFoundError as error:  # pragma: no cover - only without the extra
    raise ImportError(missing_extra("claude-agent-sdk", "claude-agent-sdk")) from error

__all__ = [
    "CODING_AGENT_WALL_SECONDS",
    "SERVER",
    "ClaudeAgentSDKAdapter",
    "ClaudeRun",
    "adapter",
    "session_server",
    "wire_environ",
]

SERVER = "unsolvable"
"""The SDK MCP server holding the scenario's tools; Claude Code names them
``mcp__unsolvable__<tool>`` in permissions, and (with the prefix turned off) ``<tool>`` on the
wire."""
Limit = TypeVar("Limit", int, float)
STOP_SUBTYPES = {"error_max_turns": Code.BUDGET_STEPS, "error_max_budget_usd": Code.BUDGET_COST}
"""The result subtypes that are a limit reached, and the code each is read as."""
ENVIRON = {
    # SDK MCP tools keep their own names on the wire, as a user's tools would in the model's
    # eyes; with the prefix, a script's call to `search_invoices` would name no tool.
    "CLAUDE_AGENT_SDK_MCP_NO_PREFIX": "1",
    # Tool search would hide the tools behind a search tool the scripted model never calls.
    "ENABLE_TOOL_SEARCH": "false",
    # No title call (one more step), no telemetry or update checks to real hosts.
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    # Wait for the MCP servers before the first turn, or a run can start without the tools.
    "MCP_CONNECTION_NONBLOCKING": "0",
}
"""What the CLI needs to run on the fake, measured on claude-agent-sdk 0.2.x."""


def wire_environ(base_url: str, config_dir: str) -> dict[str, str]:
    """The CLI's environment for one run: the fake Anthropic wire at ``base_url`` with a fake
    key (no login), a fresh config folder (no user settings, hooks or credentials), `ENVIRON`."""
    return {
        **ENVIRON,
        "ANTHROPIC_BASE_URL": base_url,
        "ANTHROPIC_API_KEY": FAKE_API_KEY,
        "CLAUDE_CONFIG_DIR": config_dir,
    }


def _sdk_tool(spec: ToolSpec, call: ToolCaller) -> SdkMcpTool[Any]:
    """A scenario tool as an in-process SDK MCP tool. What the tool raises goes to the SDK, whose
    default turns an exception into an ``isError`` result the model reads, as for a user's own
    tool; the harness's ceilings (`BaseException`) pass through."""

    async def handler(arguments: dict[str, Any]) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": call(**arguments)}]}

    return tool(spec.name, spec.description, dict(spec.parameters))(handler)


def session_server(session: Session) -> McpSdkServerConfig:
    """The scenario's tools as the SDK MCP server `SERVER`, each calling ``session.call_tool``."""
    tools = [_sdk_tool(spec, bind_tool(session, spec.name)) for spec in session.tools]
    return create_sdk_mcp_server(SERVER, tools=tools)


@dataclass(kw_only=True)
class ClaudeRun:
    """What one ``query()`` yielded, and the `ResultMessage` that ended it."""

    messages: list[Message] = field(default_factory=list)
    interrupted: str | None = None
    """The tool, and the message, at which the permission callback stopped the run for a
    person."""

    @property
    def result(self) -> ResultMessage | None:
        return next((m for m in reversed(self.messages) if isinstance(m, ResultMessage)), None)


def _bundled_cli() -> str:
    """The CLI ``query()`` would start: the one bundled with the SDK, else ``claude`` on PATH."""
    bundled = Path(claude_agent_sdk.__file__).parent / "_bundled" / "claude"
    found = str(bundled) if bundled.is_file() else shutil.which("claude")
    if found is None:
        raise AdapterError(
            "claude-agent-sdk: no Claude Code CLI found (neither bundled with the SDK nor "
            "`claude` on PATH); reinstall claude-agent-sdk for your platform, or pass "
            "ClaudeAgentOptions(cli_path=...)"
        )
    return found


class ClaudeAgentSDKAdapter:
    """Runs ``claude_agent_sdk.query()`` on the session's task, on the fake Anthropic wire.

    ``options`` is the user's `ClaudeAgentOptions` (what production runs with); the adapter adds
    the scenario's tools as the SDK MCP server `SERVER` (allowed by their prefixed names), the
    fake wire's environment (`wire_environ`), a private working and config folder unless
    ``options`` names its own ``cwd``, and the launcher (``cli_path``) that runs the CLI in a
    process group of its own and, with ``isolate_network`` (the default on Linux), in a network
    namespace where only the harness's loopback address answers. ``max_turns`` and
    ``max_budget_usd``: ``None`` keeps the options' value (the SDK sets no limit), ``"budget"``
    takes the scenario's ``max_steps`` or ``max_cost_usd``.
    """

    wall_seconds = CODING_AGENT_WALL_SECONDS
    """The wall ceiling this adapter's runs get unless one is set (`CODING_AGENT_WALL_SECONDS`)."""

    def __init__(
        self,
        options: ClaudeAgentOptions | None = None,
        *,
        max_turns: int | Budgeted | None = None,
        max_budget_usd: float | Budgeted | None = None,
        isolate_network: bool | None = None,
        name: str = "claude-agent-sdk",
    ) -> None:
        options = options or ClaudeAgentOptions()
        if not isinstance(options, ClaudeAgentOptions):
            raise AdapterError(
                f"ClaudeAgentSDKAdapter(options={options!r}): pass a "
                "claude_agent_sdk.ClaudeAgentOptions"
            )
        if not isinstance(options.mcp_servers, Mapping):
            raise AdapterError(
                f"ClaudeAgentSDKAdapter: options.mcp_servers is {options.mcp_servers!r}, a path; "
                "pass the servers as a dict so the scenario's tools can be added beside them"
            )
        _check_limits(max_turns, max_budget_usd)
        self.options, self.max_turns, self.max_budget_usd = options, max_turns, max_budget_usd
        self.isolate_network = (
            sys.platform == "linux" if isolate_network is None else isolate_network
        )
        self.name = name

    def run(self, session: Session) -> ClaudeRun:
        from unsolvable.adapters._launcher import launcher

        wire = Wire(session)
        server = wire.serve()
        outcome = ClaudeRun()
        try:
            port = urlsplit(server.base_url).port or 0
            cli = str(self.options.cli_path or _bundled_cli())
            with launcher([cli], port=port, isolate_network=self.isolate_network) as launch:
                folder = launch.folder
                options = self._options(session, server.anthropic_base_url, folder, outcome)
                options = dataclasses.replace(options, cli_path=launch.path)
                try:
                    asyncio.run(_query(session.task, options, outcome))
                finally:
                    shielded(launch.end)
        finally:
            shielded(server.stop)
            shielded(wire.close)
        wire.check()
        return outcome

    def _options(
        self, session: Session, base_url: str, folder: str, outcome: ClaudeRun
    ) -> ClaudeAgentOptions:
        """The options the run gets. The scenario's tools are pre-approved unless a permission
        callback gates them, as it gates production's tools."""
        base = self.options
        config, work = os.path.join(folder, "config"), os.path.join(folder, "work")
        os.makedirs(config)
        os.makedirs(work)
        allowed = [f"mcp__{SERVER}__{spec.name}" for spec in session.tools]
        gate = base.can_use_tool
        return dataclasses.replace(
            base,
            env={**base.env, **wire_environ(base_url, config)},
            mcp_servers={**base.mcp_servers, SERVER: session_server(session)},  # type: ignore[dict-item]
            allowed_tools=[*base.allowed_tools, *(allowed if gate is None else ())],
            can_use_tool=None if gate is None else _noting(gate, outcome),
            cwd=base.cwd or work,
            max_turns=_limit(self.max_turns, session.budget.max_steps, base.max_turns),
            max_budget_usd=_limit(
                self.max_budget_usd, session.budget.max_cost_usd, base.max_budget_usd
            ),
            stderr=base.stderr or _to_stderr,
        )

    def interpret(self, returned: object, error: BaseException | None) -> Stop | None:
        if error is not None or not isinstance(returned, ClaudeRun) or returned.result is None:
            return None
        result = returned.result
        partial = partial_from_messages(_chat_messages(returned.messages))
        if returned.interrupted is not None:
            asked = returned.interrupted
            reason = f"claude-agent-sdk: can_use_tool stopped the run for a person at {asked}"
            return Stop(code=Code.NEEDS_HUMAN, reason=reason, partial=partial)
        code = STOP_SUBTYPES.get(result.subtype)
        if code is not None:
            reason = f"claude-agent-sdk: {result.subtype} after {result.num_turns} turns"
            return Stop(code=code, reason=reason, partial=partial)
        stop = interpret_plain(as_mapping(result.structured_output))
        if stop is not None:
            return stop
        reason = f"final result: {result.result or ''!s:.160}"
        return Stop(code=Code.COMPLETED, reason=reason, partial=partial)


def _check_limits(max_turns: object, max_budget_usd: object) -> None:
    """Refuses a limit that is not one before any run: for ``max_turns=0`` the SDK passes no
    ``--max-turns`` at all (no limit), and anything else the SDK hands the CLI as it is."""
    if not is_step_limit(max_turns):
        raise AdapterError(
            f"ClaudeAgentSDKAdapter(max_turns={max_turns!r}): use a positive int, 'budget' "
            "(the scenario's max_steps) or None (the options' own; the SDK sets no limit)"
        )
    if max_budget_usd not in (None, BUDGET) and not _is_dollars(max_budget_usd):
        raise AdapterError(
            f"ClaudeAgentSDKAdapter(max_budget_usd={max_budget_usd!r}): use a positive number "
            "of dollars, 'budget' (the scenario's max_cost_usd) or None (the options' own)"
        )


def _is_dollars(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 0


def _limit(
    asked: Limit | Budgeted | None, budget: Limit | None, kept: Limit | None
) -> Limit | None:
    """A limit: the options' own (``None``), the scenario's (``"budget"``), or as given."""
    if asked is None:
        return kept
    if asked == BUDGET:
        return budget
    return asked


def _noting(callback: CanUseTool, outcome: ClaudeRun) -> CanUseTool:
    """The permission callback, noting in ``outcome`` a denial that stops the run for a person:
    the CLI then ends it with an error, which says nothing of why."""

    async def can_use_tool(
        name: str, arguments: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResultAllow | PermissionResultDeny:
        result = await callback(name, arguments, context)
        if isinstance(result, PermissionResultDeny) and result.interrupt:
            outcome.interrupted = f"{name}: {result.message}"
        return result

    return can_use_tool


def _to_stderr(line: str) -> None:
    """The CLI's stderr, onto the harness's: a worker keeps it in a failing record's output."""
    sys.stderr.write(line + "\n")


async def _query(prompt: str, options: ClaudeAgentOptions, outcome: ClaudeRun) -> None:
    """Runs ``query()`` to its end, keeping every message. The ``ResultError`` it raises after a
    limit's `ResultMessage` is that message again, and the one after a stop for a person is
    that stop; any other error is the run's."""
    try:
        async for message in query(prompt=prompt, options=options):
            outcome.messages.append(message)
    except ResultError as error:
        if outcome.interrupted is not None:
            return
        result = outcome.result
        if result is None or error.subtype not in STOP_SUBTYPES or result.subtype != error.subtype:
            raise


def _chat_messages(messages: list[Message]) -> list[JSON]:
    """The run's conversation as Chat Completions messages, for `partial_from_messages`."""
    chat: list[JSON] = []
    for message in messages:
        if isinstance(message, AssistantMessage):
            text = "".join(b.text for b in message.content if isinstance(b, TextBlock))
            calls = [{"name": b.name} for b in message.content if isinstance(b, ToolUseBlock)]
            chat.append({"role": "assistant", "content": text, "tool_calls": calls})
        elif isinstance(message, UserMessage) and not isinstance(message.content, str):
            for block in message.content:
                if isinstance(block, ToolResultBlock):
                    chat.append({"role": "tool", "content": text_of(block.content)})
    return chat


adapter = ClaudeAgentSDKAdapter(max_turns=BUDGET)
"""``--agent claude-agent-sdk``: the SDK with ``max_turns`` set from the scenario's budget, the
way a production caller bounds a run; ``ClaudeAgentSDKAdapter()`` keeps the SDK's default (no
limit)."""
