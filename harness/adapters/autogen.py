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
- A single agent's run (no ``stop_reason``) ends with its response. A `HandoffMessage` (its
  ``handoffs=``) passes the task to someone outside the run → ``abandoned``/``NEEDS_HUMAN``,
  naming whom, as `HandoffTermination` does for a team. A `ToolCallSummaryMessage`
  means its tool loop spent ``max_tool_iterations`` (default 1) and handed back the tool results:
  ``exhausted``/``BUDGET_STEPS``. A text answer is the claim — also the one AutoGen forces with no
  tools offered after ``max_tool_iterations`` when ``reflect_on_tool_use`` is on: AutoGen does not
  flag it, so neither does the record, and the verdict checks it.
- A final `StructuredMessage` whose content has a ``code`` is read as that `Stop`.
- A `UserProxyAgent` that reads the console (its default ``input_func``, or ``input``) asks a
  person, whom the harness does not have: the run ends at the ask → ``abandoned``/``NEEDS_HUMAN``,
  naming the agent and its prompt, with the conversation so far, never reading stdin. An
  ``input_func`` of the build's own is its person, and answers as it does.

With ``per_agent=True`` each agent of a multi-agent system (a supervisor, the workers its tools
run, a selector) keeps a model client of its own, bound to its name on the wire, so the record
counts its steps apart (``steps_by_agent``).
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, cast

from unsolvable._errors import AdapterError
from unsolvable._session import Session
from unsolvable._stop import Code, Stop
from unsolvable._types import JSON
from unsolvable.adapters._autogen import (
    MODEL_INFO,
    AgentBindings,
    session_model_client,
    session_tools,
)
from unsolvable.adapters.base import interpret_plain
from unsolvable.adapters.kit import (
    as_mapping,
    check_build_form,
    missing_extra,
    partial_from_messages,
)
from unsolvable.wire import Wire

try:
    from autogen_agentchat.agents import AssistantAgent, UserProxyAgent
    from autogen_agentchat.agents._user_proxy_agent import cancellable_input
    from autogen_agentchat.base import ChatAgent, TaskResult, Team
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
    from autogen_core.models import ChatCompletionClient
    from autogen_core.tools import BaseTool
except ModuleNotFoundError as error:  # pragma: no cover - only without the extra
    raise ImportError(missing_extra("autogen", "autogen")) from error

__all__ = [
    "MODEL_INFO",
    "AgentBindings",
    "AutoGenAdapter",
    "AutoGenRun",
    "adapter",
    "default_team",
    "session_model_client",
    "session_tools",
]

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
"""How often the run checks whether the harness ended it: well inside the second the harness
gives an agent to unwind after a ceiling (`unsolvable._run.GRACE_SECONDS`)."""


class TaskRunner(Protocol):
    """A team or an agent: what ``build`` returns (AgentChat's own ``TaskRunner``)."""

    def run_stream(
        self, *, task: str, cancellation_token: CancellationToken
    ) -> AsyncGenerator[BaseAgentEvent | BaseChatMessage | TaskResult, None]: ...


TeamBuilder = Callable[[ChatCompletionClient, list[BaseTool[Any, Any]]], TaskRunner]
PerAgentBuilder = Callable[[AgentBindings], TaskRunner]


def default_team(model_client: ChatCompletionClient, tools: list[BaseTool[Any, Any]]) -> Any:
    """The smallest AgentChat team: one `AssistantAgent` at its defaults taking turns in a
    `RoundRobinGroupChat` with no termination condition — AgentChat's own default, which never
    stops by itself."""
    assistant = AssistantAgent("assistant", model_client=model_client, tools=[*tools])
    return RoundRobinGroupChat([assistant])


@dataclass(frozen=True, kw_only=True)
class AutoGenRun:
    """What one ``run(task=…)`` returned, or the messages up to the ask it ended at."""

    result: TaskResult
    asked: str | None = None
    """Who asked a person for input, and what, when a console's ask ended the run."""


