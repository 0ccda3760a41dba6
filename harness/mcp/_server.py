"""Consumes MCP requests (stdio or Streamable HTTP, every protocol era the `mcp` SDK serves),
produces the scenario's tools: each ``tools/call`` is forwarded to the harness's plain HTTP
tools (``POST $UNSOLVABLE_TOOLS_URL/<name>``), so the session counts and judges it exactly as
it does ``session.call_tool``.

Start it (in the harness's interpreter, which has the ``mcp`` extra) with the tools' variables
an exec agent is given, ``UNSOLVABLE_TOOLS_URL`` and ``UNSOLVABLE_TOOLS`` (and optionally
``UNSOLVABLE_MCP_ERRORS``, a `McpErrors` value), in its environment:

    python -m unsolvable.mcp                   # stdio: what an MCP client's "command" starts
    python -m unsolvable.mcp --http --port 0   # Streamable HTTP; prints its URL, …/<key>/mcp
    python -m unsolvable.mcp --http --fd N     # on an inherited socket, until stdin closes

Over HTTP the path before ``/mcp`` is passed on to the tools: a client of
``…/agents/worker-1/mcp`` has its calls forwarded to ``…/agents/worker-1/tools/<name>``, which
the wire reads as agent ``worker-1``'s, so the sub-agents of a multi-agent system each
connect to their own path of one server. Over stdio the tools URL itself carries the path. The
server reads no agent's name: the path is the wire's to read.

This module runs in the server's own process and is the only one that imports `mcp`; the
harness process talks to it over loopback HTTP only.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import socket
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import anyio
import httpx2
import mcp_types as types
import uvicorn
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError, NoBackChannelError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from unsolvable._errors import RUN_ENDED, run_ended
from unsolvable._run_key import new_key, unkeyed
from unsolvable._scenario import McpErrors
from unsolvable.mcp._launch import KEY_VARIABLE, LOOPBACK, MCP_PATH, SERVER_NAME

__all__ = ["Interaction", "build_server", "main"]

# The harness's own JSON-RPC codes come from the band the MCP spec leaves to implementations
# (-32000 to -32019), past the codes a client raises for itself: the `mcp` SDKs (Python and
# TypeScript) take -32000 for a closed connection and -32001 for a timeout, and a client, or a
# retry layer reading them, would take the harness's answer for its own; -32002 the spec retired.
ENDED = -32003
"""The JSON-RPC code of a call refused because the run has ended."""
TOOL_ERROR = -32004
"""The JSON-RPC code of a failed call under `McpErrors.PROTOCOL`."""
UNAUTHORIZED = -32005
"""The JSON-RPC code of a request refused for want of the run's key."""
TRANSPORT_FAILURE = -32099
"""Marks, inside this process only, a failed call under `McpErrors.TRANSPORT`; the HTTP face
turns the response that carries it into a 502 and never sends the code itself."""
HARNESS_SECONDS = 60.0
"""How long a call to the harness's tools may take: far above any fake tool's microseconds; the
harness's own wall ceiling ends a run long before."""
ERROR_STATUS = 400
"""An HTTP status from the tools at or above this is a failed call (403, 503, 500, ...)."""
WAITING = frozenset({"pending", "working"})
"""The ``status`` of an answer that says a job is not done yet."""
WORKING = "working"
"""The ``requestState`` of a task still working: the client polls by retrying with it."""
ASKED = "asked:"
"""Begins the ``requestState`` of a refusal put to the client by elicitation: the refusal
follows, answered when the client retries (the call is not made twice)."""
PERMISSION = "permission"
"""The key of the elicitation among an ``input_required`` result's input requests."""
THIS_RUN = "this scenario"
"""The run a refusal names when the harness is gone: the server is not told the run's name."""
ELICITING = types.ClientCapabilities(elicitation=types.ElicitationCapability())
"""What a client declares to be asked by elicitation; one that does not gets the refusal as it
is (asked anyway, the `mcp` client SDK fails the call with "Elicitation not supported")."""
PREFIX = "unsolvable.prefix"
"""Where `_Prefixed` leaves, in a request's ASGI scope, the path its client gave before
``/mcp``."""


@dataclass(frozen=True)
class _Failed:
    """A tool call the harness answered with an error status, and the body it answered."""

    status: int
    text: str


