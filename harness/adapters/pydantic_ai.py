"""Consumes a pydantic-ai `Agent`, produces a run on a session — its model replaced by a
`FunctionModel` answered by the session, its tools by the scenario's — and the `Stop` read from
how it ended.

pydantic-ai's stops, read into the vocabulary:

- ``UsageLimitExceeded`` → ``exhausted``: ``request_limit`` (default 50) is ``BUDGET_STEPS``,
  ``tool_calls_limit`` ``BUDGET_CALLS``, token and cost limits ``BUDGET_COST``; the partial
  messages come from ``capture_run_messages``, since the error carries none.
- A run paused for a person (a ``DeferredToolRequests`` output: tool calls awaiting approval
  — ``requires_approval``, ``ApprovalRequired`` — or a result from outside the run —
  ``CallDeferred``, an external tool) → ``abandoned``/``NEEDS_HUMAN`` naming the calls it waits
  on, not the pending calls read as a claim: no one is there to answer them.
- An output → ``complete``/``COMPLETED`` as the agent's claim (checked against the world); an
  output with a ``code`` (a `Stop`, a mapping or a model with that field) is read as that `Stop`.

pydantic-ai runs a reply's tool calls at once; the scenario's tools take their turn at a
`Turnstile`, so their effects on the world come in the reply's order and a run's record is the
same on every run.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, cast

from unsolvable._errors import AdapterError
from unsolvable._session import Session
from unsolvable._stop import Code, Stop
from unsolvable._types import JSON
from unsolvable.adapters._pydantic_ai import (
    AgentBindings,
    SessionModel,
    session_model,
    session_tools,
    to_openai_messages,
)
from unsolvable.adapters._turnstile import Turnstile
from unsolvable.adapters.base import interpret_plain
from unsolvable.adapters.kit import (
    BUDGET,
    Budgeted,
    as_mapping,
    check_build_form,
    missing_extra,
    partial_from_messages,
)

try:
    from pydantic_ai import (
        DeferredToolRequests,
        UsageLimitExceeded,
        UsageLimits,
        capture_run_messages,
    )
    from pydantic_ai.agent import AbstractAgent
    from pydantic_ai.messages import ModelMessage
except ModuleNotFoundError as error:  # pragma: no cover - only without the extra
    raise ImportError(missing_extra("pydantic-ai", "pydantic-ai")) from error

__all__ = [
    "AgentBindings",
    "PydanticAIAdapter",
    "PydanticAIRun",
    "SessionModel",
    "Turnstile",
    "session_model",
    "session_tools",
    "to_openai_messages",
]

LIMIT_CODES = (
    ("request_limit", Code.BUDGET_STEPS),
    ("tool_calls_limit", Code.BUDGET_CALLS),
)
"""Which limit a `UsageLimitExceeded` names, by its message; token and cost limits fall through
to ``BUDGET_COST`` (tokens are what cost is made of)."""


PerAgentBuilder = Callable[[AgentBindings], AbstractAgent[Any, Any]]


@dataclass(kw_only=True)
class PydanticAIRun:
    """What one run left: its output, or the `UsageLimitExceeded` it raised, and the messages."""

    output: Any = None
    limit_error: UsageLimitExceeded | None = None
    messages: list[ModelMessage] = field(default_factory=list)


class PydanticAIAdapter:
    """Runs a pydantic-ai `Agent` on the session's task with ``agent.run`` (the loop of
    ``run_sync`` and ``iter``; not ``run_stream``, which ends at the first output) under
    ``agent.override(model=…, tools=…, toolsets=[])`` — pydantic-ai's own testing seam — so
    the agent's output type, instructions, retries and limits stay its own, and its own tools
    and toolsets (an MCP server it ships with) are neither offered nor started. It runs on an
    event loop of its own (``asyncio.run``), which is closed even when a harness ceiling ends
    the run mid-request.

    ``usage_limits=None`` keeps pydantic-ai's default (``UsageLimits()``: 50 requests);
    ``"budget"`` limits requests, total tokens and dollars (at the scenario's prices) to the
    scenario's budget. ``deps`` are the agent's dependencies (``RunContext.deps``), passed to
    every run as production passes them. ``per_agent=True`` makes ``agent`` a ``build(bind)``
    given `AgentBindings`, for an agent that delegates to others in its tools: ``bind.model(name)``
    and ``bind.tools(name)`` belong to agent ``name``, and the agent it returns runs as built, its
    own tools among them (nothing is overridden, so every agent must be on a ``bind.model``).

    >>> unsolvable.run(PydanticAIAdapter(Agent(instructions="...")),
    ...             scenarios.get("constant-return/repeat"))            # doctest: +SKIP
    """

    def __init__(
        self,
        agent: AbstractAgent[Any, Any] | PerAgentBuilder,
        *,
        per_agent: bool = False,
        usage_limits: UsageLimits | Budgeted | None = None,
        deps: Any = None,
        name: str = "pydantic-ai",
    ) -> None:
        if per_agent:
            _check_builder(agent)
        elif not isinstance(agent, AbstractAgent):
            raise AdapterError(
                f"PydanticAIAdapter(agent={agent!r}): pass a pydantic_ai.Agent (or a "
                "WrapperAgent around one), built as you ship it with defer_model_check=True "
                "(or with no model), so that building it needs no API key: the adapter "
                "overrides its model with the session's FunctionModel"
            )
        if not (
            usage_limits is None or usage_limits == BUDGET or isinstance(usage_limits, UsageLimits)
        ):
            raise AdapterError(
                f"PydanticAIAdapter(usage_limits={usage_limits!r}): use a "
                "pydantic_ai.UsageLimits, 'budget' (the scenario's steps and tokens) or None "
                "(pydantic-ai's default, UsageLimits(): 50 requests)"
            )
        self.agent, self.per_agent = agent, per_agent
        self.usage_limits, self.deps, self.name = usage_limits, deps, name

    def run(self, session: Session) -> PydanticAIRun:
        outcome, turnstile = PydanticAIRun(), Turnstile()
        agent, override = self._prepared(session, turnstile)
        with capture_run_messages() as messages, override:
            try:
                limits = self._limits(session)
                run = agent.run(session.task, deps=self.deps, usage_limits=limits)
                result = asyncio.run(run)
            except UsageLimitExceeded as error:
                outcome.limit_error = error
            else:
                outcome.output = result.output
            finally:
                turnstile.close()
            outcome.messages = list(messages)
        return outcome

    def _prepared(
        self, session: Session, turnstile: Turnstile
    ) -> tuple[AbstractAgent[Any, Any], AbstractContextManager[object]]:
        """The agent to run and what it runs under: the agent overridden with the session's
        model and tools, or, per agent, the agent ``build`` made on each agent's own, as built."""
        if not self.per_agent:
            agent = cast(AbstractAgent[Any, Any], self.agent)
            override = agent.override(
                model=session_model(session, turnstile=turnstile),
                tools=session_tools(session, turnstile=turnstile),
                toolsets=[],
            )
            return agent, override
        built = cast(PerAgentBuilder, self.agent)(
            AgentBindings(session=session, turnstile=turnstile)
        )
        if not isinstance(built, AbstractAgent):
            raise AdapterError(
                f"PydanticAIAdapter(per_agent=True): build returned {built!r:.80}, not a "
                "pydantic_ai.Agent; return the agent that runs the task, built on "
                "bind.model(name)"
            )
        return built, contextlib.nullcontext()

    def _limits(self, session: Session) -> UsageLimits | None:
        if self.usage_limits == BUDGET:
            budget = session.budget
            dollars = budget.max_cost_usd
            return UsageLimits(
                request_limit=budget.max_steps,
                total_tokens_limit=budget.max_tokens,
                cost_limit=None if dollars is None else Decimal(str(dollars)),
            )
        return self.usage_limits

    def interpret(self, returned: object, error: BaseException | None) -> Stop | None:
        if error is not None or not isinstance(returned, PydanticAIRun):
            return None
        partial = partial_from_messages(to_openai_messages(returned.messages))
        if returned.limit_error is not None:
            message = str(returned.limit_error)
            code = next((c for key, c in LIMIT_CODES if key in message), Code.BUDGET_COST)
            return Stop(code=code, reason=f"pydantic-ai: {message}", partial=partial)
        if isinstance(returned.output, DeferredToolRequests):
            return _paused(returned.output, partial)
        stop = interpret_plain(as_mapping(returned.output))
        if stop is not None:
            return stop
        reason = f"output: {returned.output!s:.160}"
        return Stop(code=Code.COMPLETED, reason=reason, partial=partial)


def _check_builder(build: object) -> None:
    """Refuses what ``per_agent=True`` cannot build from: an agent, or no ``build(bind)``."""
    if isinstance(build, AbstractAgent) or not callable(build):
        raise AdapterError(
            f"PydanticAIAdapter({build!r:.80}, per_agent=True): pass a callable build(bind) "
            "returning the agent, each agent built on its own bind.model(name); a ready agent "
            "holds no per-agent model"
        )
    check_build_form(build, per_agent=True, adapter="PydanticAIAdapter", arguments=("agent",))


def _paused(requests: DeferredToolRequests, partial: JSON) -> Stop:
    """The stop of a run that ended with tool calls deferred to someone outside it: each named
    with what it waits for (an approval, an answer, an outside result)."""
    waits = {"approval": "approval of", "question": "an answer to", "external": "the result of"}
    pending = [*requests.approvals, *requests.calls]
    asked = ", ".join(
        f"{waits[requests.kind(call.tool_call_id)]} {call.tool_name}" for call in pending
    )
    reason = f"pydantic-ai: the run paused for {asked}"
    return Stop(code=Code.NEEDS_HUMAN, reason=reason, partial=partial)
