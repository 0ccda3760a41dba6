"""Consumes an OpenAI Agents SDK agent, produces a run on a session through the fake model on the
wire (the Responses API by default, as the SDK itself) and the `Stop` read from how it ended.

The SDK's stops, read into the vocabulary:

- ``MaxTurnsExceeded`` (``max_turns``, default 10; one turn = one model call) →
  ``exhausted``/``BUDGET_STEPS``, with the partial items kept in its ``run_data``.
- A ``max_turns`` error handler's output (``error_handlers={"max_turns": …}``) →
  ``exhausted``/``BUDGET_STEPS`` too: the handler turns the exception into a result, and that
  result is a truncated run, whatever it says.
- A guardrail's tripwire (``InputGuardrailTripwireTriggered``, ``OutputGuardrailTripwireTriggered``,
  a tool guardrail's ``raise_exception``) → ``abandoned``/``NEEDS_HUMAN``: the agent's own check
  halted the run on purpose, naming the guardrail and what it found, with the partial items of
  its ``run_data``.
- A run paused for a person (``result.interruptions``: tool calls awaiting approval) →
  ``abandoned``/``NEEDS_HUMAN`` too, not the empty final output read as a claim.
- A final output → ``complete``/``COMPLETED`` as the agent's claim (checked against the world);
  a final output with a ``code`` (a `Stop` or a mapping) is read as that `Stop`.

With ``per_agent=True`` each agent of a multi-agent system keeps a model of its own, bound to its
name on the wire, so the record counts its steps apart (``steps_by_agent``). With
``mcp=True`` the scenario's tools reach the agent as an agent whose tools come from MCP gets
them: the harness's MCP server (`unsolvable.mcp`) over Streamable HTTP, through the SDK's own
``MCPServerStreamableHttp`` at its defaults, in place of the agent's own MCP servers; with both,
each agent connects on its own path (``…/agents/<name>/mcp``), so its tool calls are its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from unsolvable._errors import AdapterError
from unsolvable._session import Session
from unsolvable._stop import Code, Stop
from unsolvable._types import JSON
from unsolvable.adapters._agents_sdk import (
    AgentBindings,
    Api,
    UnboundAgents,
    mcp_server,
    session_tools,
    wire_model,
)
from unsolvable.adapters.base import interpret_plain
from unsolvable.adapters.kit import (
    BUDGET,
    FAKE_MODEL,
    Budgeted,
    as_mapping,
    is_step_limit,
    missing_extra,
    partial_from_messages,
)
from unsolvable.wire import Wire

if TYPE_CHECKING:
    from unsolvable.mcp import McpService

try:
    from agents import (
        Agent,
        FunctionTool,
        InputGuardrailTripwireTriggered,
        MaxTurnsExceeded,
        OutputGuardrailTripwireTriggered,
        RunConfig,
        Runner,
        RunResult,
        RunResultStreaming,
        ToolInputGuardrailTripwireTriggered,
        ToolOutputGuardrailTripwireTriggered,
    )
    from agents.items import ItemHelpers, RunItem, ToolApprovalItem
    from agents.mcp import MCPServer
    from agents.run_error_handlers import RunErrorHandlerInput, RunErrorHandlers
except ModuleNotFoundError as error:  # pragma: no cover - only without the extra
    raise ImportError(missing_extra("openai-agents", "openai-agents")) from error

__all__ = ["FAKE_MODEL", "AgentBindings", "AgentsRun", "OpenAIAgentsAdapter", "session_tools"]

AgentBuilder = Callable[[list[FunctionTool]], Agent[Any]]
Tripwire = (
    InputGuardrailTripwireTriggered
    | OutputGuardrailTripwireTriggered
    | ToolInputGuardrailTripwireTriggered
    | ToolOutputGuardrailTripwireTriggered
)
"""What the SDK raises when a guardrail halts the run."""
TRIPWIRES = (
    InputGuardrailTripwireTriggered,
    OutputGuardrailTripwireTriggered,
    ToolInputGuardrailTripwireTriggered,
    ToolOutputGuardrailTripwireTriggered,
)
"""The same, as ``except`` takes them."""
MCP_WALL_SECONDS = 30.0
"""The wall ceiling of a run with its tools over MCP: the server's process starts on the first
connection (1 to 3 s of imports, counted against the run), then each tool call makes two local
HTTP hops; 10 s, the default for in-process agents, leaves a slow machine too little."""


@dataclass(kw_only=True)
class AgentsRun:
    """What one ``Runner.run`` left: its result, or the `MaxTurnsExceeded` or guardrail tripwire
    it raised."""

    result: RunResult | RunResultStreaming | None = None
    max_turns_error: MaxTurnsExceeded | None = None
    tripwire: Tripwire | None = None
    handled_max_turns: list[RunErrorHandlerInput[Any]] = field(default_factory=list)
    """Inputs of the ``max_turns`` error handler calls: the result came from a handler."""


class OpenAIAgentsAdapter:
    """Runs an Agents SDK agent on the session's task, every model call going over the wire.

    ``agent`` is an `Agent` (cloned with the scenario's tools in place of its own, agents-as-tools
    among them, and without its own MCP servers, which are never connected) or
    ``build(tools) -> Agent``.
    The fake model replaces every agent's model for the run (``RunConfig.model``), sub-agents and
    handoffs included; tracing is disabled so nothing is exported. ``max_turns=None`` keeps the
    SDK's default (10); ``"budget"`` uses the scenario's ``max_steps``. ``api`` picks the wire
    format: ``"responses"`` (the SDK's default) or ``"chat_completions"``. ``per_agent=True``
    keeps each agent's own model instead: ``agent`` is then ``build(bind) -> Agent``, given an
    `AgentBindings` whose ``bind.model(name)`` and ``bind.tools(name)`` belong to agent ``name``
    (handoffs, agents-as-tools); an agent given no model counts as ``main``. ``streamed`` uses
    ``Runner.run_streamed``; ``wire`` passes options to the `Wire` (e.g.
    ``{"transient_failures": 2}`` to watch the openai client's retries counted as transport
    attempts, not steps). ``mcp=True`` hands the scenario's tools over MCP instead of as
    function tools (``build`` is handed no function tools, and the agent it returns gets the
    harness's MCP server in place of its own; with ``per_agent``, ``bind.tools(name)`` is
    empty and ``bind.mcp_servers(name)`` is agent ``name``'s connection to that server); it
    needs the ``mcp`` extra.

    >>> unsolvable.run(OpenAIAgentsAdapter(Agent(name="billing", instructions="...")),
    ...             scenarios.get("constant-return/repeat"))            # doctest: +SKIP
    """

    def __init__(
        self,
        agent: Agent[Any] | AgentBuilder | Callable[[AgentBindings], Agent[Any]],
        *,
        max_turns: int | Budgeted | None = None,
        api: Api = "responses",
        per_agent: bool = False,
        streamed: bool = False,
        error_handlers: RunErrorHandlers[Any] | None = None,
        run_config: RunConfig | None = None,
        wire: Mapping[str, Any] | None = None,
        mcp: bool = False,
        name: str = "openai-agents",
    ) -> None:
        if isinstance(agent, type) or not (isinstance(agent, Agent) or callable(agent)):
            raise AdapterError(
                f"OpenAIAgentsAdapter(agent={agent!r}): pass an agents.Agent or a callable "
                "build(tools) returning one"
            )
        if api not in ("responses", "chat_completions"):
            raise AdapterError(
                f"OpenAIAgentsAdapter(api={api!r}): use 'responses' or 'chat_completions'"
            )
        if not is_step_limit(max_turns):
            raise AdapterError(
                f"OpenAIAgentsAdapter(max_turns={max_turns!r}): use a positive int, 'budget' "
                "(the scenario's max_steps) or None (the SDK's default, 10); the SDK reads "
                "anything below 1 as a limit already exceeded"
            )
        if per_agent and isinstance(agent, Agent):
            raise AdapterError(
                "OpenAIAgentsAdapter(per_agent=True): pass a callable build(bind) returning the "
                "agent, each agent built with its own bind.model(name); a ready Agent holds "
                "no per-agent model"
            )
        if per_agent and run_config is not None and run_config.model is not None:
            raise AdapterError(
                f"OpenAIAgentsAdapter(per_agent=True, run_config=RunConfig(model="
                f"{run_config.model!r})): RunConfig.model replaces every agent's own model; "
                "leave it unset, or drop per_agent"
            )
        self.agent, self.max_turns, self.api, self.streamed = agent, max_turns, api, streamed
        self.per_agent = per_agent
        self.error_handlers = error_handlers
        self.run_config = run_config or RunConfig()
        self.wire_options = dict(wire or {})
        self.mcp = mcp
        self.wall_seconds = MCP_WALL_SECONDS if mcp else None
        self.name = name

    def preflight(self) -> None:
        """With ``mcp=True``, the harness's interpreter must run the MCP server."""
        from unsolvable.mcp import is_available

        if self.mcp and not is_available():
            raise AdapterError(
                "OpenAIAgentsAdapter(mcp=True): the harness's MCP server needs the mcp package; "
                "pip install 'pytest-unsolvable[mcp]'"
            )

    def run(self, session: Session) -> AgentsRun:
        with Wire(session, **self.wire_options) as wire, contextlib.ExitStack() as stack:
            outcome = AgentsRun()
            mcp_url = stack.enter_context(_mcp_service(session, wire)).url if self.mcp else None
            agent, config, servers = self._agent_and_config(session, wire, mcp_url)
            handlers = self._handlers(outcome)
            try:
                outcome.result = asyncio.run(self._run(agent, session, config, handlers, servers))
            except MaxTurnsExceeded as error:
                outcome.max_turns_error = error
            except TRIPWIRES as error:
                outcome.tripwire = error
            return outcome

    def _agent_and_config(
        self, session: Session, wire: Wire, mcp_url: str | None
    ) -> tuple[Agent[Any], RunConfig, list[MCPServer]]:
        """The agent to run, its config and the MCP servers to connect first: one fake model
        for the whole run, or, per agent, each agent's own (nothing falls back to a real
        provider)."""
        if self.per_agent:
            build = cast(Callable[[AgentBindings], Agent[Any]], self.agent)
            bind = AgentBindings(session=session, wire=wire, api=self.api, mcp_url=mcp_url)
            try:
                agent = _built(build(bind))
            except TypeError as error:
                if type(bind).__name__ not in str(error):
                    raise
                raise AdapterError(_BIND_NOT_TOOLS.format(error=error)) from error
            provider = UnboundAgents(wire, self.api)
            config = dataclasses.replace(
                self.run_config, model_provider=provider, tracing_disabled=True
            )
            return agent, config, bind.connected
        tools = [] if self.mcp else session_tools(session)
        if isinstance(self.agent, Agent):  # its own MCP servers would be real tools: never used
            agent = self.agent.clone(tools=[*tools], mcp_servers=[])
        else:
            try:
                agent = _built(cast(AgentBuilder, self.agent)(tools))
            except AttributeError as error:
                if error.obj is not tools:
                    raise
                raise AdapterError(_TOOLS_NOT_BIND.format(error=error)) from error
        servers = []
        if mcp_url is not None:
            servers = [mcp_server(mcp_url)]
            agent = agent.clone(mcp_servers=servers)
        model = wire_model(wire, self.api, None)
        config = dataclasses.replace(self.run_config, model=model, tracing_disabled=True)
        return agent, config, servers

    def _handlers(self, outcome: AgentsRun) -> RunErrorHandlers[Any] | None:
        """The user's handlers, with ``max_turns`` wrapped to note that it answered."""
        handlers: dict[str, Any] = dict(self.error_handlers or {})
        user = handlers.get("max_turns")
        if user is None:
            return self.error_handlers

        def noting(data: RunErrorHandlerInput[Any]) -> Any:
            outcome.handled_max_turns.append(data)
            return user(data)

        handlers["max_turns"] = noting
        return handlers  # type: ignore[return-value]

    async def _run(
        self,
        agent: Agent[Any],
        session: Session,
        config: RunConfig,
        handlers: RunErrorHandlers[Any] | None,
        servers: list[MCPServer],
    ) -> RunResult | RunResultStreaming:
        """The run, on this event loop, its MCP servers connected first (the SDK's MCP sessions
        belong to the loop that opened them)."""
        async with contextlib.AsyncExitStack() as stack:
            for server in servers:
                await server.connect()  # type: ignore[no-untyped-call]
                stack.push_async_callback(server.cleanup)
            return await self._turns(agent, session, config, handlers)

    async def _turns(
        self,
        agent: Agent[Any],
        session: Session,
        config: RunConfig,
        handlers: RunErrorHandlers[Any] | None,
    ) -> RunResult | RunResultStreaming:
        task, budget_steps = session.task, session.budget.max_steps
        options: dict[str, Any] = {"run_config": config, "error_handlers": handlers}
        if self.max_turns == BUDGET:
            options["max_turns"] = budget_steps
        elif self.max_turns is not None:
            options["max_turns"] = self.max_turns
        if not self.streamed:
            return await Runner.run(agent, task, **options)
        streamed = Runner.run_streamed(agent, task, **options)
        async for _event in streamed.stream_events():
            pass
        return streamed

    def interpret(self, returned: object, error: BaseException | None) -> Stop | None:
        if error is not None or not isinstance(returned, AgentsRun):
            return None
        if returned.max_turns_error is not None:
            run_data = returned.max_turns_error.run_data
            items = run_data.new_items if run_data is not None else []
            reason = f"Agents SDK: {returned.max_turns_error.message}"
            return Stop(code=Code.BUDGET_STEPS, reason=reason, partial=_partial(items))
        if returned.tripwire is not None:
            return _tripped(returned.tripwire)
        result = returned.result
        if result is None:
            return None
        if result.interruptions:
            return _awaiting_approval(result.interruptions, result.new_items)
        if returned.handled_max_turns:
            reason = f"max_turns error handler answered: {result.final_output!s:.120}"
            return Stop(code=Code.BUDGET_STEPS, reason=reason, partial=_partial(result.new_items))
        stop = interpret_plain(as_mapping(result.final_output))
        if stop is not None:
            return stop
        reason = f"final output: {result.final_output!s:.160}"
        return Stop(code=Code.COMPLETED, reason=reason, partial=_partial(result.new_items))


_BIND_NOT_TOOLS = (
    "OpenAIAgentsAdapter(per_agent=True): build used what it was handed as the tools ({error})\n"
    "  - with per_agent=True, build is handed an AgentBindings, build(bind)\n"
    "Give each agent bind.model(name) and bind.tools(name), or drop per_agent for build(tools)."
)
_TOOLS_NOT_BIND = (
    "OpenAIAgentsAdapter: build used what it was handed as an AgentBindings ({error})\n"
    "  - without per_agent, build is handed the scenario's tools, build(tools), and one model\n"
    "    replaces every agent's\n"
    "Pass per_agent=True for build(bind), or build the agent from the tools."
)


def _built(agent: object) -> Agent[Any]:
    """What a build returned, if it is an agent; an error that says what it is instead."""
    if isinstance(agent, Agent):
        return agent
    raise AdapterError(
        f"unsolvable: the agent's build returned {agent!r:.80}, not an agents.Agent\n"
        "  - the adapter runs what build returns with Runner.run\n"
        "Return the Agent, e.g. Agent(name='billing', tools=tools)."
    )


@contextlib.contextmanager
def _mcp_service(session: Session, wire: Wire) -> Iterator[McpService]:
    """The scenario's tools over Streamable HTTP, forwarding to the wire served on loopback."""
    from unsolvable.mcp import McpService, server_environ

    with wire.serve() as server, McpService(server_environ(session, server.tools_url)) as service:
        yield service


def _tripped(error: Tripwire) -> Stop:
    """The stop of a run a guardrail halted: which guardrail, what it found, and the items the
    run had made."""
    if isinstance(error, InputGuardrailTripwireTriggered | OutputGuardrailTripwireTriggered):
        tripped = error.guardrail_result
        name, found = tripped.guardrail.get_name(), tripped.output.output_info
    else:
        name, found = error.guardrail.get_name(), error.output.output_info
    reason = f"Agents SDK: guardrail {name!r} tripped: {found!s:.120}"
    items = error.run_data.new_items if error.run_data is not None else []
    return Stop(code=Code.NEEDS_HUMAN, reason=reason, partial=_partial(items))


def _awaiting_approval(pending: list[ToolApprovalItem], items: list[RunItem]) -> Stop:
    """The stop of a run that paused until a person approves its tool calls."""
    names = ", ".join(str(item.tool_name) for item in pending)
    reason = f"Agents SDK: the run paused for approval of {names}"
    return Stop(code=Code.NEEDS_HUMAN, reason=reason, partial=_partial(items))


def _partial(items: list[RunItem]) -> JSON:
    messages: list[JSON] = []
    for item in items:
        if isinstance(item, ToolApprovalItem):  # its call is the item before it; no input item
            continue
        raw = item.to_input_item()
        kind = raw.get("type", "message") if isinstance(raw, Mapping) else "message"
        if kind == "function_call_output":
            messages.append({"role": "tool", "content": str(raw.get("output", ""))})
        elif kind == "function_call":
            call = {"name": raw.get("name")}
            messages.append({"role": "assistant", "content": "", "tool_calls": [call]})
        else:
            text = (
                ItemHelpers.text_message_output(item) if item.type == "message_output_item" else ""
            )
            messages.append({"role": "assistant", "content": text})
    return partial_from_messages(messages)
