"""Consumes the MCP server of one run, produces it served: over stdio, or over Streamable HTTP
behind the run's key, each client's path prefix kept for its calls, and a transport failure
(`McpErrors.TRANSPORT`) answered as a proxy in front of a dead server answers, or as a crash.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from collections.abc import Mapping
from typing import Any

import anyio
import uvicorn
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from unsolvable._run_key import unkeyed
from unsolvable._scenario import McpErrors
from unsolvable.mcp._calls import TRANSPORT_FAILURE, UNAUTHORIZED
from unsolvable.mcp._launch import MCP_PATH

__all__ = ["prefix_of", "serve_http", "serve_stdio"]

PREFIX = "unsolvable.prefix"
"""Where `_Prefixed` leaves, in a request's ASGI scope, the path its client gave before
``/mcp``."""


def prefix_of(ctx: ServerRequestContext[Any]) -> str:
    """The path the HTTP client gave before ``/mcp`` (`_Prefixed`); over stdio, none."""
    scope = getattr(ctx.request, "scope", None)
    return str(scope.get(PREFIX, "")) if isinstance(scope, Mapping) else ""


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
    one URL it was given, so each of its calls carries its prefix). ``<prefix>/mcp/`` is the
    same URL to a client configured with a trailing slash: left to the router, it was redirected
    to ``/mcp``, a URL without the run's key (`_Keyed` took it off), and then refused."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "").rstrip("/") if scope["type"] == "http" else ""
        if path.endswith(MCP_PATH) and path.startswith("/"):
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


async def serve_http(
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


async def serve_stdio(server: Server, errors: McpErrors) -> None:
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
