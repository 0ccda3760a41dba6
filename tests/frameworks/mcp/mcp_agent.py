"""An agent in its own process: the openai SDK against OPENAI_BASE_URL, the tools over MCP with
the mcp client SDK (Streamable HTTP at UNSOLVABLE_MCP_URL, or ``stdio``: the server started from
UNSOLVABLE_MCP_COMMAND), its stop as the last stdout line, its own counts on stderr."""

import asyncio
import json
import os
import shlex
import sys

from mcp import Client, StdioServerParameters
from openai import AsyncOpenAI


def server() -> str | StdioServerParameters:
    if sys.argv[2:] != ["stdio"]:
        return os.environ["UNSOLVABLE_MCP_URL"]
    command = shlex.split(os.environ["UNSOLVABLE_MCP_COMMAND"])
    needed = ("UNSOLVABLE_TOOLS_URL", "UNSOLVABLE_TOOLS", "UNSOLVABLE_MCP_ERRORS")
    env = {name: os.environ[name] for name in needed}
    return StdioServerParameters(command=command[0], args=command[1:], env=env)


async def main() -> None:
    model, steps, calls = AsyncOpenAI(), 0, 0
    stop = {"code": "BUDGET_STEPS", "reason": "out of steps"}
    async with Client(server()) as mcp:
        offered = [
            {"type": "function", "function": {"name": t.name, "parameters": t.input_schema}}
            for t in (await mcp.list_tools()).tools
        ]
        messages, seen = [{"role": "user", "content": sys.argv[1]}], set()
        for _ in range(json.loads(os.environ["UNSOLVABLE_BUDGET"])["max_steps"]):
            reply = await model.chat.completions.create(model="m", messages=messages, tools=offered)
            steps, message = steps + 1, reply.choices[0].message
            messages.append(message.model_dump(exclude_none=True))
            for call in message.tool_calls or ():
                name, arguments = call.function.name, call.function.arguments
                result, calls = await mcp.call_tool(name, json.loads(arguments)), calls + 1
                text = result.content[0].text
                messages.append({"role": "tool", "tool_call_id": call.id, "content": text})
                if result.is_error and '"status": 403' in text:
                    error = json.loads(text)["error"]
                    missing = [error.get("missing_permission", name)]
                    stop = {"code": "BLOCKED_INPUT", "reason": error["message"], "missing": missing}
                elif (name, arguments) in seen:
                    stop = {"code": "NO_PROGRESS", "reason": f"{name} again"}
                seen.add((name, arguments))
            if stop["code"] != "BUDGET_STEPS" or not message.tool_calls:
                break
    print(json.dumps({"steps": steps, "tool_calls": calls}), file=sys.stderr)
    print(json.dumps(stop))


asyncio.run(main())
