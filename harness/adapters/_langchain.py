"""Consumes a session, produces the LangChain chat model and tools a LangGraph graph runs on: each
model call a step of the session (of one agent's, for a multi-agent graph), each tool a scenario
tool, the calls of each reply reaching the session in the reply's order (`Turnstile`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from unsolvable._session import Session
from unsolvable.adapters._turnstile import Turnstile
from unsolvable.adapters.kit import (
    FAKE_MODEL,
    bind_tool,
    missing_extra,
    reply_to_calls,
    reply_usage,
)

try:
    from langchain_core.language_models.chat_models import BaseChatModel
    from langchain_core.messages import AIMessage, BaseMessage, ToolCall, convert_to_openai_messages
    from langchain_core.outputs import ChatGeneration, ChatResult
    from langchain_core.runnables import Runnable, RunnableConfig
    from langchain_core.tools import BaseTool, StructuredTool
    from langchain_core.utils.function_calling import convert_to_openai_tool
    from pydantic import Field
except ModuleNotFoundError as error:  # pragma: no cover - only without the extra
    raise ImportError(missing_extra("langgraph", "langgraph")) from error

__all__ = ["AgentBindings", "SessionChatModel", "session_tools"]

TOOL_RESULT_KEYS = frozenset({"role", "content", "tool_call_id"})
"""What ``ChatOpenAI`` keeps of a tool result it sends (``_convert_message_to_dict``)."""


class SessionChatModel(BaseChatModel):
    """A LangChain chat model answered by the session's scripted model: every call is a step.

    Unlike langchain_core's fake chat models it binds tools and never runs out.

    >>> model = SessionChatModel(session=session)                       # doctest: +SKIP
    >>> create_react_agent(model, session_tools(session))               # doctest: +SKIP
    """

    session: Any
    """The `Session` (typed loosely: pydantic would otherwise try to validate it)."""
    agent: str = "main"
    """The agent of a multi-agent graph whose steps this model makes (`AgentBindings`)."""
    turnstile: Any = None
    """The `Turnstile` that puts the tool calls of each reply in the reply's order, shared with
    the tools of `session_tools` (typed loosely, as ``session`` is); ``None``: no order."""
    model_name: str = FAKE_MODEL
    """The model LangChain's tracing names for each call (``ls_model_name``), where
    ``ChatOpenAI`` names its model: the fake model, as every other framework's traces name it."""
    ordered_tools: frozenset[str] = Field(default=frozenset(), repr=False)
    """The names of the bound tools whose calls wait their turn at ``turnstile``: `bind_tools`
    sets it on the copy it binds, since what it binds shows in the invocation params tracing
    records."""

    @property
    def _llm_type(self) -> str:
        return "unsolvable-session"

    def bind_tools(
        self,
        tools: Sequence[Mapping[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[Any, AIMessage]:
        """Offers ``tools`` on every call; ``tool_choice="none"`` offers none (a final answer).
        Notes which of them are this model's turnstile's: the calls a reply makes of those, and
        only those, reach the turnstile (a tool the graph does not hold never does)."""
        offered = [] if tool_choice == "none" else [convert_to_openai_tool(t) for t in tools]
        ordered = [
            t.name for t in tools if offered and isinstance(t, _SessionTool) and self._orders(t)
        ]
        return self.model_copy(update={"ordered_tools": frozenset(ordered)}).bind(
            tools=offered, **kwargs
        )

    def _orders(self, tool: _SessionTool) -> bool:
        """Whether ``tool``'s calls wait their turn at this model's turnstile."""
        return (
            self.turnstile is not None
            and tool.turnstile is self.turnstile
            and tool.agent == self.agent
        )

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        history = [_as_sent(message) for message in convert_to_openai_messages(messages)]
        reply = self.session.call_model(history, kwargs.get("tools") or (), agent=self.agent)
        usage = reply_usage(reply)
        calls = reply_to_calls(reply)
        if self.turnstile is not None:
            ordered = self.ordered_tools
            self.turnstile.open(self.agent, [i for i, n, _ in calls if n in ordered])
        message = AIMessage(
            content=reply.get("content") or "",
            tool_calls=[{"id": i, "name": n, "args": a, "type": "tool_call"} for i, n, a in calls],
            usage_metadata={
                "input_tokens": usage.input_tokens,
                "output_tokens": usage.output_tokens,
                "total_tokens": usage.input_tokens + usage.output_tokens,
            },
            # As ChatOpenAI names it: LangChain's usage callback counts no reply without it.
            response_metadata={"model_name": FAKE_MODEL},
        )
        return ChatResult(generations=[ChatGeneration(message=message)])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        """The same call, made on the event loop's thread as a natively async chat model
        (``ChatOpenAI``) makes it, not in the executor thread LangChain's default would use."""
        return self._generate(messages, stop, **kwargs)


def _as_sent(message: dict[str, Any]) -> dict[str, Any]:
    """``message`` as ``ChatOpenAI`` sends it: a tool result carries no tool name, which the
    Chat Completions API does not take, so it costs no tokens of the request either."""
    if message.get("role") != "tool":
        return message
    return {key: value for key, value in message.items() if key in TOOL_RESULT_KEYS}


def session_tools(
    session: Session, *, agent: str = "main", turnstile: Turnstile | None = None
) -> list[BaseTool]:
    """The scenario's tools as LangChain tools; a tool that raises raises in the graph too.
    ``agent`` names the sub-agent that holds them (see `bind_tool`). With the ``turnstile`` of
    a `SessionChatModel`, the calls of each of its replies reach the session in the reply's
    order, however concurrently the graph runs them."""
    tools: list[BaseTool] = []
    for spec in session.tools:
        call = bind_tool(session, spec.name, agent=agent)
        tools.append(
            _SessionTool(
                name=spec.name,
                description=spec.description,
                args_schema=spec.parameters,
                func=call,
                coroutine=_awaitable(call),
                turnstile=turnstile,
                agent=agent,
            )
        )
    return tools


class _SessionTool(StructuredTool):
    """A scenario tool whose calls wait their turn (`Turnstile`) before they run: ``ToolNode``
    hands every tool the whole tool call, its id with it, so the turn is known exactly."""

    turnstile: Turnstile | None = None
    agent: str = "main"

    def invoke(
        self,
        input: str | dict[str, Any] | ToolCall,
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> Any:
        if self.turnstile is None:
            return super().invoke(input, config, **kwargs)
        with self.turnstile.turn(self.agent, _call_id(input)):
            return super().invoke(input, config, **kwargs)

    async def ainvoke(
        self,
        input: str | dict[str, Any] | ToolCall,
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> Any:
        if self.turnstile is None:
            return await super().ainvoke(input, config, **kwargs)
        async with self.turnstile.aturn(self.agent, _call_id(input)):
            return await super().ainvoke(input, config, **kwargs)


def _call_id(tool_input: object) -> str | None:
    """The id of a tool call handed whole (as ``ToolNode`` hands it); ``None`` for bare
    arguments."""
    if isinstance(tool_input, dict) and tool_input.get("type") == "tool_call":
        call_id = tool_input.get("id")
        return call_id if isinstance(call_id, str) else None
    return None


def _awaitable(call: Callable[..., str]) -> Callable[..., Awaitable[str]]:
    """``call`` as the coroutine a graph run with ``astream`` awaits, on the loop's thread as an
    async tool runs, rather than in the executor thread a sync-only tool is sent to."""

    async def acall(**arguments: Any) -> str:
        return call(**arguments)

    return acall


@dataclass(frozen=True, kw_only=True)
class AgentBindings:
    """What a ``per_agent=True`` builder is handed: each agent's own chat model and tools.

    >>> def build(bind: AgentBindings):                                   # doctest: +SKIP
    ...     worker = create_agent(bind.model("worker-1"), bind.tools("worker-1"))
    ...     return create_agent(bind.model("main"), [as_tool(worker)])
    """

    session: Session
    turnstile: Turnstile | None = None
    """What puts each reply's tool calls in the reply's order (see `session_tools`)."""

    def model(self, agent: str) -> SessionChatModel:
        """A chat model whose every call is a step of ``agent`` (``main``: the supervisor, for
        the fan-out scripts)."""
        return SessionChatModel(session=self.session, agent=agent, turnstile=self.turnstile)

    def tools(self, agent: str) -> list[BaseTool]:
        """The scenario's tools, their results fed to ``agent``'s next model call."""
        return session_tools(self.session, agent=agent, turnstile=self.turnstile)
