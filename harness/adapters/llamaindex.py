"""Consumes a LlamaIndex agent workflow builder (a `FunctionAgent`, or an `AgentWorkflow` of
them), produces a run on a session — the LLM LlamaIndex's own scriptable fake,
`MockFunctionCallingLLM`, answered by the session — and the `Stop` read from how it ended.

Each response carries the session's usage where LlamaIndex's OpenAI LLM puts the API's: in
``raw["usage"]`` and as ``additional_kwargs`` (``prompt_tokens``, ``completion_tokens``,
``total_tokens``), on a streamed reply's last chunk as with ``stream_options={"include_usage":
True}``; so LlamaIndex's own counting (``TokenCountingHandler``) reads the tokens the record
charges, not its own tiktoken estimate.

LlamaIndex's stops, read into the vocabulary:

- ``max_iterations`` (default 20; one iteration = one model call) with
  ``early_stopping_method="force"`` (the default) raises ``WorkflowRuntimeError("Max iterations
  of 20 reached! …")`` before the last call's tools run → ``exhausted``/``BUDGET_STEPS``, with the
  partial result from the run's streamed events (the error carries none).
- The workflow's own wall limit (``timeout=`` of the agent or `AgentWorkflow`; none by default)
  raises ``WorkflowTimeoutError`` → ``exhausted``/``BUDGET_TIME``, with the partial result.
- With ``early_stopping_method="generate"`` it makes **one more model call with no tools**
  ("provide the best possible answer") and returns that answer as the run's result, exactly as
  it returns a real one: LlamaIndex does not flag it, so the record holds it as the agent's claim
  — ``complete``/``COMPLETED``, which the verdict checks against the world (the reason says the
  answer was forced).
- A run that asks for a person (an ``InputRequiredEvent`` on its stream, as a tool or step
  does with ``ctx.wait_for_event(HumanResponseEvent, waiter_event=…)``) waits for the caller to
  send a ``HumanResponseEvent``; the harness has no one to send it, so the run is cancelled at
  the ask → ``abandoned``/``NEEDS_HUMAN`` naming what it asked, not left waiting until the wall
  ceiling. A ``wait_for_event`` with no ``waiter_event`` announces nothing; once nothing else is
  left to run, LlamaIndex reports the workflow idle (``WorkflowIdleEvent``), and the run is
  cancelled there the same way.
- A final answer → ``complete``/``COMPLETED`` as the agent's claim; a ``structured_response``
  with a ``code`` is read as that `Stop`.

`ReActAgent` and `CodeActAgent` parse actions out of text, which the scripted model does not
write: use `FunctionAgent`.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from unsolvable._errors import AdapterError
from unsolvable._session import Session
from unsolvable._stop import Code, Stop
from unsolvable._types import JSON
from unsolvable.adapters._llamaindex import (
    CONTEXT_WINDOW,
    AgentBindings,
    Calls,
    SessionLLM,
    block_text,
    openai_message,
    session_llm,
    session_tools,
    to_openai_messages,
)
from unsolvable.adapters._loop import Stop as Due
from unsolvable.adapters._loop import waited
from unsolvable.adapters.base import interpret_plain
from unsolvable.adapters.kit import (
    BUDGET,
    Budgeted,
    check_build_form,
    is_step_limit,
    missing_extra,
    partial_from_messages,
)

try:
    from llama_index.core.agent.workflow import (
        AgentOutput,
        AgentWorkflow,
        BaseWorkflowAgent,
        CodeActAgent,
        FunctionAgent,
        ReActAgent,
        ToolCallResult,
    )
    from llama_index.core.tools import BaseTool
    from workflows.errors import WorkflowRuntimeError, WorkflowTimeoutError
    from workflows.events import InputRequiredEvent, WorkflowIdleEvent
    from workflows.handler import WorkflowHandler
except ModuleNotFoundError as error:  # pragma: no cover - only without the extra
    raise ImportError(missing_extra("llamaindex", "llamaindex")) from error

__all__ = [
    "CONTEXT_WINDOW",
    "AgentBindings",
    "LlamaIndexAdapter",
    "LlamaIndexRun",
    "SessionLLM",
    "adapter",
    "default_agent",
    "session_llm",
    "session_tools",
    "to_openai_messages",
]

MAX_ITERATIONS = re.compile(r"Max iterations of \d+ reached")
"""How ``parse_agent_output`` words its limit (llama-index-core 0.14)."""
TEXT_PARSING_AGENTS = (ReActAgent, CodeActAgent)
"""Agents that read their actions out of the model's text, which the scripted model does not
write: each would take its first tool-calling reply for a final answer."""
BUILD_EXAMPLE = "e.g. lambda llm, tools: FunctionAgent(tools=tools, llm=llm)"
EarlyStopping = Literal["force", "generate"]


@dataclass(kw_only=True)
class LlamaIndexRun:
    """What one workflow run left: its output or the limit it hit, and its events."""

    output: AgentOutput | None = None
    limit_error: WorkflowRuntimeError | WorkflowTimeoutError | None = None
    """The max-iterations error, or the timeout of the workflow's own ``timeout=``."""
    messages: list[JSON] = field(default_factory=list)
    """What the model said and called and what the tools answered, from the streamed events."""
    forced_final_answer: bool = False
    """The answer is LlamaIndex's forced one (``early_stopping_method="generate"``): the run's
    last model call was offered no tools."""
    asked: str | None = None
    """What the run stopped waiting for, which only its caller could send: an ask for a person
    (`InputRequiredEvent`), or an event awaited without one (the workflow went idle)."""