def _tools(specs: Sequence[Mapping[str, Any]]) -> list[types.Tool]:
    """The Chat Completions ``tools=`` list (``$UNSOLVABLE_TOOLS``) as MCP tools."""
    return [
        types.Tool(
            name=spec["function"]["name"],
            description=spec["function"].get("description"),
            input_schema=spec["function"].get("parameters") or {"type": "object"},
        )
        for spec in specs
    ]


def _text(text: str) -> list[types.ContentBlock]:
    return [types.TextContent(type="text", text=text)]


def _data(failed: _Failed) -> dict[str, Any]:
    try:
        body: object = json.loads(failed.text)
    except ValueError:
        body = failed.text
    return {"status": failed.status, "body": body}


@dataclass(frozen=True, kw_only=True)
class Interaction:
    """How the server puts a waiting answer and a refusal to the client (``Scenario.mcp_tasks``,
    ``Scenario.mcp_elicit``); each off by default."""

    tasks: bool = False
    elicit: bool = False


def build_server(
    tools_url: str,
    specs: Sequence[Mapping[str, Any]],
    errors: McpErrors,
    interaction: Interaction = Interaction(),
) -> Server:
    """The MCP server of one run: ``tools/list`` from ``specs``, ``tools/call`` forwarded."""
    tools = _tools(specs)
    names = {tool.name for tool in tools}
    client = httpx2.AsyncClient(timeout=HARNESS_SECONDS)  # lives as long as the process

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        if params.name not in names:  # as a real server answers: the harness is not asked
            raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {params.name}")
        asked = _asked(params.request_state)
        if asked is not None:  # the retry after an elicitation: the call was made the first time
            return _encode(errors, asked)
        url = f"{_under(tools_url, _prefix_of(ctx))}/{params.name}"
        response = await _forward(client, url, params.arguments or {})
        text = response.text
        modern = ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
        if response.status_code < ERROR_STATUS:
            if interaction.tasks and modern and _is_waiting(text):
                return types.InputRequiredResult(request_state=WORKING)
            return types.CallToolResult(content=_text(text))
        failed = _Failed(response.status_code, text)
        askable = interaction.elicit and ctx.session.check_client_capability(ELICITING)
        permission = _missing_permission(failed) if askable else None
        if permission is None:
            return _encode(errors, failed)
        message, schema = _question(params.name, permission)
        if modern:
            asking = types.ElicitRequestFormParams(message=message, requested_schema=schema)
            state = ASKED + json.dumps({"status": failed.status, "text": failed.text})
            requests: types.InputRequests = {PERMISSION: types.ElicitRequest(params=asking)}
            return types.InputRequiredResult(input_requests=requests, request_state=state)
        with contextlib.suppress(NoBackChannelError):  # a client that cannot be asked is not
            await ctx.session.elicit_form(message, schema)
        return _encode(errors, failed)

    server = Server(SERVER_NAME, version="1", on_list_tools=list_tools, on_call_tool=call_tool)
    # A client echoes ``requestState`` as it likes: sealed, one the server never minted is refused
    # as invalid (-32602) before ``call_tool`` reads it, never answered from without the harness.
    security = RequestStateSecurity.ephemeral()
    server.middleware.append(RequestStateBoundary(security, default_audience=SERVER_NAME))
    return server


async def _forward(
    client: httpx2.AsyncClient, url: str, arguments: Mapping[str, Any]
) -> httpx2.Response:
    """The harness's answer to a call; raises `MCPError` (`ENDED`) once the run has ended, which
    is no failure of the scenario's, so no `McpErrors` encoding applies to it."""
    try:
        response = await client.post(url, json=arguments)
    except (httpx2.NetworkError, httpx2.RemoteProtocolError) as error:
        # The harness stops serving the tools as the run ends: refused, or hung up on mid-call.
        evidence = f"  - the harness no longer answers at its tools URL ({error})"
        raise MCPError(ENDED, f"{run_ended(THIS_RUN)}\n{evidence}") from None
    refusal = _ended(response)
    if refusal is not None:
        raise MCPError(ENDED, refusal)
    return response


def _ended(response: httpx2.Response) -> str | None:
    """The session's refusal of a call made after the run ended (the loopback server's 410), if
    ``response`` is one."""
    if response.status_code != HTTPStatus.GONE:
        return None
    body = _data(_Failed(response.status_code, response.text))["body"]
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict) or error.get("type") != RUN_ENDED:
        return None
    return str(error.get("message"))


