"""Agents built on real MCP clients, each run on the scenario's tools over MCP: what they count
themselves (tool calls that reached a result or an error) beside what the harness counts."""

from __future__ import annotations

import asyncio
import contextlib
import warnings
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from unsolvable import Session
from unsolvable.mcp import McpService, server_environ, stdio_command
from unsolvable.wire import Wire

Served = tuple[Wire, McpService, dict[str, str]]
"""The wire (the fake model on it), the HTTP server, and the stdio server's environment."""


@contextlib.contextmanager
def served(session: Session) -> Iterator[Served]:
    with Wire(session) as wire, wire.serve() as server:
        environ = server_environ(session, server.tools_url)
        with McpService(environ) as mcp:
            yield wire, mcp, environ


def run_async(make: Callable[[Served], Any]) -> Callable[[Session], Any]:
    """An agent ``agent(session)`` that runs the coroutine ``make(served)`` returns."""

    def agent(session: Session) -> Any:
        with served(session) as parts:
            return asyncio.run(make(parts))

    return agent


def stdio() -> tuple[str, list[str]]:
    command, *args = stdio_command()
    return command, args


@contextlib.asynccontextmanager
async def agents_sdk_server(transport: str, parts: Served) -> AsyncIterator[Any]:
    from agents.mcp import MCPServerStdio, MCPServerStreamableHttp

    _, mcp, environ = parts
    if transport == "http":
        server: Any = MCPServerStreamableHttp(params={"url": mcp.url})
    else:
        command, args = stdio()
        server = MCPServerStdio(params={"command": command, "args": args, "env": environ})
    async with server:
        yield server


def fastmcp_target(transport: str, parts: Served) -> Any:
    """What fastmcp-based clients (langchain.mcp, pydantic-ai) are given: the URL, or stdio."""
    _, mcp, environ = parts
    if transport == "http":
        return mcp.url
    from fastmcp.client.transports import StdioTransport

    command, args = stdio()
    return StdioTransport(command=command, args=args, env=environ)


Ran = dict[str, Any]
"""How a client's run ended (``how``: ``final`` or the exception's name), its own count of tool
results (``calls``), and the last one it saw (``last``)."""


async def agents_sdk_run(transport: str, parts: Served) -> Ran:
    """An OpenAI Agents SDK agent whose only tools are the MCP server's, at its defaults."""
    from agents import Agent, OpenAIChatCompletionsModel, RunConfig, Runner
    from agents.exceptions import MaxTurnsExceeded
    from agents.items import ToolCallOutputItem

    wire = parts[0]
    async with agents_sdk_server(transport, parts) as server:
        model = OpenAIChatCompletionsModel(model="m", openai_client=wire.async_openai_client())
        agent = Agent(
            name="billing", instructions="Do the task.", mcp_servers=[server], model=model
        )
        config = RunConfig(tracing_disabled=True)
        try:
            items, how = (await Runner.run(agent, "the task", run_config=config)).new_items, "final"
        except MaxTurnsExceeded as error:
            assert error.run_data is not None
            items, how = error.run_data.new_items, type(error).__name__
    outputs = [str(i.output) for i in items if isinstance(i, ToolCallOutputItem)]
    return {"how": how, "calls": len(outputs), "last": outputs[-1] if outputs else ""}


async def langchain_run(session: Session, transport: str, parts: Served) -> Ran:
    """A LangChain ``create_agent`` on the tools ``langchain.mcp`` adapts (recursion limit 21:
    11 model calls, 10 tool runs)."""
    from langchain.agents import create_agent

    with warnings.catch_warnings():  # "`langchain.mcp` is in beta", said once, on import
        warnings.simplefilter("ignore")
        from langchain.mcp import MCPAdapter

    from unsolvable.adapters.langgraph import SessionChatModel

    async with MCPAdapter(fastmcp_target(transport, parts)) as adapter:
        graph = create_agent(SessionChatModel(session=session), await adapter.list_tools())
        task = {"messages": [{"role": "user", "content": "the task"}]}
        try:
            messages = (await graph.ainvoke(task, {"recursion_limit": 21}))["messages"]
        except Exception as error:
            return {"how": type(error).__name__, "calls": None, "last": str(error)}
    results = [str(m.content) for m in messages if m.type == "tool"]
    return {"how": "final", "calls": len(results), "last": results[-1] if results else ""}


async def pydantic_ai_run(session: Session, transport: str, parts: Served) -> Ran:
    """A pydantic-ai agent whose toolset is ``MCPToolset``, at its defaults."""
    from pydantic_ai import Agent
    from pydantic_ai.mcp import MCPToolset

    from unsolvable.adapters.pydantic_ai import session_model

    agent = Agent(session_model(session), toolsets=[MCPToolset(fastmcp_target(transport, parts))])
    try:
        return {"how": "final", "calls": None, "last": str((await agent.run("the task")).output)}
    except Exception as error:
        return {"how": type(error).__name__, "calls": None, "last": str(error)}
