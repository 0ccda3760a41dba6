"""Consumes an Agent Client Protocol agent's process (its stdin and stdout), produces the editor's
side of one prompt turn: ``initialize``, ``session/new`` with the scenario's tools as an MCP
server, ``session/prompt`` with the task, ``session/cancel`` at a harness ceiling, and how the turn
ended (`Turn`); the agent's calls to the editor are answered by `Editor` (``_editor_client``).

Imports `acp` (the ``agent-client-protocol`` SDK); `unsolvable.adapters.acp` imports this
module only inside a run.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from acp import PROTOCOL_VERSION
from acp.client.router import build_client_router
from acp.connection import Connection
from acp.exceptions import RequestError
from acp.interfaces import Client
from acp.meta import AGENT_METHODS, CLIENT_METHODS
from acp.router import MessageRouter, Route
from acp.schema import (
    ClientCapabilities,
    EnvVariable,
    HttpMcpServer,
    Implementation,
    InitializeRequest,
    InitializeResponse,
    McpServerStdio,
    NewSessionRequest,
    NewSessionResponse,
    PromptRequest,
    PromptResponse,
    TextContentBlock,
)
from acp.utils import serialize_params
from pydantic import BaseModel

from unsolvable._text import cut
from unsolvable.adapters._editor_client import Editor, Refusal, Unoffered
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
SHOWN_CUT = 200
"""Characters of a value the agent sent that an error shows (`_shown`): its shape and its
start, which say what it sent instead of ACP's object, not the megabytes an agent may send."""
CLIENT = Implementation(name="pytest-unsolvable", version="1")
UNANSWERED = {
    AGENT_METHODS["initialize"]: "a program not in its ACP mode never does (Gemini CLI needs "
    "--acp), ",
    AGENT_METHODS["session_new"]: "an agent that signs in to an account of its own first may "
    "never do (Gemini CLI does where its settings select a Google login: give it an empty HOME, "
    "env HOME={home}), ",
}
"""Why an agent may never answer a request of the handshake, by method."""
RESULTS: Mapping[str, type[BaseModel]] = {
    AGENT_METHODS["initialize"]: InitializeResponse,
    AGENT_METHODS["session_new"]: NewSessionResponse,
    AGENT_METHODS["session_prompt"]: PromptResponse,
}
"""The SDK's schema of the result of each request the editor sends, by method: what an answer
that is not one is told to send."""
UNOFFERED = tuple(method for key, method in CLIENT_METHODS.items() if key.startswith("terminal_"))
"""The terminal methods, which the editor does not offer (its `ClientCapabilities`): the SDK
answers them with an empty result unless told they are not there, a success no editor without a
terminal sends."""


@dataclass(frozen=True, kw_only=True)
class Turn:
    """How one prompt turn ended, as the editor saw it."""

    stop_reason: str | None
    """The agent's ``stopReason`` as sent (``_``-prefixed extension values included);
    ``None`` when the turn was cut short (a ceiling) before it answered."""
    said: str = ""
    """The start of the agent's last message of the turn (its ``agent_message_chunk`` text), as
    far as a record shows it (`SAID_KEPT`)."""
    refused: Refusal | None = None
    """The refused permission, when a refusal was the last thing of the turn: no message and no
    tool call came after it."""
    unoffered: Unoffered | None = None
    """The permission request at which the editor cancelled the turn (`Unoffered`)."""
    stderr: str = ""
    """The end of the agent's stderr."""


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
    editor = Editor(session=session, prefixes=prefixes)
    messages = cast(asyncio.StreamReader, _Messages(child.process.stdout))
    connection = Connection(_router(editor), child.process.stdin, messages)
    try:
        reason = await _turn(connection, editor, session.task, cwd, tools, stop)
    except Exception as error:
        what = await _hung_up(child, error) if isinstance(error, _HungUp) else _described(error)
        said = await _end(child, connection)
        raise AcpError(f"{what}; its stderr {child.account(said)}", said) from error
    said = await _end(child, connection)
    return Turn(
        stop_reason=reason,
        said=editor.said,
        refused=editor.refused,
        unoffered=editor.unoffered,
        stderr=said,
    )


