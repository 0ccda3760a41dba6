r"""Consumes a session, produces the LLM and tools a LlamaIndex agent workflow runs on: its own
scriptable fake, `MockFunctionCallingLLM`, every chat a step of the session, and the scenario's
tools as `FunctionTool`\ s."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from unsolvable._session import Session
from unsolvable._types import JSON, ToolSpec
from unsolvable.adapters.kit import (
    FAKE_MODEL,
    ToolCaller,
    bind_tool,
    missing_extra,
    reply_to_calls,
    reply_usage,
)

try:
    from llama_index.core.base.llms.types import (
        ChatMessage,
        ChatResponse,
        ChatResponseAsyncGen,
        ChatResponseGen,
        LLMMetadata,
        MessageRole,
        TextBlock,
        ToolCallBlock,
    )
    from llama_index.core.llms.callbacks import llm_chat_callback
    from llama_index.core.llms.mock import MockFunctionCallingLLM
    from llama_index.core.tools import BaseTool, FunctionTool
    from pydantic import BaseModel, ConfigDict, PrivateAttr
except ModuleNotFoundError as error:  # pragma: no cover - only without the extra
    raise ImportError(missing_extra("llamaindex", "llamaindex")) from error

__all__ = [
    "CONTEXT_WINDOW",
    "AgentBindings",
    "Calls",
    "SessionLLM",
    "block_text",
    "openai_message",
    "session_llm",
    "session_tools",
    "to_openai_messages",
]

CONTEXT_WINDOW = 128_000
"""The context window the fake reports, that of the OpenAI models LlamaIndex's OpenAI LLM knows
(gpt-4o, gpt-4o-mini). LlamaIndex's default memory keeps 75% of the window: at the mock's own
3,900 it would drop a run's early messages after a few steps, which no production agent does."""
Respond = Callable[..., ChatResponse]
"""The session's answer to one chat: ``(messages, **kwargs)`` in, as LlamaIndex calls an LLM."""


class SessionLLM(MockFunctionCallingLLM):
    """LlamaIndex's own scriptable function-calling fake, with a production-sized context
    window, answered by ``respond``: every chat, streamed or not, sync or async, is one step and
    one LLM event. Build it with `session_llm`."""

    _respond: Respond = PrivateAttr()

    def __init__(self, respond: Respond) -> None:
        super().__init__()
        self._respond = respond

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(
            context_window=CONTEXT_WINDOW,
            is_chat_model=True,
            is_function_calling_model=True,
            model_name=FAKE_MODEL,
        )

    @llm_chat_callback()
    def chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        return self._respond(messages, **kwargs)

    @llm_chat_callback()
    async def achat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        # Not the mock's achat, which calls its chat: two LLM events for one step, counted twice.
        return self._respond(messages, **kwargs)

    @llm_chat_callback()
    def stream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponseGen:
        return _streamed(self._respond(messages, **kwargs))

    @llm_chat_callback()
    async def astream_chat(
        self, messages: Sequence[ChatMessage], **kwargs: Any
    ) -> ChatResponseAsyncGen:
        return _astreamed(self._respond(messages, **kwargs))


def _streamed(response: ChatResponse) -> ChatResponseGen:
    """The reply as one chunk, which is the last, so it carries the usage."""
    yield response.model_copy(update={"delta": response.message.content or ""})


async def _astreamed(response: ChatResponse) -> ChatResponseAsyncGen:
    for chunk in _streamed(response):
        yield chunk


@dataclass
class Calls:
    last_forced: bool = False
    """The run's last model call was offered no tools, LlamaIndex's ``generate`` early stop, so
    the answer the run returned is forced: a worker's forced answer, an earlier call, is only
    its report to the agent that ran it."""


def block_text(message: ChatMessage) -> str:
    """The text of a message, its tool calls aside."""
    return "".join(b.text for b in message.blocks if isinstance(b, TextBlock))


def openai_message(message: ChatMessage) -> JSON:
    """One LlamaIndex chat message as a Chat Completions message."""
    role = message.role.value if isinstance(message.role, MessageRole) else str(message.role)
    out: JSON = {"role": role, "content": block_text(message)}
    calls = [b for b in message.blocks if isinstance(b, ToolCallBlock)]
    if calls:
        out["tool_calls"] = [
            {
                "id": c.tool_call_id,
                "type": "function",
                "function": {"name": c.tool_name, "arguments": json.dumps(c.tool_kwargs)},
            }
            for c in calls
        ]
    if "tool_call_id" in message.additional_kwargs:
        out["tool_call_id"] = str(message.additional_kwargs["tool_call_id"])
    return out


