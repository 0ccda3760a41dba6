"""Consumes a session and the wire, produces what an Agents SDK agent runs on: the scenario's tools
as the SDK's function tools, the SDK's own model classes on wire clients, and the per-agent
bindings (models, tools, the harness's MCP server) of a multi-agent system."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from unsolvable._errors import AdapterError
from unsolvable._session import Session
from unsolvable._types import ToolSpec
from unsolvable.adapters.kit import FAKE_MODEL, ToolCaller, bind_tool, missing_extra
from unsolvable.wire import Wire
from unsolvable.wire._agents import agent_url

try:
    from agents import (
        FunctionTool,
        Model,
        ModelProvider,
        OpenAIChatCompletionsModel,
        OpenAIResponsesModel,
    )
    from agents.mcp import MCPServer
    from agents.tool import maybe_invoke_function_tool_failure_error_function
    from agents.tool_context import ToolContext
except ModuleNotFoundError as error:  # pragma: no cover - only without the extra
    raise ImportError(missing_extra("openai-agents", "openai-agents")) from error

__all__ = ["AgentBindings", "Api", "UnboundAgents", "mcp_server", "session_tools", "wire_model"]

Api = Literal["responses", "chat_completions"]
"""The OpenAI API an agent's model calls go over."""


def session_tools(session: Session, *, agent: str = "main") -> list[FunctionTool]:
    """The scenario's tools as Agents SDK function tools (schemas passed through, not strict);
    ``agent`` names the sub-agent that holds them (see `bind_tool`)."""
    specs = session.tools
    return [_function_tool(spec, bind_tool(session, spec.name, agent=agent)) for spec in specs]


def _function_tool(spec: ToolSpec, call: ToolCaller) -> FunctionTool:
    """A `FunctionTool` that fails the way ``@function_tool`` does by default: a raising tool
    gives the model the SDK's own error text (``default_tool_error_function``, or the run's
    ``tool_error_formatter``) and the run goes on. A bare `FunctionTool` would end the run at
    the first raise instead, which no production agent built with ``@function_tool`` does.
    Harness ceilings are `BaseException`s and pass through."""

    async def invoke(context: ToolContext[Any], arguments: str) -> str:
        try:
            return call(**json.loads(arguments or "{}"))
        except Exception as error:
            handled = await maybe_invoke_function_tool_failure_error_function(
                function_tool=tool, context=context, error=error
            )
            if handled is None:
                raise
            return handled

    tool = FunctionTool(
        name=spec.name,
        description=spec.description,
        params_json_schema=dict(spec.parameters),
        on_invoke_tool=invoke,
        strict_json_schema=False,
    )
    return tool


def wire_model(wire: Wire, api: Api, agent: str | None) -> Model:
    """The SDK's own model class for ``api``, on a wire client bound to ``agent``."""
    client = wire.async_openai_client(agent=agent)
    if api == "chat_completions":
        return OpenAIChatCompletionsModel(model=FAKE_MODEL, openai_client=client)
    return OpenAIResponsesModel(model=FAKE_MODEL, openai_client=client)


@dataclass(frozen=True, kw_only=True)
class AgentBindings:
    """What a ``per_agent=True`` builder is handed: each agent's own model and tools, by name.

    >>> def build(bind: AgentBindings) -> Agent:                         # doctest: +SKIP
    ...     worker = Agent(name="auditor", model=bind.model("auditor"),
    ...                    tools=bind.tools("auditor"), mcp_servers=bind.mcp_servers("auditor"))
    ...     return Agent(name="lead", model=bind.model("main"), handoffs=[worker])
    """

    session: Session
    wire: Wire
    api: Api
    mcp_url: str | None = None
    """The harness's MCP server under ``mcp=True``: the tools come from it, not as functions."""
    connected: list[MCPServer] = field(default_factory=list)
    """The MCP servers handed out, which the run connects before its first turn."""

    def model(self, agent: str) -> Model:
        """A model whose every call is a step of ``agent`` (``main`` is the session's default:
        the supervisor, for the fan-out scripts)."""
        return wire_model(self.wire, self.api, agent)

    def tools(self, agent: str) -> list[FunctionTool]:
        """The scenario's tools, their results fed to ``agent``'s next model call; none under
        ``mcp=True``, where `mcp_servers` brings them."""
        return [] if self.mcp_url is not None else session_tools(self.session, agent=agent)

    def mcp_servers(self, agent: str, **options: Any) -> list[MCPServer]:
        """Under ``mcp=True``, the harness's MCP server as ``agent``'s own: the SDK's
        ``MCPServerStreamableHttp`` on the server's path for ``agent``, so its calls are
        ``agent``'s (``options`` go to it, e.g. ``tool_filter``); none without ``mcp``, where
        `tools` brings the tools."""
        if self.mcp_url is None:
            return []
        try:
            url = agent_url(self.mcp_url, agent)
        except ValueError as contradiction:
            raise AdapterError(str(contradiction)) from None
        server = mcp_server(url, **options)
        self.connected.append(server)
        return [server]


def mcp_server(url: str, **options: Any) -> MCPServer:
    """The SDK's own Streamable HTTP client of the harness's MCP server, at its defaults."""
    from agents.mcp import MCPServerStreamableHttp

    from unsolvable.mcp import SERVER_NAME

    return MCPServerStreamableHttp(params={"url": url}, name=SERVER_NAME, **options)


class UnboundAgents(ModelProvider):
    """Answers an agent that names no model of its own (or only a model name) as ``main``: under
    ``per_agent`` nothing may fall back to the SDK's default provider, a real API."""

    def __init__(self, wire: Wire, api: Api) -> None:
        self._main = wire_model(wire, api, None)

    def get_model(self, model_name: str | None) -> Model:
        return self._main
