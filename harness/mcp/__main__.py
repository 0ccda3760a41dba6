"""``python -m unsolvable.mcp``: the scenario's tools as an MCP server."""

from unsolvable.mcp._server import main

main()