class AutoGenAdapter:
    """Runs the team or agent made by ``build(model_client, tools)`` on the session's task, on an
    event loop of its own; ``model_client`` is autogen-ext's `OpenAIChatCompletionClient` on the
    wire. Its limits are its termination conditions (``termination_condition=`` of a team), a
    team's ``max_turns`` and an agent's ``max_tool_iterations``: the adapter adds none.
    ``per_agent=True`` makes ``build`` a ``build(bind)`` given `AgentBindings`:
    ``bind.model(name)`` and ``bind.tools(name)`` belong to agent ``name`` (a supervisor, the
    workers its tools run, a `SelectorGroupChat`'s selector).

    >>> AutoGenAdapter(lambda client, tools: RoundRobinGroupChat(
    ...     [AssistantAgent("a", model_client=client, tools=tools)],
    ...     termination_condition=MaxMessageTermination(10)))              # doctest: +SKIP
    """

    def __init__(
        self,
        build: TeamBuilder | PerAgentBuilder = default_team,
        *,
        per_agent: bool = False,
        wire: Mapping[str, Any] | None = None,
        name: str = "autogen",
    ) -> None:
        if isinstance(build, ChatAgent | Team):
            built = f"{type(build).__name__} {build.name!r}"
            raise AdapterError(
                f"AutoGenAdapter(build={built}): {built} holds a model client of its own, "
                "which the wire does not answer; pass a callable that builds it on the client "
                "and tools it is given, e.g. lambda c, t: AssistantAgent('a', model_client=c, "
                "tools=t) (or, with per_agent=True, build(bind), each agent on bind.model(name))"
            )
        if not callable(build):
            raise AdapterError(
                f"AutoGenAdapter(build={build!r:.80}): pass a callable build(model_client, "
                "tools) returning a team or an agent, e.g. lambda c, t: RoundRobinGroupChat("
                "[AssistantAgent('a', model_client=c, tools=t)], termination_condition=...)"
            )
        form = ("model_client", "tools")
        check_build_form(build, per_agent=per_agent, adapter="AutoGenAdapter", arguments=form)
        self.build, self.per_agent = build, per_agent
        self.wire_options, self.name = dict(wire or {}), name

    def run(self, session: Session) -> AutoGenRun:
        with Wire(session, **self.wire_options) as wire:
            bind = AgentBindings(session=session, wire=wire)
            if self.per_agent:
                runner = cast(PerAgentBuilder, self.build)(bind)
            else:
                bind.clients.append(session_model_client(wire))
                runner = cast(TeamBuilder, self.build)(bind.clients[0], session_tools(session))
            person = _NoPerson(runner)
            result = asyncio.run(_run(_task_runner(runner), bind.clients, session, person))
        return AutoGenRun(result=result, asked=person.asks[0] if person.asks else None)

    def interpret(self, returned: object, error: BaseException | None) -> Stop | None:
        if error is not None or not isinstance(returned, AutoGenRun):
            return None
        result = returned.result
        partial = partial_from_messages(_messages(result.messages))
        last = result.messages[-1] if result.messages else None
        if returned.asked is not None:
            reason = f"AutoGen: {returned.asked}"
            return Stop(code=Code.NEEDS_HUMAN, reason=reason, partial=partial)
        if result.stop_reason is not None:
            return _stopped(result.stop_reason, last, partial)
        if isinstance(last, ToolCallSummaryMessage):
            reason = (
                "AutoGen: the agent spent max_tool_iterations and answered with its tool "
                f"results: {last.content:.100}"
            )
            return Stop(code=Code.BUDGET_STEPS, reason=reason, partial=partial)
        if isinstance(last, HandoffMessage):
            reason = f"AutoGen: the agent handed off to {last.target}: {last.content:.100}"
            return Stop(
                code=Code.NEEDS_HUMAN, reason=reason, partial=partial, missing=(last.target,)
            )
        return _claim(last, partial)


def _task_runner(built: object) -> TaskRunner:
    """What ``build`` returned, if it is a team or an agent that AgentChat can run."""
    if not callable(getattr(built, "run_stream", None)):
        raise AdapterError(
            f"AutoGenAdapter: build returned {built!r:.80}, not a team or an agent; return one, "
            "e.g. RoundRobinGroupChat([AssistantAgent('a', model_client=c, tools=t)], "
            "termination_condition=...)"
        )
    return cast(TaskRunner, built)