def to_openai_messages(messages: Sequence[ChatMessage]) -> list[JSON]:
    """A LlamaIndex chat history as Chat Completions messages (what `Session.call_model` takes)."""
    return [openai_message(m) for m in messages]


def session_llm(session: Session, calls: Calls | None = None, *, agent: str = "main") -> SessionLLM:
    """The fake, answered by the session: every chat is a step of ``agent``'s, its response
    carrying the session's usage where LlamaIndex's OpenAI LLM puts the API's. A chat offered no
    tools at all is LlamaIndex asking for its forced final answer, and ``calls`` notes whether the
    run's last chat was one."""
    tally = calls or Calls()

    def respond(messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        tally.last_forced = "tools" not in kwargs
        # as LlamaIndex's OpenAI LLM sends them, so that a step is charged what it sends
        offered = [
            t.metadata.to_openai_tool(skip_length_check=True) for t in kwargs.get("tools") or ()
        ]
        reply = session.call_model(to_openai_messages(messages), offered, agent=agent)
        blocks: list[Any] = [TextBlock(text=reply["content"])] if reply.get("content") else []
        blocks += [
            ToolCallBlock(tool_call_id=call_id, tool_name=name, tool_kwargs=arguments)
            for call_id, name, arguments in reply_to_calls(reply)
        ]
        return ChatResponse(
            message=ChatMessage(role=MessageRole.ASSISTANT, blocks=blocks),
            raw=reply,
            additional_kwargs=reply_usage(reply).to_openai(),
        )

    return SessionLLM(respond)


def _arguments_model(spec: ToolSpec) -> type[BaseModel]:
    """A ``fn_schema`` that describes the tool with the scenario's own JSON schema."""
    parameters = dict(spec.parameters)

    class Arguments(BaseModel):
        model_config = ConfigDict(extra="allow")

        @classmethod
        def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
            return parameters

    return Arguments


def session_tools(session: Session, *, agent: str = "main") -> list[BaseTool]:
    """The scenario's tools as LlamaIndex `FunctionTool`s that an agent awaits on the loop, not
    in the executor where ``FunctionTool.from_defaults`` runs a sync function: the fake tool
    answers at once, and the calls of one reply, which a workflow runs at once, would reach the
    world in the order the executor's threads were scheduled, which varies from run to run.
    What a tool raises goes through LlamaIndex's own path: the agent hands the error text to the
    model and goes on. ``agent`` names the agent that holds them (see `bind_tool`)."""
    return [_tool(spec, bind_tool(session, spec.name, agent=agent)) for spec in session.tools]


def _tool(spec: ToolSpec, call: ToolCaller) -> BaseTool:
    async def on_the_loop(**arguments: Any) -> str:
        return call(**arguments)

    return FunctionTool.from_defaults(
        fn=call,
        async_fn=on_the_loop,
        name=spec.name,
        description=spec.description,
        fn_schema=_arguments_model(spec),
    )


@dataclass(frozen=True, kw_only=True)
class AgentBindings:
    """What a ``per_agent=True`` builder is handed: each agent's own LLM and tools, by name.

    >>> def build(bind: AgentBindings) -> AgentWorkflow:                  # doctest: +SKIP
    ...     producer = FunctionAgent(name="producer", llm=bind.llm("producer"),
    ...                              tools=bind.tools("producer"))
    ...     reviewer = FunctionAgent(name="reviewer", llm=bind.llm("reviewer"),
    ...                              tools=bind.tools("reviewer"), can_handoff_to=["producer"])
    ...     return AgentWorkflow([reviewer, producer], root_agent="reviewer")
    """

    session: Session
    calls: Calls = field(default_factory=Calls)
    """Every agent's LLM's: whether the run's last chat, whichever agent's, was forced."""

    def llm(self, agent: str) -> SessionLLM:
        """An LLM whose every chat is a step of ``agent`` (``main`` is the session's default:
        the supervisor, for the fan-out scripts)."""
        return session_llm(self.session, self.calls, agent=agent)

    def tools(self, agent: str) -> list[BaseTool]:
        """The scenario's tools, their calls ``agent``'s."""
        return session_tools(self.session, agent=agent)
