"""Consumes an AutoGen AgentChat team or agent builder, produces a run on a session — every model
call through autogen-ext's `OpenAIChatCompletionClient` on the fake model's wire (Chat
Completions) — and the `Stop` read from its `TaskResult`.

AgentChat never raises at a limit: it returns ``TaskResult(messages, stop_reason)``, read into the
vocabulary as follows:

- A termination condition's ``stop_reason``: `MaxMessageTermination` and a team's ``max_turns``
  → ``exhausted``/``BUDGET_STEPS``; `TokenUsageTermination` → ``BUDGET_COST``;
  `TimeoutTermination` → ``BUDGET_TIME``; `HandoffTermination` (a handoff to the user) →
  ``abandoned``/``NEEDS_HUMAN``. Every other condition (`TextMentionTermination("TERMINATE")`,
  `StopMessageTermination`, `TextMessageTermination`, …) fires on what an agent *said*:
  ``complete``/``COMPLETED`` as the agent's claim, which the verdict checks against the world.
- A team with no condition and no ``max_turns`` never stops by itself: it runs into the harness
  ceiling (``did_not_stop``).
- A single agent's run (no ``stop_reason``) ends with its response. A `ToolCallSummaryMessage`
  means its tool loop spent ``max_tool_iterations`` (default 1) and handed back the tool results:
  ``exhausted``/``BUDGET_STEPS``. A text answer is the claim — also the one AutoGen forces with no
  tools offered after ``max_tool_iterations`` when ``reflect_on_tool_use`` is on: AutoGen does not
  flag it, so neither does the record, and the verdict checks it.
- A final `StructuredMessage` whose content has a ``code`` is read as that `Stop`.
"""

from __future__ import annotations

import asyncio
import functools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from unsolvable._errors import AdapterError
from unsolvable._record import Code, Stop
from unsolvable._session import Session
from unsolvable._types import JSON, ToolSpec
from unsolvable.adapters.base import interpret_plain
from unsolvable.adapters.kit import (
    FAKE_MODEL,
    ToolCaller,
    as_mapping,
    bind_tool,
    missing_extra,
    partial_from_messages,
)
from unsolvable.wire import Wire

try:
    from autogen_agentchat.agents import AssistantAgent
    from autogen_agentchat.base import TaskResult
    from autogen_agentchat.messages import (
        BaseAgentEvent,
        BaseChatMessage,
        HandoffMessage,
        StructuredMessage,
        TextMessage,
        ToolCallExecutionEvent,
        ToolCallRequestEvent,
        ToolCallSummaryMessage,
    )
    from autogen_agentchat.teams import RoundRobinGroupChat
    from autogen_core import CancellationToken
    from autogen_core.models import ChatCompletionClient, ModelInfo
    from autogen_core.tools import BaseTool, ParametersSchema, ToolSchema
    from autogen_ext.models.openai import OpenAIChatCompletionClient
    from pydantic import BaseModel, ConfigDict
except ModuleNotFoundError as error:  # pragma: no cover - only without the extra
    raise ImportError(missing_extra("autogen", "autogen")) from error

__all__ = [
    "MODEL_INFO",
    "AutoGenAdapter",
    "AutoGenRun",
    "adapter",
    "default_team",
    "session_model_client",
    "session_tools",
]

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
STOP_CODES = (
    (re.compile(r"Maximum number of messages \d+ reached"), Code.BUDGET_STEPS),
    (re.compile(r"Maximum number of turns \d+ reached"), Code.BUDGET_STEPS),
    (re.compile(r"Token usage limit reached"), Code.BUDGET_COST),
    (re.compile(r"Timeout of [\d.]+ seconds reached"), Code.BUDGET_TIME),
    (re.compile(r"Handoff to \S+ from \S+ detected"), Code.NEEDS_HUMAN),
)
"""The stop reasons of AgentChat 0.7's limit conditions (``autogen_agentchat.conditions``) and of
a team's ``max_turns``; conditions joined with ``|`` join their reasons with ", ", so each is
searched for, in this order (a step count before tokens before time)."""