class _NoPerson:
    """The console the run's `UserProxyAgent`s would read, where the harness has no person: each
    ask is noted, the run ends at the first, and none is answered. An agent keeps the kind of
    its ``input_func`` (a coroutine function or not), so each kind is replaced by its own."""

    def __init__(self, runner: object) -> None:
        self.asks: list[str] = []
        self.ended = threading.Event()
        for agent in _user_proxies(runner):
            if agent.input_func is cancellable_input:
                agent.input_func = self._waiting(agent.name)
            elif agent.input_func is input:
                agent.input_func = self._blocking(agent.name)

    def _note(self, name: str, prompt: str) -> None:
        self.asks.append(f"UserProxyAgent {name!r} asked a person: {prompt.strip()}")

    def _waiting(self, name: str) -> Callable[[str, CancellationToken | None], Awaitable[str]]:
        async def ask(prompt: str, cancellation_token: CancellationToken | None) -> str:
            """Waits, as AgentChat's console does, on a future the run's end cancels."""
            self._note(name, prompt)
            answer = asyncio.get_running_loop().create_future()
            if cancellation_token is not None:
                cancellation_token.link_future(answer)
            return str(await answer)

        return ask

    def _blocking(self, name: str) -> Callable[[str], str]:
        def ask(prompt: str) -> str:
            """Blocks its worker thread, as ``input`` does, until the run has ended."""
            self._note(name, prompt)
            self.ended.wait()
            return ""

        return ask


def _user_proxies(runner: object) -> Iterator[UserProxyAgent]:
    """The run's `UserProxyAgent`s: the agent itself, or a team's, nested teams' too (AgentChat
    keeps a team's agents in ``_participants``, with no public accessor)."""
    if isinstance(runner, UserProxyAgent):
        yield runner
    for participant in getattr(runner, "_participants", ()):
        yield from _user_proxies(participant)


async def _run(
    runner: TaskRunner,
    clients: Sequence[ChatCompletionClient],
    session: Session,
    person: _NoPerson,
) -> TaskResult:
    """Runs the task until it ends or a harness ceiling is hit, then cancels it — its token, and
    the run itself until it ends: a ceiling reached in a call given no token (a selector's) is a
    `CeilingHit`, which AgentChat's runtime logs and waits on, and an agent whose worker (run as
    its tool) was cancelled waits for its tool calls' end on a queue that never gets it (as
    under AgentChat's own cancellation), so a team would otherwise sit until the wall ceiling
    after its step ceiling. A person's ask ends it the same way, its messages so far the result."""
    token, seen = CancellationToken(), list[BaseAgentEvent | BaseChatMessage]()
    stream = runner.run_stream(task=session.task, cancellation_token=token)
    run = asyncio.ensure_future(_streamed(stream, seen))
    try:
        while not run.done():
            await asyncio.wait({run}, timeout=CEILING_POLL_SECONDS)
            if session.ceiling is not None or person.asks:
                token.cancel()
                run.cancel()
        return TaskResult(messages=seen) if person.asks else run.result()
    finally:
        person.ended.set()
        for client in clients:
            await client.close()
        await _drained()


async def _drained() -> None:
    """Cancels what AgentChat's runtime left on the loop after a run it did not end itself, and
    awaits it: the runtime's message tasks raise as they are cancelled (autogen-core marks their
    queue's work done twice), and left to ``asyncio.run``'s shutdown each would be reported on
    stderr as an unhandled exception."""
    left = asyncio.all_tasks() - {asyncio.current_task()}
    for task in left:
        task.cancel()
    await asyncio.gather(*left, return_exceptions=True)


async def _streamed(
    stream: AsyncGenerator[BaseAgentEvent | BaseChatMessage | TaskResult, None],
    seen: list[BaseAgentEvent | BaseChatMessage],
) -> TaskResult:
    """The run's result, its messages noted in ``seen`` as they come: ``run`` is this stream
    read to its end, which is the result."""
    result: TaskResult | None = None
    async for item in stream:
        if isinstance(item, TaskResult):
            result = item
        else:
            seen.append(item)
    if result is None:
        raise AdapterError("AutoGen's run_stream ended with no TaskResult")
    return result


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
