"""``python -m harness.mcp``: the scenario's tools as an MCP server (see `harness.mcp._server`)."""

from harness.mcp._server import main

main()