Workflow = BaseWorkflowAgent | AgentWorkflow
WorkflowBuilder = Callable[[SessionLLM, list[BaseTool]], Workflow]
PerAgentBuilder = Callable[[AgentBindings], Workflow]


def default_agent(llm: SessionLLM, tools: list[BaseTool]) -> Workflow:
    """A `FunctionAgent` at its defaults."""
    return FunctionAgent(tools=[*tools], llm=llm)


class LlamaIndexAdapter:
    """Runs the agent workflow made by ``build(llm, tools)`` on the session's task, on an event
    loop of its own.

    ``max_iterations=None`` keeps LlamaIndex's default (20); ``"budget"`` uses the scenario's
    ``max_steps`` (one step fewer with ``"generate"``, the adapter's or the workflow's own, to
    fit the forced final answer in).
    ``early_stopping_method=None`` keeps the agent's own (``"force"`` by default).
    ``per_agent=True`` makes ``build`` a ``build(bind)`` given `AgentBindings`: ``bind.llm(name)``
    and ``bind.tools(name)`` belong to agent ``name`` (each agent of an `AgentWorkflow`), so the
    record counts each agent's steps apart; without it every agent's calls are ``main``'s.

    >>> LlamaIndexAdapter(lambda llm, tools: FunctionAgent(tools=tools, llm=llm),
    ...                   early_stopping_method="generate")               # doctest: +SKIP
    """

    def __init__(
        self,
        build: WorkflowBuilder | PerAgentBuilder = default_agent,
        *,
        per_agent: bool = False,
        max_iterations: int | Budgeted | None = None,
        early_stopping_method: EarlyStopping | None = None,
        name: str = "llamaindex",
    ) -> None:
        if isinstance(build, BaseWorkflowAgent | AgentWorkflow):
            built = _label(build)
            raise AdapterError(
                f"LlamaIndexAdapter(build={built}): {built} holds an LLM of its own, which the "
                "session does not answer; pass a callable that builds it on the llm and tools "
                f"it is given, {BUILD_EXAMPLE}"
            )
        if not callable(build):
            raise AdapterError(
                f"LlamaIndexAdapter(build={build!r:.80}): pass a callable build(llm, tools) "
                f"returning an agent workflow, {BUILD_EXAMPLE}"
            )
        if early_stopping_method not in (None, "force", "generate"):
            raise AdapterError(
                f"LlamaIndexAdapter(early_stopping_method={early_stopping_method!r}): use "
                "'force' (raise at max_iterations) or 'generate' (a forced final answer)"
            )
        if not is_step_limit(max_iterations):
            raise AdapterError(
                f"LlamaIndexAdapter(max_iterations={max_iterations!r}): use a positive int, "
                "'budget' (the scenario's max_steps) or None (LlamaIndex's default, 20); "
                "LlamaIndex itself reads 0 as its default"
            )
        check_build_form(
            build, per_agent=per_agent, adapter="LlamaIndexAdapter", arguments=("llm", "tools")
        )
        self.build, self.per_agent, self.max_iterations = build, per_agent, max_iterations
        self.early_stopping_method, self.name = early_stopping_method, name

    def run(self, session: Session) -> LlamaIndexRun:
        calls = Calls()
        workflow = _function_calling(self._built(session, calls))
        outcome = LlamaIndexRun()
        try:
            outcome.output = asyncio.run(self._run(workflow, session, outcome))
        except WorkflowRuntimeError as error:
            if not MAX_ITERATIONS.search(str(error)):
                raise
            outcome.limit_error = error
        except WorkflowTimeoutError as error:
            outcome.limit_error = error
        outcome.forced_final_answer = calls.last_forced
        return outcome

    def _built(self, session: Session, calls: Calls) -> object:
        """What ``build`` makes: on one LLM and the tools, or, per agent, on each agent's own."""
        if self.per_agent:
            return cast(PerAgentBuilder, self.build)(AgentBindings(session=session, calls=calls))
        return cast(WorkflowBuilder, self.build)(
            session_llm(session, calls), session_tools(session)
        )

    async def _run(
        self, workflow: Workflow, session: Session, outcome: LlamaIndexRun
    ) -> AgentOutput | None:
        """Runs the workflow until it ends or a harness ceiling is hit, then cancels it: a step
        the ceiling stopped (`CeilingHit` is no `Exception`) dies inside the workflows runtime,
        which would wait on it until the wall ceiling."""
        handler = workflow.run(user_msg=session.task, **self._options(session, workflow))
        consumed = asyncio.ensure_future(_consume(handler, outcome))
        if not await waited(consumed, Due(session)):
            await handler.cancel_run()
            consumed.cancel()
        result = await consumed
        if outcome.asked is not None:
            return None
        if not isinstance(result, AgentOutput):
            raise AdapterError(f"LlamaIndex returned {type(result).__name__}, not AgentOutput")
        return result

    def _options(self, session: Session, workflow: Workflow) -> dict[str, Any]:
        options: dict[str, Any] = {}
        if self.early_stopping_method is not None:
            options["early_stopping_method"] = self.early_stopping_method
        if self.max_iterations == BUDGET:
            # The run's method wins over the workflow's own, as LlamaIndex reads them.
            method = self.early_stopping_method or workflow.early_stopping_method
            spare = 1 if method == "generate" else 0
            options["max_iterations"] = max(1, session.budget.max_steps - spare)
        elif self.max_iterations is not None:
            options["max_iterations"] = self.max_iterations
        return options

    def interpret(self, returned: object, error: BaseException | None) -> Stop | None:
        if error is not None or not isinstance(returned, LlamaIndexRun):
            return None
        partial = partial_from_messages(returned.messages)
        error = returned.limit_error
        if isinstance(error, WorkflowTimeoutError):
            reason = f"LlamaIndex: {error}".split(". ")[0]
            return Stop(code=Code.BUDGET_TIME, reason=reason, partial=partial)
        if error is not None:
            reason = f"LlamaIndex: {error}".split("!")[0]
            return Stop(code=Code.BUDGET_STEPS, reason=reason, partial=partial)
        if returned.asked is not None:
            return Stop(code=Code.NEEDS_HUMAN, reason=returned.asked, partial=partial)
        output = returned.output
        if output is None:
            return None
        stop = interpret_plain(output.structured_response)
        if stop is not None:
            return stop
        text = block_text(output.response)
        if returned.forced_final_answer:
            text = (
                "forced at max_iterations (early_stopping_method='generate'), with no tools, "
                f"and returned as the answer: {text}"
            )
        return Stop(code=Code.COMPLETED, reason=f"final answer: {text}"[:200], partial=partial)


