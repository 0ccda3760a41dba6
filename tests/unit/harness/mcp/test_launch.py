"""`McpService`: the port is bound at once, the server process starts only on a first connection,
and stopping it leaves no process behind."""

from __future__ import annotations

import socket

import pytest

pytest.importorskip("mcp")

from unsolvable.mcp import McpService

ENVIRON = {"UNSOLVABLE_TOOLS_URL": "http://127.0.0.1:9/tools", "UNSOLVABLE_TOOLS": "[]"}


def test_no_connection_no_server_process() -> None:
    with McpService({**ENVIRON, "UNSOLVABLE_MCP_ERRORS": "result"}) as mcp:
        assert mcp.url.startswith("http://127.0.0.1:") and mcp.url.endswith("/mcp")
    assert not mcp.started


def test_a_first_connection_starts_the_server_and_stop_kills_it() -> None:
    mcp = McpService({**ENVIRON, "UNSOLVABLE_MCP_ERRORS": "result"}).start()
    try:
        with socket.create_connection(("127.0.0.1", mcp.port), timeout=60) as conn:
            conn.sendall(b"GET /mcp HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
            assert conn.recv(12).startswith(b"HTTP/1.")  # answered by the server it started
        process = mcp._process
        assert mcp.started and process is not None
    finally:
        mcp.stop()
    assert process.poll() is not None