def _is_waiting(text: str) -> bool:
    """A waiting answer: a job that is not done yet (``{"status": "pending"}``)."""
    try:
        body = json.loads(text)
    except ValueError:
        return False
    return isinstance(body, dict) and body.get("status") in WAITING


def _missing_permission(failed: _Failed) -> str | None:
    """The permission a refusal names (the fake tools' ``missing_permission``), if any."""
    body = _data(failed)["body"]
    error = body.get("error") if isinstance(body, dict) else None
    permission = error.get("missing_permission") if isinstance(error, dict) else None
    return str(permission) if permission else None


def _question(tool: str, permission: str) -> tuple[str, types.ElicitRequestedSchema]:
    """What the server asks the user: whether to grant the permission the call lacks."""
    message = f"{tool} needs the permission '{permission}', which this token lacks. Grant it?"
    schema: Any = {"type": "object", "properties": {"grant": {"type": "boolean"}}}
    return message, schema


def _asked(state: str | None) -> _Failed | None:
    """The refusal an elicitation was about, carried in the retry's ``requestState`` (unsealed by
    the `RequestStateBoundary`, so it is one this server minted)."""
    if state is None or not state.startswith(ASKED):
        return None
    carried = json.loads(state.removeprefix(ASKED))
    return _Failed(int(carried["status"]), str(carried["text"]))


def _prefix_of(ctx: ServerRequestContext[Any]) -> str:
    """The path the HTTP client gave before ``/mcp`` (`_Prefixed`); over stdio, none."""
    scope = getattr(ctx.request, "scope", None)
    return str(scope.get(PREFIX, "")) if isinstance(scope, Mapping) else ""


def _under(url: str, prefix: str) -> str:
    """``url`` with ``prefix`` put before its last path segment: ``http://h/<key>/tools`` under
    ``/agents/w`` is ``http://h/<key>/agents/w/tools``."""
    if not prefix:
        return url
    parts = urlsplit(url)
    parent, _, last = parts.path.rpartition("/")
    return urlunsplit(parts._replace(path=f"{parent}{prefix}/{last}"))


def _encode(errors: McpErrors, failed: _Failed) -> types.CallToolResult:
    """A failed call in the scenario's chosen encoding (`McpErrors`)."""
    if errors is McpErrors.RESULT:
        return types.CallToolResult(content=_text(failed.text), is_error=True)
    if errors is McpErrors.PROTOCOL:
        raise MCPError(TOOL_ERROR, failed.text, _data(failed))
    raise MCPError(TRANSPORT_FAILURE, failed.text, _data(failed))


class _TransportFailures:
    """ASGI middleware: a response carrying `TRANSPORT_FAILURE` becomes ``502 Bad Gateway``, the
    way a proxy in front of a dead server answers. Responses are JSON (``json_response``), so
    each is whole before it is sent."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        held: list[Message] = []

        async def hold(message: Message) -> None:
            held.append(message)

        await self.app(scope, receive, hold)
        body = b"".join(m.get("body", b"") for m in held if m["type"] == "http.response.body")
        if not _is_transport_failure(body):
            for message in held:
                await send(message)
            return
        text = b"unsolvable: the tool's dependency failed (McpErrors.TRANSPORT)"
        headers = [(b"content-type", b"text/plain"), (b"content-length", str(len(text)).encode())]
        await send({"type": "http.response.start", "status": 502, "headers": headers})
        await send({"type": "http.response.body", "body": text})


class _Keyed:
    """ASGI middleware: only a request whose path holds the run's key is served, as one without
    it; any other is refused (401, a JSON-RPC error) before the MCP server sees it."""

    def __init__(self, app: ASGIApp, key: str) -> None:
        self.app, self.key = app, key

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = unkeyed(str(scope.get("path", "")), self.key)
        if path is None:
            await _unauthorized(send)
            return
        await self.app({**scope, "path": path, "raw_path": path.encode()}, receive, send)


async def _unauthorized(send: Send) -> None:
    error = {"code": UNAUTHORIZED, "message": "unsolvable: this run's key is missing from the URL"}
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": error}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 401, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class _Prefixed:
    """ASGI middleware: a request to ``<prefix>/mcp`` is served as one to ``/mcp``, its prefix
    kept in the scope for ``tools/call`` to forward under (a client's every request goes to the
    one URL it was given, so each of its calls carries its prefix)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if path.endswith(MCP_PATH) and path != MCP_PATH and path.startswith("/"):
            prefix = path[: -len(MCP_PATH)].rstrip("/")
            scope = {**scope, "path": MCP_PATH, "raw_path": MCP_PATH.encode(), PREFIX: prefix}
        await self.app(scope, receive, send)


