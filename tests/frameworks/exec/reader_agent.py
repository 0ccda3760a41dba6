"""An agent in its own process that reads everything it is given before its first step — its
environment, its arguments (the placeholders filled in), its working directory, the wire's answer
to one model request (status, headers, body) and, where the MCP server is offered, that server's
name, instructions and tools — and writes all of it, unredacted, to the file named by its first
argument, then stops at once."""

import asyncio
import json
import os
import sys
import urllib.request

from mcp import Client


def model_answer() -> dict[str, object]:
    """One Chat Completions request, as any HTTP client sends it."""
    body = {
        "model": "m",
        "messages": [{"role": "user", "content": os.environ["UNSOLVABLE_TASK"]}],
        "tools": json.loads(os.environ["UNSOLVABLE_TOOLS"]),
    }
    request = urllib.request.Request(
        os.environ["OPENAI_BASE_URL"] + "/chat/completions",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(request) as answer:
        headers = sorted((k.lower(), v) for k, v in answer.headers.items() if k.lower() != "date")
        return {"status": answer.status, "headers": headers, "body": json.loads(answer.read())}


async def mcp_server() -> dict[str, object]:
    """What the MCP server says of itself and its tools."""
    async with Client(os.environ["UNSOLVABLE_MCP_URL"]) as mcp:
        tools = [tool.model_dump(mode="json") for tool in (await mcp.list_tools()).tools]
        return {
            "server": mcp.server_info.model_dump(mode="json"),
            "instructions": mcp.instructions,
            "tools": tools,
        }


seen = {
    "environ": dict(sorted(os.environ.items())),
    "argv": sys.argv[2:],
    "cwd": os.getcwd(),
    "model": model_answer(),
    "mcp": asyncio.run(mcp_server()) if "UNSOLVABLE_MCP_URL" in os.environ else None,
}
with open(sys.argv[1], "w") as out:
    json.dump(seen, out)
print(json.dumps({"code": "NO_PROGRESS", "reason": "read all"}))
