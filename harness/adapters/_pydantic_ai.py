"""Consumes a session, produces the pydantic-ai model and tools an agent runs on: a
`FunctionModel` whose every request is a step of the session (of one agent's, with
``per_agent``), the scenario's tools as pydantic-ai tools, the calls of each reply reaching the
world in the reply's order (`Turnstile`), and a pydantic-ai history read as Chat Completions
messages (`to_openai_messages`)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from unsolvable._session import Session
from unsolvable._types import JSON, ToolSpec
from unsolvable.adapters._turnstile import Turnstile
from unsolvable.adapters.kit import (
    FAKE_MODEL,
    bind_tool,
    missing_extra,
    reply_to_calls,
    reply_usage,
)

try:
    from pydantic_ai import RunContext, Tool
    from pydantic_ai.messages import (
        ModelMessage,
        ModelRequest,
        ModelResponse,
        ModelResponsePart,
        RetryPromptPart,
        SystemPromptPart,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
        UserPromptPart,
    )
    from pydantic_ai.models import (
        CompletedStreamedResponse,
        ModelRequestParameters,
        StreamedResponse,
    )
    from pydantic_ai.models.function import AgentInfo, FunctionModel
    from pydantic_ai.settings import ModelSettings
    from pydantic_ai.tools import ToolDefinition
    from pydantic_ai.usage import RequestUsage
except ModuleNotFoundError as error:  # pragma: no cover - only without the extra
    raise ImportError(missing_extra("pydantic-ai", "pydantic-ai")) from error

__all__ = [
    "AgentBindings",
    "SessionModel",
    "session_model",
    "session_tools",
    "to_openai_messages",
]

AGENT = "main"
"""The session's name for the agent the adapter runs: its steps and its tools' calls (each
agent's own name with ``per_agent``)."""


def _request_messages(message: ModelRequest) -> list[JSON]:
    out: list[JSON] = []
    for part in message.parts:
        if isinstance(part, SystemPromptPart):
            out.append({"role": "system", "content": part.content})
        elif isinstance(part, UserPromptPart):
            content = part.content if isinstance(part.content, str) else str(part.content)
            out.append({"role": "user", "content": content})
        elif isinstance(part, ToolReturnPart):
            content = part.model_response_str()
            out.append({"role": "tool", "tool_call_id": part.tool_call_id, "content": content})
        elif isinstance(part, RetryPromptPart):
            role = "tool" if part.tool_name else "user"
            out.append(
                {"role": role, "tool_call_id": part.tool_call_id, "content": part.model_response()}
            )
    return out


def _response_message(message: ModelResponse) -> JSON:
    text = "".join(p.content for p in message.parts if isinstance(p, TextPart))
    calls = [
        {
            "id": p.tool_call_id,
            "type": "function",
            "function": {"name": p.tool_name, "arguments": p.args_as_json_str()},
        }
        for p in message.parts
        if isinstance(p, ToolCallPart)
    ]
    out: JSON = {"role": "assistant", "content": text or None}
    if calls:
        out["tool_calls"] = calls
    return out


def to_openai_messages(
    messages: Sequence[ModelMessage], instructions: str | None = None
) -> list[JSON]:
    """A pydantic-ai history as Chat Completions messages (what `Session.call_model` takes)."""
    out: list[JSON] = [{"role": "system", "content": instructions}] if instructions else []
    for message in messages:
        if isinstance(message, ModelRequest):
            out.extend(_request_messages(message))
        else:
            out.append(_response_message(message))
    return out


class SessionModel(FunctionModel):
    """`FunctionModel` whose streamed requests — an agent that handles its event stream streams
    every one — are its requests, replayed as a stream (pydantic-ai's `CompletedStreamedResponse`):
    `FunctionModel`'s own streaming needs a stream function and estimates the usage itself,
    where each reply's usage is the session's."""

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncIterator[StreamedResponse]:
        response = await self.request(messages, model_settings, model_request_parameters)
        yield CompletedStreamedResponse(
            response, model_request_parameters=model_request_parameters, replay_events=True
        )


def session_model(
    session: Session, *, turnstile: Turnstile | None = None, agent: str = AGENT
) -> SessionModel:
    """pydantic-ai's own scriptable fake, answered by the session: every request is a step of
    ``agent``'s. With the ``turnstile`` that `session_tools` was given, each reply's calls of the
    scenario's tools go through it in the reply's order. It answers on the event loop, where
    `FunctionModel` would answer a plain function on the executor's threads: agents that run at
    once (the workers of a lead's delegations) would reach the session in the order the threads
    were scheduled, which varies from run to run."""
    scenario_tools = {spec.name for spec in session.tools}

    async def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        offered = [_chat_tool(t) for t in (*info.function_tools, *info.output_tools)]
        conversation = to_openai_messages(messages, info.instructions)
        reply = session.call_model(conversation, offered, agent=agent)
        calls = reply_to_calls(reply)
        if turnstile is not None:
            turnstile.open(agent, [i for i, name, _ in calls if name in scenario_tools])
        parts: list[ModelResponsePart] = (
            [TextPart(reply["content"])] if reply.get("content") else []
        )
        parts += [
            ToolCallPart(name, arguments, tool_call_id=call_id)
            for call_id, name, arguments in calls
        ]
        return ModelResponse(parts=parts, usage=_priced(session, reply), model_name=FAKE_MODEL)

    # Its traces name the fake model as every other framework's traces and requests name it.
    return SessionModel(respond, model_name=FAKE_MODEL)


def _chat_tool(tool: ToolDefinition) -> JSON:
    """The tool as pydantic-ai's Chat Completions models send it (``_map_tool_definition``), so
    that a step is charged the definition the framework sends, as on the wire."""
    function = {
        "name": tool.name,
        "description": tool.description or "",
        "parameters": tool.parameters_json_schema,
    }
    return {"type": "function", "function": function}


def _priced(session: Session, reply: JSON) -> RequestUsage:
    """The reply's usage at the scenario's prices: pydantic-ai prices a response by its model's
    name, which it cannot for this one, and a ``cost_limit`` would then never be reached."""
    usage = reply_usage(reply)
    cost = session.pricing.cost(usage.input_tokens, usage.output_tokens)
    return RequestUsage(
        input_tokens=usage.input_tokens, output_tokens=usage.output_tokens, cost=Decimal(str(cost))
    )


def session_tools(
    session: Session, *, turnstile: Turnstile | None = None, agent: str = AGENT
) -> list[Tool[Any]]:
    """The scenario's tools as pydantic-ai tools (JSON schemas passed through), their calls
    ``agent``'s; with a ``turnstile`` (the one `session_model` was given), each call waits its
    turn there."""
    return [_tool(session, spec, turnstile, agent) for spec in session.tools]


def _tool(session: Session, spec: ToolSpec, turnstile: Turnstile | None, agent: str) -> Tool[Any]:
    call = bind_tool(session, spec.name, agent=agent)
    schema = dict(spec.parameters)
    if turnstile is None:
        return Tool.from_schema(call, spec.name, spec.description, schema)

    async def in_turn(ctx: RunContext[Any], **arguments: Any) -> str:
        """Waits on the event loop, not on a worker thread, so no call ahead of it is left
        without a thread to run on."""
        async with turnstile.aturn(agent, ctx.tool_call_id):
            return call(**arguments)

    return Tool.from_schema(in_turn, spec.name, spec.description, schema, takes_ctx=True)


@dataclass(frozen=True, kw_only=True)
class AgentBindings:
    """What a ``per_agent=True`` builder is handed: each agent's own model and tools, by name.

    >>> def build(bind: AgentBindings) -> Agent:                          # doctest: +SKIP
    ...     worker = Agent(bind.model("worker"), tools=bind.tools("worker"))
    ...
    ...     async def delegate(ctx: RunContext, subtask: str) -> str:
    ...         return (await worker.run(subtask, usage=ctx.usage)).output
    ...
    ...     return Agent(bind.model("main"), tools=[delegate])
    """

    session: Session
    turnstile: Turnstile = field(default_factory=Turnstile)
    """Every agent's: each agent's replies open their calls under its own name."""

    def model(self, agent: str) -> SessionModel:
        """A model whose every request is a step of ``agent`` (``main`` is the session's
        default: the supervisor, for the fan-out scripts)."""
        return session_model(self.session, turnstile=self.turnstile, agent=agent)

    def tools(self, agent: str) -> list[Tool[Any]]:
        """The scenario's tools, their calls ``agent``'s."""
        return session_tools(self.session, turnstile=self.turnstile, agent=agent)
