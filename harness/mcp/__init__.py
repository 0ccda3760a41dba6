"""The scenario's tools as an MCP server, in a process of its own.

Start it with the tools' variables an ``exec:`` agent is given (``UNSOLVABLE_TOOLS_URL``,
``UNSOLVABLE_TOOLS``, optionally ``UNSOLVABLE_MCP_ERRORS``) in its environment:

    python -m unsolvable.mcp                   # stdio
    python -m unsolvable.mcp --http --port 0   # Streamable HTTP; prints its URL

Every ``tools/call`` is forwarded to the harness's plain HTTP tools, so it is counted and judged
exactly as ``session.call_tool`` is. This package imports `mcp` only in the server process
(`unsolvable.mcp._server`); what the harness uses (`unsolvable.mcp._launch`) imports no `mcp`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from unsolvable._lazy import lazy_getattr

if TYPE_CHECKING:
    from unsolvable.mcp._launch import (
        SERVER_NAME,
        McpService,
        client_config,
        is_available,
        server_environ,
        stdio_command,
    )

_HOMES = {
    name: "unsolvable.mcp._launch"
    for name in (
        "SERVER_NAME",
        "McpService",
        "client_config",
        "is_available",
        "server_environ",
        "stdio_command",
    )
}

__all__ = [
    "SERVER_NAME",
    "McpService",
    "client_config",
    "is_available",
    "server_environ",
    "stdio_command",
]

__getattr__ = lazy_getattr(globals(), _HOMES)
