"""Consumes a ``tools/call`` the MCP server takes, produces the harness's answer to it: the call
forwarded to the harness's plain HTTP tools, and a failed one encoded as the scenario chooses
(`McpErrors`), or refused with the JSON-RPC code of a run that has ended. Every JSON-RPC code
of the server's own is here, in the one band they share.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx2
import mcp_types as types
from mcp.shared.exceptions import MCPError

from unsolvable._errors import RUN_ENDED, run_ended
from unsolvable._scenario import McpErrors

__all__ = [
    "ENDED",
    "THIS_RUN",
    "TOOL_ERROR",
    "TRANSPORT_FAILURE",
    "UNAUTHORIZED",
    "Failed",
    "encode",
    "error_data",
    "forward",
    "is_waiting",
    "text_content",
    "under",
]

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
WAITING = frozenset({"pending", "working"})
"""The ``status`` of an answer that says a job is not done yet."""
THIS_RUN = "this scenario"
"""The run a refusal names when the harness is gone: the server is not told the run's name."""


@dataclass(frozen=True, kw_only=True)
class Failed:
    """A tool call the harness answered with an error status, and the body it answered."""

    status: int
    text: str


def text_content(text: str) -> list[types.ContentBlock]:
    return [types.TextContent(type="text", text=text)]


def error_data(failed: Failed) -> dict[str, Any]:
    try:
        body: object = json.loads(failed.text)
    except ValueError:
        body = failed.text
    return {"status": failed.status, "body": body}


async def forward(
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
    body = error_data(Failed(status=response.status_code, text=response.text))["body"]
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict) or error.get("type") != RUN_ENDED:
        return None
    return str(error.get("message"))


def is_waiting(text: str) -> bool:
    """A waiting answer: a job that is not done yet (``{"status": "pending"}``)."""
    try:
        body = json.loads(text)
    except ValueError:
        return False
    return isinstance(body, dict) and body.get("status") in WAITING


def under(url: str, prefix: str) -> str:
    """``url`` with ``prefix`` put before its last path segment: ``http://h/<key>/tools`` under
    ``/agents/w`` is ``http://h/<key>/agents/w/tools``."""
    if not prefix:
        return url
    parts = urlsplit(url)
    parent, _, last = parts.path.rpartition("/")
    return urlunsplit(parts._replace(path=f"{parent}{prefix}/{last}"))


def encode(errors: McpErrors, failed: Failed) -> types.CallToolResult:
    """A failed call in the scenario's chosen encoding (`McpErrors`)."""
    if errors is McpErrors.RESULT:
        return types.CallToolResult(content=text_content(failed.text), is_error=True)
    if errors is McpErrors.PROTOCOL:
        raise MCPError(TOOL_ERROR, failed.text, error_data(failed))
    raise MCPError(TRANSPORT_FAILURE, failed.text, error_data(failed))