def _asked(event: InputRequiredEvent) -> str:
    """The ask with what it carries: a subclass's fields and the keywords it was made with (an
    event keeps those apart, in ``_data``)."""
    fields = event.model_dump()
    fields |= fields.pop("_data", {})
    return f"{type(event).__name__}({fields!r})"


def _label(workflow: Workflow) -> str:
    """An agent workflow by its class and, for an agent, its name: its repr runs to pages."""
    kind = type(workflow).__name__
    return f"{kind} {workflow.name!r}" if isinstance(workflow, BaseWorkflowAgent) else kind


def _function_calling(built: object) -> Workflow:
    """What ``build`` returned, if it is an agent workflow whose agents call tools natively."""
    if not isinstance(built, BaseWorkflowAgent | AgentWorkflow):
        raise AdapterError(
            f"LlamaIndexAdapter: build returned {built!r:.80}, not a FunctionAgent or an "
            f"AgentWorkflow; return one, {BUILD_EXAMPLE}"
        )
    agents = built.agents.values() if isinstance(built, AgentWorkflow) else [built]
    parsing = [a for a in agents if isinstance(a, TEXT_PARSING_AGENTS)]
    if parsing:
        raise AdapterError(
            f"LlamaIndexAdapter: {_label(parsing[0])} reads its "
            "actions out of the model's text, which the scripted model does not write: build "
            f"a FunctionAgent instead, {BUILD_EXAMPLE}"
        )
    return built


async def _consume(handler: WorkflowHandler, outcome: LlamaIndexRun) -> object:
    """The run's streamed events into ``outcome``, then its result. At an ask for a person, or
    once the workflow is idle (nothing left to run but a ``wait_for_event`` that announced
    nothing), the run is cancelled, since no one will send what it waits for."""
    async for event in handler.stream_events(expose_internal=True):
        asked = _waits_for(event)
        if asked is not None:
            outcome.asked = f"LlamaIndex: {asked}"
            await handler.cancel_run()
            return None
        outcome.messages.extend(_event_messages(event))
    return await handler


def _waits_for(event: object) -> str | None:
    """What ``event`` says the workflow waits for from outside the run, if it says so."""
    if isinstance(event, InputRequiredEvent):
        return f"the workflow paused for a person at {_asked(event)}"
    if isinstance(event, WorkflowIdleEvent):
        return (
            "the workflow went idle waiting for an event from outside the run "
            "(ctx.wait_for_event with no waiter_event), which only its caller can send"
        )
    return None


def _event_messages(event: object) -> list[JSON]:
    """A streamed event as messages: a model call (`AgentOutput`) or a tool's answer."""
    if isinstance(event, AgentOutput):
        return [openai_message(event.response)]
    if isinstance(event, ToolCallResult):
        return [{"role": "tool", "content": str(event.tool_output.content)}]
    return []


adapter = LlamaIndexAdapter()
"""The registered ``llamaindex`` agent: a `FunctionAgent` at LlamaIndex's defaults
(``unsolvable run --agent llamaindex``)."""