CEILING_POLL_SECONDS = 0.02
"""How often the run checks whether the harness ended it: well inside the 0.5 s the harness
gives an agent to unwind after a ceiling."""


class _Arguments(BaseModel):
    """A tool's arguments as the model sent them: the scenario's tool checks them itself."""

    model_config = ConfigDict(extra="allow")


class SessionTool(BaseTool[_Arguments, BaseModel]):
    """A scenario tool as an AutoGen tool, its JSON schema passed through. It runs the way
    `FunctionTool` runs a sync function — in the loop's default executor, cancellable — and lets
    what the tool raises through, so the workbench's default (the error text as the tool result,
    the run going on) decides what the model sees."""

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
        call = functools.partial(self._call, **args.model_dump())
        future = asyncio.get_running_loop().run_in_executor(None, call)
        cancellation_token.link_future(future)
        return await future


def session_tools(session: Session) -> list[BaseTool[Any, Any]]:
    """The scenario's tools as AutoGen tools."""
    return [SessionTool(spec, bind_tool(session, spec.name)) for spec in session.tools]


def session_model_client(wire: Wire) -> OpenAIChatCompletionClient:
    """autogen-ext's OpenAI client, every request answered by ``wire`` (its retries kept)."""
    # Every AsyncOpenAI keyword passes through (`openai_init_kwargs`); its TypedDict omits some.
    return OpenAIChatCompletionClient(  # type: ignore[call-arg]
        model=FAKE_MODEL,
        api_key="unsolvable-fake-key",
        http_client=wire.httpx2_async_client(),
        model_info=MODEL_INFO,
    )


class TaskRunner(Protocol):
    """A team or an agent: what ``build`` returns (AgentChat's own ``TaskRunner``)."""

    async def run(self, *, task: str, cancellation_token: CancellationToken) -> TaskResult: ...


TeamBuilder = Callable[[ChatCompletionClient, list[BaseTool[Any, Any]]], TaskRunner]


def default_team(model_client: ChatCompletionClient, tools: list[BaseTool[Any, Any]]) -> Any:
    """The smallest AgentChat team: one `AssistantAgent` at its defaults taking turns in a
    `RoundRobinGroupChat` with no termination condition — AgentChat's own default, which never
    stops by itself."""
    assistant = AssistantAgent("assistant", model_client=model_client, tools=[*tools])
    return RoundRobinGroupChat([assistant])


@dataclass(frozen=True, kw_only=True)
class AutoGenRun:
    """What one ``run(task=…)`` returned."""

    result: TaskResult


class AutoGenAdapter:
    """Runs the team or agent made by ``build(model_client, tools)`` on the session's task, on an
    event loop of its own; ``model_client`` is autogen-ext's `OpenAIChatCompletionClient` on the
    wire. Its limits are its termination conditions (``termination_condition=`` of a team), a
    team's ``max_turns`` and an agent's ``max_tool_iterations``: the adapter adds none.

    >>> AutoGenAdapter(lambda client, tools: RoundRobinGroupChat(
    ...     [AssistantAgent("a", model_client=client, tools=tools)],
    ...     termination_condition=MaxMessageTermination(10)))              # doctest: +SKIP
    """

    def __init__(
        self,
        build: TeamBuilder = default_team,
        *,
        wire: Mapping[str, Any] | None = None,
        name: str = "autogen",
    ) -> None:
        if not callable(build):
            raise AdapterError(
                f"AutoGenAdapter(build={build!r}): pass a callable build(model_client, tools) "
                "returning a team or an agent, e.g. lambda c, t: RoundRobinGroupChat("
                "[AssistantAgent('a', model_client=c, tools=t)], termination_condition=...)"
            )
        self.build, self.wire_options, self.name = build, dict(wire or {}), name

    def run(self, session: Session) -> AutoGenRun:
        with Wire(session, **self.wire_options) as wire:
            client = session_model_client(wire)
            runner = self.build(client, session_tools(session))
            result = asyncio.run(_run(runner, client, session))
        if not isinstance(result, TaskResult):
            raise AdapterError(f"AutoGen returned {type(result).__name__}, not a TaskResult")
        return AutoGenRun(result=result)

    def interpret(self, returned: object, error: BaseException | None) -> Stop | None:
        if error is not None or not isinstance(returned, AutoGenRun):
            return None
        result = returned.result
        partial = partial_from_messages(_messages(result.messages))
        last = result.messages[-1] if result.messages else None
        if result.stop_reason is not None:
            return _stopped(result.stop_reason, last, partial)
        if isinstance(last, ToolCallSummaryMessage):
            reason = (
                "AutoGen: the agent spent max_tool_iterations and answered with its tool "
                f"results: {last.content:.100}"
            )
            return Stop(code=Code.BUDGET_STEPS, reason=reason, partial=partial)
        return _claim(last, partial)


