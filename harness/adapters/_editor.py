"""Consumes an Agent Client Protocol agent's process (its stdin and stdout), produces the editor's
side of one prompt turn: ``initialize``, ``session/new`` with the scenario's tools as an MCP
server, ``session/prompt`` with the task, the agent's permission requests answered from the
scenario, ``session/cancel`` at a harness ceiling, and how the turn ended (`Turn`).

Imports `acp` (the ``agent-client-protocol`` SDK); `unsolvable.adapters.acp` imports this
module only inside a run.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from acp import PROTOCOL_VERSION, RequestPermissionResponse
from acp.client.router import build_client_router
from acp.connection import Connection
from acp.exceptions import RequestError
from acp.interfaces import Client
from acp.meta import AGENT_METHODS, CLIENT_METHODS
from acp.router import MessageRouter, Route
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    EnvVariable,
    HttpMcpServer,
    Implementation,
    InitializeRequest,
    McpServerStdio,
    NewSessionRequest,
    PermissionOption,
    PromptRequest,
    SessionNotification,
    TextContentBlock,
    ToolCall,
    ToolCallUpdate,
)
from acp.utils import serialize_params
from pydantic import ValidationError

from unsolvable._session import specs_of
from unsolvable._types import ToolSpec
from unsolvable.adapters._loop import EXIT_SECONDS, Child, Stop, waited
from unsolvable.adapters.process import described_status

if TYPE_CHECKING:
    from unsolvable._session import Session

__all__ = ["AcpError", "Refusal", "Tools", "Turn", "Unoffered", "converse"]

CANCEL_SECONDS = 5.0
"""How long the agent gets to answer ``session/cancel`` with its ``cancelled`` stop reason
before its process group is killed. An agent that honours the cancel answers at once; this covers
one that a loaded machine schedules late. It never holds a run up: in a worker process the
watchdog's grace sends the record first (`unsolvable._run`), and the kill comes after."""
CLIENT = Implementation(name="pytest-unsolvable", version="1")
GRANT = ("allow_once", "allow_always")
REFUSE = ("reject_once", "reject_always")
"""Option kinds, in the order an editor's user picks them: once, where the agent offers it, so
every call is asked about again."""
UNOFFERED = tuple(method for key, method in CLIENT_METHODS.items() if key.startswith("terminal_"))
"""The terminal methods, which the editor does not offer (its `ClientCapabilities`): the SDK
answers them with an empty result unless told they are not there, a success no editor without a
terminal sends."""


@dataclass(frozen=True, kw_only=True)
class Refusal:
    """A permission the editor refused: the tool the agent asked to run, and what it lacks."""

    tool: str
    permission: str


@dataclass(frozen=True, kw_only=True)
class Unoffered:
    """A permission request the editor could answer only by cancelling the turn: the agent
    offered no option of the kind the editor meant to pick (``meant``: allow or reject)."""

    tool: str
    meant: str
    permission: str | None = None
    """What the run lacks, when the editor meant to refuse a scenario tool."""


@dataclass(frozen=True, kw_only=True)
class Turn:
    """How one prompt turn ended, as the editor saw it."""

    stop_reason: str | None
    """The agent's ``stopReason`` as sent (``_``-prefixed extension values included);
    ``None`` when the turn was cut short (a ceiling) before it answered."""
    said: str = ""
    """The agent's last message of the turn (its ``agent_message_chunk`` text)."""
    refused: Refusal | None = None
    """The refused permission, when a refusal was the last thing of the turn: no message and no
    tool call came after it."""
    unoffered: Unoffered | None = None
    """The permission request at which the editor cancelled the turn (`Unoffered`)."""
    stderr: str = ""
    """The end of the agent's stderr."""


