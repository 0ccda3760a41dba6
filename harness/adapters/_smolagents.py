"""Consumes a session, produces the smolagents model and tools an agent runs on: a `Model` whose
every ``generate`` is a step of the session (of one agent's, with ``per_agent``), and the scenario's
tools as smolagents tools, the calls of each reply reaching the world in the reply's order
(`CallTurns`) though smolagents runs them on its thread pool."""

from __future__ import annotations

import contextlib
import json
import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from unsolvable._json import canonical_json
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
    # smolagents ships no type information (no py.typed): these imports are Any to mypy.
    from smolagents import Tool  # type: ignore[import-untyped]
    from smolagents.models import (  # type: ignore[import-untyped]
        ChatMessage,
        ChatMessageStreamDelta,
        ChatMessageToolCall,
        ChatMessageToolCallFunction,
        ChatMessageToolCallStreamDelta,
        MessageRole,
        Model,
        get_clean_message_list,
        get_tool_json_schema,
        tool_role_conversions,
    )
    from smolagents.monitoring import TokenUsage  # type: ignore[import-untyped]
except ModuleNotFoundError as error:  # pragma: no cover - only without the extra
    raise ImportError(missing_extra("smolagents", "smolagents")) from error

__all__ = ["FINAL_ANSWER_TOOL", "AgentBindings", "CallTurns", "SessionModel", "session_tools"]

AGENT = "main"
"""The session's name for the agent the adapter runs, managed agents included (each agent's own
name with ``per_agent``)."""
FINAL_ANSWER_TOOL = "final_answer"
"""smolagents' built-in tool a tool-calling model calls to finish."""
SCHEMA_TYPES = {"string", "boolean", "integer", "number", "array", "object", "null"}
"""JSON-schema types smolagents accepts as tool input types; anything else becomes ``any``."""


class CallTurns:
    """Lets each reply's calls of the scenario's tools through one at a time, in the reply's
    order (a `Turnstile`), while smolagents runs them on its thread pool. smolagents hands a
    tool no call id, so a call is known by its tool and arguments, and the calls of one reply
    that are alike by their order of arrival: they make the same call of the world either way.

    Give `SessionModel` and `session_tools` the same one; ``close`` it when the run returns.
    """

    def __init__(self) -> None:
        self.turnstile = Turnstile()
        self._lock = threading.Lock()
        self._arrived: dict[str, Counter[str]] = {}
        """The calls of each agent's open reply that reached a tool, by `_call_key`."""

    def open(self, calls: Sequence[tuple[str, JSON]], *, agent: str = AGENT) -> None:
        """A new reply of ``agent``'s, whose ``(name, arguments)`` calls will reach the tools."""
        keys, alike = [], Counter[str]()
        for name, arguments in calls:
            call = _call_key(name, arguments)
            keys.append(f"{call}#{alike[call]}")
            alike[call] += 1
        with self._lock:
            self._arrived[agent] = Counter()
            self.turnstile.open(agent, keys)

    @contextlib.contextmanager
    def turn(self, name: str, arguments: JSON, *, agent: str = AGENT) -> Iterator[None]:
        """Waits until the calls ahead of this one in ``agent``'s reply have gone through."""
        call = _call_key(name, arguments)
        with self._lock:
            arrived = self._arrived.setdefault(agent, Counter())
            index = arrived[call]
            arrived[call] += 1
        with self.turnstile.turn(agent, f"{call}#{index}"):
            yield

    def close(self) -> None:
        """The run ended: no call waits any more."""
        self.turnstile.close()


def _call_key(name: str, arguments: JSON) -> str:
    """A call as the model made it and as the tool gets it: smolagents passes ``None`` for an
    input left out."""
    given = {k: v for k, v in arguments.items() if v is not None}
    return f"{name} {canonical_json(given)}"