class _Messages:
    """The agent's stdout as the SDK reads it, a line a message, less the lines that cannot be
    one: a JSON-RPC message is a JSON object, and a line that does not open one (a debug print,
    a JSON array, which ACP has no batches to send, a bare value) is ignored, as an editor
    ignores what it cannot read, and said once on stderr. Handed on, a text line was logged with
    a traceback each time, and any other JSON value ended the SDK's reading, the turn taken for
    the agent closing its stdout."""

    def __init__(self, stdout: asyncio.StreamReader) -> None:
        self.stdout = stdout
        self.told = False
        self.continued = False
        """Whether the SDK is reading on a line past the reader's limit (`readexactly`): its
        rest opens nothing and is passed on."""

    async def readuntil(self, separator: bytes) -> bytes:
        while True:
            line = await self.stdout.readuntil(separator)
            if self.continued or line.lstrip()[:1] in (b"{", b""):  # b"": the SDK skips it
                self.continued = False
                return line
            if not self.told:
                self.told = True
                sys.stderr.write(
                    f"unsolvable: the ACP agent wrote a line that is no JSON-RPC message on its "
                    f"stdout ({line[:80]!r}); it and each later one are ignored\n"
                )

    async def readexactly(self, size: int) -> bytes:
        """The start of a line past the reader's limit, which the SDK reads on (`LINE_LIMIT`)."""
        self.continued = True
        return await self.stdout.readexactly(size)


def _router(editor: Editor) -> MessageRouter:
    """The SDK's router of the editor's methods, the ones it does not offer answered "method
    not found" (`UNOFFERED`), as ``fs/*`` are, and its updates read by `Editor.heard`."""
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


async def _turn(
    connection: Connection, editor: Editor, task: str, cwd: str, tools: Tools, stop: Stop
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
    session_id = _member(AGENT_METHODS["session_new"], opened, "sessionId")
    editor.open(session_id)
    text: list[Any] = [TextContentBlock(type="text", text=task)]
    ask = PromptRequest(session_id=session_id, prompt=text)
    cancel = {"sessionId": session_id}
    editor.send_cancel = lambda: connection.send_notification(
        AGENT_METHODS["session_cancel"], cancel
    )
    prompt = asyncio.ensure_future(_request(connection, AGENT_METHODS["session_prompt"], ask))
    if await waited(prompt, stop):
        method = AGENT_METHODS["session_prompt"]
        return _member(method, _object(method, prompt.result()), "stopReason")
    await editor.cancel()
    done, _ = await asyncio.wait({prompt}, timeout=CANCEL_SECONDS)
    answered = prompt.result() if done and not prompt.exception() else None
    prompt.cancel()
    return _reason(answered)


async def _answer(
    connection: Connection, method: str, request: Any, stop: Stop
) -> Mapping[str, Any] | None:
    """The agent's answer to a request of the handshake (`_object`); ``None``, said on stderr,
    when the run had to stop first."""
    asked = asyncio.ensure_future(_request(connection, method, request))
    if await waited(asked, stop):
        return _object(method, asked.result())
    asked.cancel()
    # The run did not stop, but the task never began: say so where the record's output keeps it.
    sys.stderr.write(
        f"unsolvable: the ACP agent never answered {method} before the harness's ceiling; "
        f"{UNANSWERED.get(method, '')}one slow to start needs a longer ceiling "
        "(--ceiling-seconds)\n"
    )
    return None


def _object(method: str, result: object) -> Mapping[str, Any]:
    """The agent's result for ``method``, which ACP makes a JSON object; `_Broken` naming what it
    sent instead (``null``, a list, a string), so that no such answer is read as a turn that ran
    and ended with no stop reason."""
    if isinstance(result, Mapping):
        return result
    raise _Broken(f"it answered {method} with result {_shown(result)}; {_expected(method)}")


def _member(method: str, result: Mapping[str, Any], name: str) -> str:
    """The string member ``name`` of the agent's result for ``method``, which ACP requires;
    `_Broken` naming the result that lacks it."""
    value = result.get(name)
    if isinstance(value, str) and value:
        return value
    raise _Broken(
        f"it answered {method} with {_shown(result)}, which has no {name} (a non-empty string); "
        f"{_expected(method)}"
    )


def _expected(method: str) -> str:
    """What the agent is to answer ``method`` with, in words: ACP's result object and the members
    it requires (`RESULTS`)."""
    schema = RESULTS[method]
    required = [
        field.alias or name for name, field in schema.model_fields.items() if field.is_required()
    ]
    return (
        f"ACP's result for {method} is a JSON object ({schema.__name__}) with "
        f"{', '.join(required)}: answer with one"
    )


def _shown(value: object) -> str:
    """A value the agent sent, as JSON, cut to `SHOWN_CUT` characters, saying so, for a record's
    error."""
    return cut(json.dumps(value, default=repr), SHOWN_CUT)


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
