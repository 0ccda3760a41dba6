"""Consumes a session and its wire, produces the model clients and tools an AgentChat team runs
on: autogen-ext's OpenAI client answered by the wire, each of its calls a step of the session
(of one agent's, with ``per_agent``), and the scenario's tools as AutoGen tools; both ended by
AgentChat's own cancellation at a harness ceiling."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Iterator
from dataclasses import dataclass, field
from typing import Any

from unsolvable._errors import CeilingHit
from unsolvable._session import Session
from unsolvable._types import ToolSpec
from unsolvable.adapters.kit import FAKE_MODEL, ToolCaller, bind_tool, missing_extra
from unsolvable.wire import Wire
from unsolvable.wire._clients import probe_platform

try:
    from autogen_core import CancellationToken
    from autogen_core.models import CreateResult, ModelInfo
    from autogen_core.tools import BaseTool, ParametersSchema, ToolSchema
    from autogen_ext.models.openai import OpenAIChatCompletionClient
    from pydantic import BaseModel, ConfigDict
except ModuleNotFoundError as error:  # pragma: no cover - only without the extra
    raise ImportError(missing_extra("autogen", "autogen")) from error

__all__ = ["MODEL_INFO", "AgentBindings", "SessionTool", "session_model_client", "session_tools"]

MODEL_INFO = ModelInfo(
    vision=False,
    function_calling=True,
    json_output=True,
    family="unknown",
    structured_output=True,
    multiple_system_messages=True,
)
"""What the client is told about the fake model: it calls tools, as the scripts need. A model
name AutoGen does not know needs this, and keeps the client from warning that the name the wire
answers with is not the one it resolved."""


class _Arguments(BaseModel):
    """A tool's arguments as the model sent them: the scenario's tool checks them itself."""

    model_config = ConfigDict(extra="allow")


class SessionTool(BaseTool[_Arguments, BaseModel]):
    """A scenario tool as an AutoGen tool, its JSON schema passed through. It runs on the loop,
    not in the executor where `FunctionTool` runs a sync function: the fake tool answers at once,
    and the calls of one reply, which AgentChat runs at once, would reach the world in the order
    the executor's threads were scheduled, which varies from run to run. It lets what the tool
    raises through, so the workbench's default (the error text as the tool result, the run going
    on) decides what the model sees."""

    def __init__(self, spec: ToolSpec, call: ToolCaller) -> None:
        # `FunctionTool` passes a function's return annotation (``str``) here too.
        super().__init__(_Arguments, str, spec.name, spec.description)  # type: ignore[arg-type]
        self._spec, self._call = spec, call

    @property
    def schema(self) -> ToolSchema:
        parameters = self._spec.parameters
        return ToolSchema(
            name=self._spec.name,
            description=self._spec.description,
            parameters=ParametersSchema(
                type="object",
                properties=dict(parameters.get("properties") or {}),
                required=list(parameters.get("required") or ()),
                additionalProperties=bool(parameters.get("additionalProperties", False)),
            ),
            strict=False,
        )

    async def run(self, args: _Arguments, cancellation_token: CancellationToken) -> Any:
        """The tool's text, as `FunctionTool` returns a sync function's value (typed ``Any``:
        AutoGen's generic says `BaseModel`, its own tools return plain values)."""
        with _cancelled_at_a_ceiling(cancellation_token):
            return self._call(**args.model_dump())


@contextlib.contextmanager
def _cancelled_at_a_ceiling(token: CancellationToken | None) -> Iterator[None]:
    """A harness ceiling reached inside a model or tool call ends the run as AgentChat's own
    cancellation does: the run's token cancelled, and `asyncio.CancelledError` raised where the
    call's linked future would raise it. A `CeilingHit` let through would end the task that
    `AssistantAgent` runs its tool calls in with an exception nothing awaits (the agent waits on
    that task's queue, and is cancelled), which asyncio reports on stderr at shutdown. A call
    given no token (a `SelectorGroupChat`'s speaker selection) lets it through."""
    try:
        yield
    except CeilingHit as hit:
        if token is None:
            raise
        token.cancel()
        raise asyncio.CancelledError(str(hit)) from None


class _SessionModelClient(OpenAIChatCompletionClient):
    """autogen-ext's OpenAI client, its calls ended at a harness ceiling by cancellation."""

    async def create(self, *args: Any, **kwargs: Any) -> CreateResult:
        with _cancelled_at_a_ceiling(kwargs.get("cancellation_token")):
            return await super().create(*args, **kwargs)

    async def create_stream(
        self, *args: Any, **kwargs: Any
    ) -> AsyncGenerator[str | CreateResult, None]:
        with _cancelled_at_a_ceiling(kwargs.get("cancellation_token")):
            async for chunk in super().create_stream(*args, **kwargs):
                yield chunk


def session_tools(session: Session, *, agent: str = "main") -> list[BaseTool[Any, Any]]:
    """The scenario's tools as AutoGen tools; ``agent`` names the sub-agent that holds them (see
    `bind_tool`)."""
    return [SessionTool(spec, bind_tool(session, spec.name, agent=agent)) for spec in session.tools]


def session_model_client(
    wire: Wire, *, agent: str | None = None, **options: Any
) -> OpenAIChatCompletionClient:
    """autogen-ext's OpenAI client, every request answered by ``wire`` (its retries kept); with
    ``agent``, its calls are that sub-agent's steps. ``options`` go to the client
    (``parallel_tool_calls=False``, say)."""
    # Every AsyncOpenAI keyword passes through (`openai_init_kwargs`); its TypedDict omits some.
    client = _SessionModelClient(  # type: ignore[call-arg]
        model=FAKE_MODEL,
        api_key="unsolvable-fake-key",
        http_client=wire.httpx2_async_client(agent=agent),
        model_info=MODEL_INFO,
        **options,
    )
    probe_platform(client._client)  # autogen-ext keeps its AsyncOpenAI there, with no accessor
    return client


@dataclass(frozen=True, kw_only=True)
class AgentBindings:
    """What a ``per_agent=True`` builder is handed: each agent's own model client and tools.

    >>> def build(bind: AgentBindings):                                   # doctest: +SKIP
    ...     worker = AssistantAgent("worker", model_client=bind.model("worker"),
    ...                             tools=bind.tools("worker"))
    ...     lead = AssistantAgent("lead", model_client=bind.model("main"),
    ...                           tools=[AgentTool(worker)])
    ...     return RoundRobinGroupChat([lead], termination_condition=...)
    """

    session: Session
    wire: Wire
    clients: list[OpenAIChatCompletionClient] = field(default_factory=list)
    """The clients handed out, which the run closes when it ends."""

    def model(self, agent: str, **options: Any) -> OpenAIChatCompletionClient:
        """A model client whose every call is a step of ``agent`` (``main``: the supervisor, for
        the fan-out scripts); ``options`` go to autogen-ext's client."""
        client = session_model_client(self.wire, agent=agent, **options)
        self.clients.append(client)
        return client

    def tools(self, agent: str) -> list[BaseTool[Any, Any]]:
        """The scenario's tools, their results fed to ``agent``'s next model call."""
        return session_tools(self.session, agent=agent)
