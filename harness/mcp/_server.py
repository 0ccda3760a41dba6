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

This module and those it serves with (`_calls`, `_elicitation`, `_transports`) run in the
server's own process and are the only ones that import `mcp`; the harness process talks to them
over loopback HTTP only.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import socket
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import anyio
import httpx2
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from unsolvable._run_key import new_key
from unsolvable._scenario import McpErrors
from unsolvable.mcp._calls import Failed, encode, forward, is_waiting, text_content, under
from unsolvable.mcp._elicitation import ELICITING, ask, asked, missing_permission
from unsolvable.mcp._launch import KEY_VARIABLE, LOOPBACK, MCP_PATH, SERVER_NAME
from unsolvable.mcp._transports import prefix_of, serve_http, serve_stdio

__all__ = ["Interaction", "build_server", "main"]

HARNESS_SECONDS = 60.0
"""How long a call to the harness's tools may take: far above any fake tool's microseconds; the
harness's own wall ceiling ends a run long before."""
ERROR_STATUS = 400
"""An HTTP status from the tools at or above this is a failed call (403, 503, 500, ...)."""
WORKING = "working"
"""The ``requestState`` of a task still working: the client polls by retrying with it."""


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
        refused = asked(params.request_state)
        if refused is not None:  # the retry after an elicitation: the call was made the first time
            return encode(errors, refused)
        url = f"{under(tools_url, prefix_of(ctx))}/{params.name}"
        response = await forward(client, url, params.arguments or {})
        text = response.text
        modern = ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
        if response.status_code < ERROR_STATUS:
            if interaction.tasks and modern and is_waiting(text):
                return types.InputRequiredResult(request_state=WORKING)
            return types.CallToolResult(content=text_content(text))
        failed = Failed(status=response.status_code, text=text)
        askable = interaction.elicit and ctx.session.check_client_capability(ELICITING)
        permission = missing_permission(failed) if askable else None
        if permission is None:
            return encode(errors, failed)
        return await ask(ctx, params.name, permission, failed, errors)

    server = Server(SERVER_NAME, version="1", on_list_tools=list_tools, on_call_tool=call_tool)
    # A client echoes ``requestState`` as it likes: sealed, one the server never minted is refused
    # as invalid (-32602) before ``call_tool`` reads it, never answered from without the harness.
    security = RequestStateSecurity.ephemeral()
    server.middleware.append(RequestStateBoundary(security, default_audience=SERVER_NAME))
    return server


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
        anyio.run(serve_stdio, server, errors)
        return
    key = os.environ.get(KEY_VARIABLE) or new_key()
    if options.fd is not None:
        listener = socket.socket(fileno=options.fd)
    else:
        listener = socket.create_server((LOOPBACK, options.port))
        print(f"http://{LOOPBACK}:{listener.getsockname()[1]}/{key}{MCP_PATH}", flush=True)
    anyio.run(
        functools.partial(serve_http, until_stdin_closes=options.fd is not None),
        server,
        listener,
        key,
    )