async def _run(runner: TaskRunner, client: ChatCompletionClient, session: Session) -> TaskResult:
    """Runs the task with a cancellation token that a harness ceiling cancels: AgentChat's
    runtime logs an exception that is not an `Exception` (`CeilingHit`) and waits on, so a team
    would otherwise sit until the wall ceiling (10 s) after its step ceiling."""
    token = CancellationToken()
    watch = asyncio.create_task(_cancel_at_ceiling(session, token))
    try:
        return await runner.run(task=session.task, cancellation_token=token)
    finally:
        watch.cancel()
        await client.close()


async def _cancel_at_ceiling(session: Session, token: CancellationToken) -> None:
    while session.ceiling is None:
        await asyncio.sleep(CEILING_POLL_SECONDS)
    token.cancel()


def _stopped(stop_reason: str, last: object, partial: JSON) -> Stop:
    """A team's stop: a limit condition is a budget; any other condition fired on what an agent
    said, which is the claim the verdict checks."""
    for pattern, code in STOP_CODES:
        if pattern.search(stop_reason):
            missing = (last.target,) if isinstance(last, HandoffMessage) else ()
            reason = f"AutoGen: {stop_reason}"
            return Stop(code=code, reason=reason, partial=partial, missing=missing)
    return _claim(last, partial, stop_reason)


def _claim(last: object, partial: JSON, stop_reason: str | None = None) -> Stop:
    if isinstance(last, StructuredMessage):
        stop = interpret_plain(as_mapping(last.content))
        if stop is not None:
            return stop
    text = last.to_text() if isinstance(last, BaseChatMessage) else ""
    why = f" ({stop_reason})" if stop_reason else ""
    return Stop(code=Code.COMPLETED, reason=f"final answer{why}: {text}"[:200], partial=partial)


def _messages(messages: Sequence[BaseAgentEvent | BaseChatMessage]) -> list[JSON]:
    """The run's messages as Chat Completions messages: what the model said and called, what the
    tools answered; the summaries of tool results are left out (they repeat them)."""
    out: list[JSON] = []
    for message in messages:
        if isinstance(message, ToolCallRequestEvent):
            calls = [{"function": {"name": call.name}} for call in message.content]
            out.append({"role": "assistant", "content": "", "tool_calls": calls})
        elif isinstance(message, ToolCallExecutionEvent):
            out.extend({"role": "tool", "content": r.content} for r in message.content)
        elif isinstance(message, TextMessage | StructuredMessage | HandoffMessage):
            role = "user" if message.source == "user" else "assistant"
            out.append({"role": role, "content": message.to_text()})
    return out


adapter = AutoGenAdapter()
"""The registered ``autogen`` agent: `default_team` (``unsolvable run --agent autogen``)."""