class SessionModel(Model):  # type: ignore[misc]
    """A smolagents `Model` answered by the session: every ``generate`` is a step.

    A reply with no tool call while ``final_answer`` is offered becomes a ``final_answer`` call,
    the way tool-calling models answer in a `ToolCallingAgent`. With ``turns`` (the
    `session_tools`' own), each reply's calls of the scenario's tools go through it. Its steps
    are ``agent``'s.
    """

    def __init__(
        self, session: Session, *, turns: CallTurns | None = None, agent: str = AGENT
    ) -> None:
        super().__init__(model_id=FAKE_MODEL)  # as every other framework's requests name it
        self.session, self.turns, self.agent = session, turns, agent
        self._scenario_tools = {spec.name for spec in session.tools}

    def generate(
        self,
        messages: list[ChatMessage | dict[str, Any]],
        stop_sequences: list[str] | None = None,
        response_format: dict[str, str] | None = None,
        tools_to_call_from: list[Tool] | None = None,
        **kwargs: Any,
    ) -> ChatMessage:
        tools = tools_to_call_from or ()
        offered = [tool.name for tool in tools]
        # Each tool charged as smolagents' own API models send it, as the wire charges them.
        sent = [get_tool_json_schema(tool) for tool in tools]
        reply = self.session.call_model(_history(messages), sent, agent=self.agent)
        calls = reply_to_calls(reply)
        if self.turns is not None:
            opened = [(n, a) for _, n, a in calls if n in self._scenario_tools]
            self.turns.open(opened, agent=self.agent)
        if not calls and FINAL_ANSWER_TOOL in offered:
            answer = {"answer": reply["content"]}
            calls = [(f"call_final_{len(messages)}", FINAL_ANSWER_TOOL, answer)]
        usage = reply_usage(reply)
        return ChatMessage(
            role=MessageRole.ASSISTANT,
            content=reply.get("content"),
            tool_calls=[
                ChatMessageToolCall(
                    id=call_id,
                    type="function",
                    function=ChatMessageToolCallFunction(name=name, arguments=arguments),
                )
                for call_id, name, arguments in calls
            ]
            or None,
            token_usage=TokenUsage(
                input_tokens=usage.input_tokens, output_tokens=usage.output_tokens
            ),
        )

    def generate_stream(
        self,
        messages: list[ChatMessage | dict[str, Any]],
        stop_sequences: list[str] | None = None,
        response_format: dict[str, str] | None = None,
        tools_to_call_from: list[Tool] | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatMessageStreamDelta]:
        """`generate`'s step as one streamed delta, for an agent built with
        ``stream_outputs=True``, which smolagents refuses to build on a model without it."""
        message = self.generate(
            messages, stop_sequences, response_format, tools_to_call_from, **kwargs
        )
        calls = [
            ChatMessageToolCallStreamDelta(
                index=index,
                id=call.id,
                type=call.type,
                function=ChatMessageToolCallFunction(
                    name=call.function.name, arguments=json.dumps(call.function.arguments)
                ),
            )
            for index, call in enumerate(message.tool_calls or ())
        ]
        yield ChatMessageStreamDelta(
            content=message.content, tool_calls=calls or None, token_usage=message.token_usage
        )


def _history(messages: list[ChatMessage | dict[str, Any]]) -> list[JSON]:
    """The messages as smolagents' `OpenAIModel` sends them: its own cleaning (tool calls as
    assistant, observations as user), each role by its value and the content as its parts, so a
    step costs the tokens it costs on the wire."""
    clean = get_clean_message_list(
        messages, role_conversions=tool_role_conversions, convert_images_to_image_urls=True
    )
    return [{**m, "role": MessageRole(m["role"]).value} for m in clean]


def _input(name: str, schema: JSON, required: bool) -> JSON:
    kind = schema.get("type")
    spec: JSON = {
        "type": kind if kind in SCHEMA_TYPES else "any",
        "description": str(schema.get("description") or name),
    }
    return spec if required else {**spec, "nullable": True}


def _tool(session: Session, spec: ToolSpec, turns: CallTurns | None, agent: str) -> Tool:
    properties = spec.parameters.get("properties") or {}
    required = set(spec.parameters.get("required") or ())

    call = bind_tool(session, spec.name, agent=agent)

    def forward(self: Tool, **arguments: Any) -> str:
        """smolagents passes ``None`` for an optional input the model left out."""
        given = {k: v for k, v in arguments.items() if v is not None}
        if turns is None:
            return call(**given)
        with turns.turn(spec.name, given, agent=agent):
            return call(**given)

    attributes = {
        "name": spec.name,
        "description": spec.description,
        "inputs": {k: _input(k, v, k in required) for k, v in properties.items()},
        "output_type": "string",
        "skip_forward_signature_validation": True,
        "forward": forward,
    }
    tool: Tool = type(f"SessionTool_{spec.name}", (Tool,), attributes)()
    return tool


def session_tools(
    session: Session, *, turns: CallTurns | None = None, agent: str = AGENT
) -> list[Tool]:
    """The scenario's tools as smolagents tools (JSON-schema inputs passed through), their calls
    ``agent``'s; with ``turns`` (the `SessionModel`'s own), each call waits its turn there."""
    return [_tool(session, spec, turns, agent) for spec in session.tools]


@dataclass(frozen=True, kw_only=True)
class AgentBindings:
    """What a ``per_agent=True`` builder is handed: each agent's own model and tools, by name.

    >>> def build(bind: AgentBindings) -> ToolCallingAgent:               # doctest: +SKIP
    ...     worker = ToolCallingAgent(tools=bind.tools("worker"), model=bind.model("worker"))
    ...     return ToolCallingAgent(tools=[delegate_to(worker)], model=bind.model("main"))
    """

    session: Session
    turns: CallTurns
    """Every agent's: each agent's replies open their calls under its own name."""

    def model(self, agent: str) -> SessionModel:
        """A model whose every call is a step of ``agent`` (``main`` is the session's default:
        the supervisor, for the fan-out scripts)."""
        return SessionModel(self.session, turns=self.turns, agent=agent)

    def tools(self, agent: str) -> list[Tool]:
        """The scenario's tools, their calls ``agent``'s."""
        return session_tools(self.session, turns=self.turns, agent=agent)