@dataclass(kw_only=True)
class _Editor:
    """The editor the agent talks to (an `acp.interfaces.Client`): it answers each permission
    request from the scenario and keeps what the turn shows."""

    session: Session
    prefixes: tuple[str, ...]
    chunks: list[str] = field(default_factory=list)
    """The agent's message since its last tool call, as its chunks came: joined once, when the
    turn has ended (`said`), since joining at every chunk made a flood of them quadratic."""
    announced: dict[str, ToolCall] = field(default_factory=dict)
    """The tool calls the agent announced (``tool_call`` updates), by id."""
    refused: Refusal | None = None
    unread: set[str] = field(default_factory=set)
    """The kinds of update the agent sent that the editor could not read, each told once."""
    cancelled: bool = False
    """Whether the editor has sent ``session/cancel``: from then on every permission the agent
    asks for is answered with the ``cancelled`` outcome, as ACP requires of an editor."""
    send_cancel: Callable[[], Awaitable[None]] | None = None
    """Sends ``session/cancel`` for the turn under way; ``None`` until the turn is asked for."""
    unoffered: Unoffered | None = None
    """The request at which the editor cancelled the turn, having no option of its answer."""

    async def request_permission(
        self,
        options: list[PermissionOption],
        session_id: str,
        tool_call: ToolCallUpdate,
        **kwargs: Any,
    ) -> RequestPermissionResponse:
        """Refuses a call to a tool whose permission the run lacks (`ToolSpec.denied_permission`)
        and grants every other scenario tool. A refused call is still made through the session,
        which records it as the refused call it is (its 403 in the trajectory, the ground truth
        of the first stagnant step); an agent's own built-in tool, which no scenario has, is
        refused without being recorded. In a cancelled turn each is answered ``cancelled``; a
        request that offers no option of the answer is answered so too, the turn cancelled
        (`_pick`)."""
        if self.cancelled:
            return _cancelled()
        called = self._called(tool_call)
        if called is None:
            unknown = Unoffered(tool=tool_call.title or tool_call.tool_call_id, meant="reject")
            return await self._pick(options, REFUSE, unknown)
        spec, arguments = called
        if spec.denied_permission is None:
            self.refused = None
            return await self._pick(options, GRANT, Unoffered(tool=spec.name, meant="allow"))
        with contextlib.suppress(Exception):  # a raising denied tool: refused all the same
            await asyncio.to_thread(self.session.call_tool, spec.name, arguments)
        self.refused = Refusal(tool=spec.name, permission=str(spec.denied_permission))
        meant = Unoffered(tool=spec.name, meant="reject", permission=self.refused.permission)
        return await self._pick(options, REFUSE, meant)

    async def _pick(
        self, options: Sequence[PermissionOption], kinds: Sequence[str], meant: Unoffered
    ) -> RequestPermissionResponse:
        """The first option of the first of ``kinds`` offered. Where none is, the editor cancels
        the turn and answers ``cancelled``: in ACP that outcome says the turn was cancelled, and
        it is the only answer left that is not an option the editor did not mean."""
        if not self.cancelled:
            for kind in kinds:
                for option in options:
                    if option.kind == kind:
                        outcome = AllowedOutcome(outcome="selected", option_id=option.option_id)
                        return RequestPermissionResponse(outcome=outcome)
            self.unoffered = meant
            await self.cancel()
        return _cancelled()

    async def cancel(self) -> None:
        """Cancels the turn under way (``session/cancel``), once: from then on every permission
        is answered ``cancelled``."""
        if self.cancelled or self.send_cancel is None:
            return
        self.cancelled = True
        await self.send_cancel()

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        kind = getattr(update, "session_update", None)
        if kind == "agent_message_chunk":
            self.chunks.append(str(getattr(update.content, "text", "")))
            self.refused = None
        elif kind == "tool_call":
            self.chunks, self.refused = [], None
            self.announced[update.tool_call_id] = update

    async def heard(self, params: Any) -> None:
        """A ``session/update`` notification, read (`session_update`) or, one the SDK's schema
        does not read (a kind newer than it, or malformed), ignored as ACP lets an editor ignore
        an update: said once per kind in a line on stderr, never a traceback per update."""
        try:
            notification = SessionNotification.model_validate(params)
        except ValidationError as error:
            kind = _kind_of(params)
            if kind not in self.unread:
                self.unread.add(kind)
                sys.stderr.write(
                    f"unsolvable: the ACP agent sent a session/update of kind {kind!r}, which "
                    f"the editor cannot read ({error.errors()[0]['msg']:.200}); it and each "
                    "later one of its kind are ignored\n"
                )
            return
        await self.session_update(notification.session_id, notification.update)

    @property
    def said(self) -> str:
        """The agent's message since its last tool call."""
        return "".join(self.chunks)

    def _called(self, request: ToolCallUpdate) -> tuple[ToolSpec, dict[str, Any]] | None:
        """The scenario tool a permission request is about, and its arguments: read from the
        request, or from the tool call it names (Codex asks "Approve MCP tool call" and names
        the tool in the call it announced); ``None`` for a tool no scenario has."""
        specs = {spec.name: spec for spec in specs_of(self.session)}
        for call in (request, self.announced.get(request.tool_call_id)):
            raw = call.raw_input if call is not None and isinstance(call.raw_input, dict) else {}
            given = raw.get("arguments")
            arguments = given if isinstance(given, dict) else raw or _shown(call)
            for name in _names(call.title or "" if call is not None else "", raw, self.prefixes):
                if name in specs:
                    return specs[name], dict(arguments)
        return None


