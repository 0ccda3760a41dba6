"""Consumes the OpenAI Codex CLI (npm ``@openai/codex``), produces a run of it in its own process —
headless (``codex exec --json``), on the fake Responses wire through a custom model provider, its
tools over the harness's MCP server — and the `Stop` read from its JSON events.

Its stops, read into the vocabulary: a final answer (``turn.completed`` after an
``agent_message``) → ``complete``, a claim the verdict checks; ``turn.failed`` or an ``error``
event (an API error it gave up on) → ``crashed`` with its message. ``codex exec`` has no turn
limit and no budget of its own: a stuck Codex runs until the harness's ceiling ends it, which is
recorded as what it is, ``did_not_stop``.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from unsolvable._stop import Code, Stop
from unsolvable.adapters._coding_agent import CodingAgentAdapter, CodingAgentCli
from unsolvable.adapters.process import ProcessExit

if TYPE_CHECKING:
    from unsolvable._session import Session

__all__ = ["FEATURES_OFF", "CodexAdapter", "adapter", "command", "config"]

SERVER = "unsolvable"
"""The MCP server's (and the model provider's) name in the config the harness writes."""
MODEL = "unsolvable"
"""The model slug Codex is told: one it has no built-in entry for, so it takes its fallback model
family, which offers the MCP tools as a Responses ``namespace`` tool. Families that use tool
search (``gpt-5.5``, its default in 0.171) defer them behind a ``tool_search`` tool instead, and a
scripted model never calls that: 0 tool calls reach the harness (measured)."""
FEATURES_OFF = (
    "apps",
    "plugins",
    "remote_plugin",
    "tool_suggest",
    "skill_search",
    "goals",
    "image_generation",
    "shell_snapshot",
    "daemon_auto_start",
    "in_app_updates",
)
"""Background work and tools a scripted run has no use for: app and plugin catalogs and
suggestions fetched from OpenAI's hosts, goals, a login-shell snapshot, the daemon
and update checks (measured on 0.171; ``codex features list``)."""


def config(model: str = MODEL) -> str:
    """``config.toml``: a custom provider on the Responses wire (``wire_api="responses"``; Codex
    rejects ``"chat"``) whose key is the fake one, no approval prompts, no web search, no analytics,
    no update check, `FEATURES_OFF` off. The addresses, and so the MCP server, are set on the
    command line (`command`), as only the run knows them."""
    lines = [
        f"model = {json.dumps(model)}",
        f'model_provider = "{SERVER}"',
        'approval_policy = "never"',
        'sandbox_mode = "read-only"',
        'web_search = "disabled"',
        "check_for_update_on_startup = false",
        "[analytics]",
        "enabled = false",
        "[agents]",  # no sub-agent tools (``features.multi_agent`` is deprecated for this)
        "enabled = false",
        "[features]",
        *(f"{feature} = false" for feature in FEATURES_OFF),
        f"[model_providers.{SERVER}]",
        f'name = "{SERVER}"',
        'env_key = "OPENAI_API_KEY"',
        'wire_api = "responses"',
    ]
    return "\n".join(lines) + "\n"


def command(executable: str, extra: Sequence[str] = ()) -> list[str]:
    """The headless command line: the wire's address and the harness's MCP server
    (``{placeholders}`` the process adapter fills in), required (a run never starts without its
    tools) with every tool approved; its events as JSON lines, no unknown config key accepted, no
    session files kept, the task as the prompt."""
    line = [executable, "exec", "--json", "--skip-git-repo-check", "--ephemeral"]
    line += ["--strict-config", "--color", "never"]
    line += ["-c", f'model_providers.{SERVER}.base_url="{{openai_base_url}}"']
    mcp = 'url="{mcp_url}", required=true, default_tools_approval_mode="approve"'
    line += ["-c", f"mcp_servers.{SERVER}={{{{{mcp}}}}}"]
    return [*line, *extra, "{task}"]


CLI = CodingAgentCli(
    command="codex", who="codex", product="Codex", npm="@openai/codex", adapter="CodexAdapter"
)


class CodexAdapter(CodingAgentAdapter):
    """Runs ``codex exec`` on the session's task, in a network namespace with only the harness's
    loopback address (``isolate_network``, the default), in a fresh ``CODEX_HOME`` (no user
    config, login or history) and an empty working directory, tool names mapped on the wire
    (the namespace ``mcp__unsolvable`` to the agent, ``<tool>`` to the scenario).

    ``model``: the slug Codex is told (default `MODEL`); ``args``: more flags for ``codex exec``
    (``-c key=value`` overrides); the other options are `CodingAgentAdapter`'s.
    """

    cli = CLI
    tool_prefix = f"mcp__{SERVER}__"

    def run(self, session: Session) -> ProcessExit:
        executable = self.cli.find(self.executable)
        with tempfile.TemporaryDirectory(prefix="unsolvable-codex-") as folder:
            home, work = os.path.join(folder, "home"), os.path.join(folder, "work")
            os.makedirs(home)
            os.makedirs(work)
            with open(os.path.join(home, "config.toml"), "w", encoding="utf-8") as file:
                file.write(config(self.model or MODEL))
            line = ["env", "-C", work, f"CODEX_HOME={home}", *command(executable, self.args)]
            return self.run_reading(session, line, lambda ended: _failure(_events(ended)))

    def interpret(self, returned: object, error: BaseException | None) -> Stop | None:
        if error is not None or not isinstance(returned, ProcessExit):
            return None
        said = _last_message(_events(returned))
        return Stop(code=Code.COMPLETED, reason=f"final answer: {said:.160}")


def _events(ended: ProcessExit) -> list[Mapping[str, object]]:
    """The JSON event lines of ``codex exec --json`` in the stdout tail kept (`OUTPUT_KEPT`)."""
    events: list[Mapping[str, object]] = []
    for line in ended.stdout.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and "type" in event:
            events.append(event)
    return events


def _failure(events: Sequence[Mapping[str, object]]) -> str | None:
    """What a ``turn.failed`` or ``error`` event says; ``None`` when the turn completed."""
    for event in reversed(events):
        kind = event.get("type")
        if kind == "turn.completed":
            return None
        if kind in {"turn.failed", "error"}:
            error = event.get("error")
            said = error.get("message") if isinstance(error, dict) else event.get("message")
            return f"{kind}: {said}"
    return None


def _last_message(events: Sequence[Mapping[str, object]]) -> str:
    for event in reversed(events):
        item = event.get("item")
        if event.get("type") != "item.completed" or not isinstance(item, dict):
            continue
        if item.get("type") == "agent_message":
            return str(item.get("text") or "")
    return ""


adapter = CodexAdapter()
"""``--agent codex``: Codex's own defaults; it has no turn limit to set from the budget."""