def _is_transport_failure(body: bytes) -> bool:
    try:
        message = json.loads(body)
    except ValueError:
        return False
    error = message.get("error") if isinstance(message, dict) else None
    return isinstance(error, dict) and error.get("code") == TRANSPORT_FAILURE


async def _serve_http(
    server: Server, listener: socket.socket, key: str, *, until_stdin_closes: bool
) -> None:
    app = server.streamable_http_app(streamable_http_path=MCP_PATH, json_response=True)
    keyed = _Keyed(_Prefixed(_TransportFailures(app)), key)
    config = uvicorn.Config(keyed, log_level="warning", access_log=False, lifespan="on")
    async with anyio.create_task_group() as group:
        if until_stdin_closes:
            group.start_soon(_exit_when_stdin_closes)
        await uvicorn.Server(config).serve(sockets=[listener])
        group.cancel_scope.cancel()


async def _exit_when_stdin_closes() -> None:
    """`McpService` holds the only writer of this pipe and never writes: readable, it is closed,
    the harness gone however it ended (a SIGKILL runs no clean-up), and no one is left to serve."""
    await anyio.wait_readable(sys.stdin.fileno())
    os._exit(0)


async def _serve_stdio(server: Server, errors: McpErrors) -> None:
    async with stdio_server() as (read, write):
        if errors is McpErrors.TRANSPORT:
            server.middleware.append(_exit_on_transport_failure)
        await server.run(read, write, server.create_initialization_options())


async def _exit_on_transport_failure(ctx: Any, call_next: Any) -> Any:
    """Over stdio a transport can only fail whole: the server exits, as a crashed one would."""
    try:
        return await call_next(ctx)
    except MCPError as error:
        if error.code != TRANSPORT_FAILURE:
            raise
        sys.stderr.write(f"unsolvable: the transport fails (McpErrors.TRANSPORT): {error}\n")
        sys.stderr.flush()
        os._exit(1)


def _environ(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        sys.exit(
            f"unsolvable: python -m unsolvable.mcp needs ${name}; an exec: agent has it in its "
            "environment (see the README: Agents in other processes and languages)"
        )
    return value


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m unsolvable.mcp [--http --fd N | --http --port N]``: stdio by default."""
    parser = argparse.ArgumentParser(prog="python -m unsolvable.mcp", description=__doc__)
    parser.add_argument("--http", action="store_true", help="serve Streamable HTTP at /mcp")
    parser.add_argument(
        "--fd",
        type=int,
        help="a listening socket to serve on (inherited); the server ends when its stdin closes",
    )
    parser.add_argument("--port", type=int, default=0, help="a 127.0.0.1 port to listen on")
    options = parser.parse_args(argv)
    errors = McpErrors(os.environ.get("UNSOLVABLE_MCP_ERRORS") or McpErrors.RESULT)
    interaction = Interaction(
        tasks=bool(os.environ.get("UNSOLVABLE_MCP_TASKS")),
        elicit=bool(os.environ.get("UNSOLVABLE_MCP_ELICIT")),
    )
    specs = json.loads(_environ("UNSOLVABLE_TOOLS"))
    server = build_server(_environ("UNSOLVABLE_TOOLS_URL"), specs, errors, interaction)
    if not options.http:
        anyio.run(_serve_stdio, server, errors)
        return
    key = os.environ.get(KEY_VARIABLE) or new_key()
    if options.fd is not None:
        listener = socket.socket(fileno=options.fd)
    else:
        listener = socket.create_server((LOOPBACK, options.port))
        print(f"http://{LOOPBACK}:{listener.getsockname()[1]}/{key}{MCP_PATH}", flush=True)
    anyio.run(
        functools.partial(_serve_http, until_stdin_closes=options.fd is not None),
        server,
        listener,
        key,
    )