def _kind_of(params: Any) -> str:
    """The ``sessionUpdate`` kind a notification's parameters name, as sent."""
    update = params.get("update") if isinstance(params, Mapping) else None
    return str(update.get("sessionUpdate") if isinstance(update, Mapping) else update)


def _names(title: str, raw: Mapping[str, Any], prefixes: Sequence[str]) -> list[str]:
    """The names a tool call may go by: its title as it is, without an MCP prefix, its
    last word (``Tool: unsolvable/search``), its first (Gemini CLI's ``search (unsolvable MCP
    Server)``), and the ``tool`` or ``name`` of its input."""
    words = re.split(r"[\s/.:]", title)
    return [
        title,
        *(title.removeprefix(prefix) for prefix in prefixes),
        words[-1],
        words[0],
        str(raw.get("tool")),
        str(raw.get("name")),
    ]


def _shown(call: ToolCallUpdate | ToolCall | None) -> dict[str, Any]:
    """The arguments an agent shows as the text of the call's content, when it sends no
    ``rawInput`` (Gemini CLI shows them as JSON); empty when it shows none."""
    for block in (call.content or ()) if call is not None else ():
        text = getattr(getattr(block, "content", None), "text", None)
        if isinstance(text, str):
            with contextlib.suppress(ValueError):
                shown = json.loads(text)
                if isinstance(shown, dict):
                    return shown
    return {}


def _cancelled() -> RequestPermissionResponse:
    """The answer to a permission asked in a cancelled turn."""
    return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))


@dataclass(frozen=True, kw_only=True)
class Tools:
    """Where the agent finds the scenario's tools: the MCP server over HTTP, and the command
    that starts it over stdio (for agents without HTTP MCP, which every ACP agent supports)."""

    url: str
    command: Sequence[str]
    environ: Mapping[str, str]


async def converse(
    session: Session,
    argv: Sequence[str],
    *,
    environ: Mapping[str, str],
    cwd: str,
    tools: Tools,
    prefixes: tuple[str, ...],
    stop: Stop,
) -> Turn:
    """Runs the agent ``argv`` (`Child`) through one prompt turn on the session's task, in the
    workspace ``cwd`` (an empty folder), until it answers or the run must ``stop``; its process
    group is killed on the way out, whatever happened."""
    child = await Child.start(argv, environ)
    assert child.process.stdin is not None and child.process.stdout is not None
    editor = _Editor(session=session, prefixes=prefixes)
    connection = Connection(_router(editor), child.process.stdin, child.process.stdout)
    try:
        reason = await _turn(connection, editor, session.task, cwd, tools, stop)
    except Exception as error:
        what = await _hung_up(child, error) if isinstance(error, _HungUp) else _described(error)
        said = await _end(child, connection)
        raise AcpError(f"{what}; its stderr ends: {_last_line(said)}", said) from error
    said = await _end(child, connection)
    return Turn(
        stop_reason=reason,
        said=editor.said,
        refused=editor.refused,
        unoffered=editor.unoffered,
        stderr=said,
    )


def _router(editor: _Editor) -> MessageRouter:
    """The SDK's router of the editor's methods, the ones it does not offer answered "method
    not found" (`UNOFFERED`), as ``fs/*`` are, and its updates read by `_Editor.heard`."""
    router = build_client_router(cast(Client, editor))
    for method in UNOFFERED:
        router.add_route(Route(method=method, func=None, kind="request"))
    updates = CLIENT_METHODS["session_update"]
    router.add_route(Route(method=updates, func=editor.heard, kind="notification"))
    return router


async def _end(child: Child, connection: Connection) -> str:
    """Ends the agent's process group, then the connection; the agent's stderr tail."""
    said = await child.end()
    with contextlib.suppress(Exception):
        await connection.close()
    return said


class AcpError(Exception):
    """The agent broke off the turn: it answered a request with an error, or its process
    ended. Carries the end of its stderr (``stderr``)."""

    def __init__(self, message: str, stderr: str) -> None:
        super().__init__(message)
        self.stderr = stderr


class _HungUp(Exception):
    """The agent's connection ended (its stdout closed) before it answered ``method``."""

    def __init__(self, method: str) -> None:
        super().__init__(method)
        self.method = method


async def _hung_up(child: Child, error: _HungUp) -> str:
    """What ended the connection, in words: the agent's exit, with its status, or its stdout
    closed while it ran on."""
    status = await child.status_within(EXIT_SECONDS)
    how = "closed its stdout" if status is None else described_status(status)
    return f"it {how} before it answered {error.method}, ending the ACP connection"


async def _request(connection: Connection, method: str, request: Any) -> Any:
    """The agent's answer to ``request``; `_HungUp` when its connection ends first, `_Broken`
    naming the request when the agent answers it with an error."""
    try:
        return await connection.send_request(method, serialize_params(request))
    except ConnectionError as error:
        raise _HungUp(method) from error
    except RequestError as error:
        data = f" ({error.data})" if error.data else ""
        said = f"it answered {method} with error {error.code} {str(error)!r}{data}"
        raise _Broken(said) from error


class _Broken(Exception):
    """The turn broke off, in the editor's words: an error answer, or a protocol version the
    editor does not speak."""


def _described(error: Exception) -> str:
    """How the turn broke off: the editor's words (`_Broken`), or what the editor raised."""
    return str(error) if isinstance(error, _Broken) else repr(error)


def _last_line(text: str) -> str:
    return (text.strip().splitlines() or ["(nothing)"])[-1]


async def _turn(
    connection: Connection, editor: _Editor, task: str, cwd: str, tools: Tools, stop: Stop
) -> str | None:
    """The handshake and the prompt turn: the stop reason (``None`` when a ceiling cut the
    turn before the agent answered its cancel). A ceiling during the handshake ends it with no
    turn to cancel."""
    hello = InitializeRequest(
        protocol_version=PROTOCOL_VERSION,
        client_capabilities=ClientCapabilities(),
        client_info=CLIENT,
    )
    agent = await _answer(connection, AGENT_METHODS["initialize"], hello, stop)
    if agent is None:
        return None
    if agent.get("protocolVersion") != PROTOCOL_VERSION:  # ACP: the editor then disconnects
        raise _Broken(
            f"it answered initialize with protocol version {agent.get('protocolVersion')!r}, "
            f"and the editor speaks version {PROTOCOL_VERSION} only (agent-client-protocol "
            f"{_sdk_version()}); give an agent built for that version"
        )
    new = NewSessionRequest(cwd=cwd, mcp_servers=[_server(tools, agent)])
    opened = await _answer(connection, AGENT_METHODS["session_new"], new, stop)
    if opened is None:
        return None
    session_id = str(opened["sessionId"])
    text: list[Any] = [TextContentBlock(type="text", text=task)]
    ask = PromptRequest(session_id=session_id, prompt=text)
    cancel = {"sessionId": session_id}
    editor.send_cancel = lambda: connection.send_notification(
        AGENT_METHODS["session_cancel"], cancel
    )
    prompt = asyncio.ensure_future(_request(connection, AGENT_METHODS["session_prompt"], ask))
    if await waited(prompt, stop):
        return _reason(prompt.result())
    await editor.cancel()
    done, _ = await asyncio.wait({prompt}, timeout=CANCEL_SECONDS)
    answered = prompt.result() if done and not prompt.exception() else None
    prompt.cancel()
    return _reason(answered)


async def _answer(connection: Connection, method: str, request: Any, stop: Stop) -> Any:
    """The agent's answer to a request of the handshake; ``None``, said on stderr, when the run
    had to stop first."""
    asked = asyncio.ensure_future(_request(connection, method, request))
    if await waited(asked, stop):
        return asked.result()
    asked.cancel()
    # The run did not stop, but the task never began: say so where the record's output keeps it.
    sys.stderr.write(
        f"unsolvable: the ACP agent never answered {method} before the harness's ceiling; a "
        "program not in its ACP mode never does (Gemini CLI needs --acp), and one slow to start "
        "needs a longer ceiling (--ceiling-seconds)\n"
    )
    return None


def _sdk_version() -> str:
    from importlib.metadata import version

    return version("agent-client-protocol")


def _server(tools: Tools, agent: Mapping[str, Any]) -> HttpMcpServer | McpServerStdio:
    """The MCP server as the agent can take it: over HTTP where its ``mcpCapabilities`` say it
    can, over stdio (which every ACP agent must support) otherwise."""
    capabilities = agent.get("agentCapabilities") or {}
    if (capabilities.get("mcpCapabilities") or {}).get("http"):
        return HttpMcpServer(type="http", name="unsolvable", url=tools.url, headers=[])
    command, *args = tools.command
    env = [EnvVariable(name=k, value=v) for k, v in tools.environ.items()]
    return McpServerStdio(name="unsolvable", command=command, args=args, env=env)


def _reason(answered: object) -> str | None:
    if isinstance(answered, Mapping) and isinstance(answered.get("stopReason"), str):
        return str(answered["stopReason"])
    return None
