"""Consumes a smolagents agent builder, produces a run on a session — the model a `Model` subclass
answered by the session — and the `Stop` read from how it ended.

smolagents' stops, read into the vocabulary:

- ``max_steps`` (default 20) reached → ``exhausted``/``BUDGET_STEPS``. At its limit smolagents
  makes **one more model call with no tools** ("give your best final answer") and returns that
  text as the answer, which can claim success; the adapter reads ``RunResult.state ==
  "max_steps_error"``, smolagents' own flag: a model call offering no tools says nothing by
  itself, since a planning step (``planning_interval``) is one too.
- A ``final_answer`` → ``complete``/``COMPLETED`` as the agent's claim (checked against the
  world); an answer with a ``code`` (a `Stop`, a mapping, a pydantic model or a dataclass) is
  read as that `Stop`.

smolagents runs a reply's tool calls on a thread pool; the scenario's tools take their turn
(`CallTurns`), so their effects on the world come in the reply's order and a run's record is the
same on every run.

`ToolCallingAgent` is supported; a `CodeAgent` (or one managed by the agent) writes Python
instead of tool calls, which the scripted model does not speak, and is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, cast

from unsolvable._errors import AdapterError
from unsolvable._session import Session
from unsolvable._stop import Code, Stop
from unsolvable._types import JSON
from unsolvable.adapters._smolagents import (
    FINAL_ANSWER_TOOL,
    AgentBindings,
    CallTurns,
    SessionModel,
    session_tools,
)
from unsolvable.adapters.base import interpret_plain
from unsolvable.adapters.kit import (
    BUDGET,
    Budgeted,
    as_mapping,
    check_build_form,
    is_step_limit,
    missing_extra,
    partial_from_messages,
)

try:
    # smolagents ships no type information (no py.typed): these imports are Any to mypy.
    from smolagents import CodeAgent, MultiStepAgent, Tool  # type: ignore[import-untyped]
    from smolagents.agents import RunResult  # type: ignore[import-untyped]
    from smolagents.models import Model  # type: ignore[import-untyped]
except ModuleNotFoundError as error:  # pragma: no cover - only without the extra
    raise ImportError(missing_extra("smolagents", "smolagents")) from error

__all__ = [
    "FINAL_ANSWER_TOOL",
    "AgentBindings",
    "CallTurns",
    "SessionModel",
    "SmolagentsAdapter",
    "SmolagentsRun",
    "session_tools",
]

MAX_STEPS_ERROR = "AgentMaxStepsError"
"""The error smolagents records on the step of its forced final answer."""
BUILD_EXAMPLE = "e.g. lambda model, tools: ToolCallingAgent(tools=tools, model=model)"
"""How a ``build`` the adapter takes looks, for its refusals."""


@dataclass(frozen=True, kw_only=True)
class SmolagentsRun:
    """What one ``agent.run`` left, and the ``max_steps`` it ran under."""

    result: RunResult
    max_steps: int


AgentBuilder = Callable[[Model, list[Tool]], MultiStepAgent]
PerAgentBuilder = Callable[[AgentBindings], MultiStepAgent]


class SmolagentsAdapter:
    """Runs the agent made by ``build(model, tools)`` (e.g. a `ToolCallingAgent`) on the task.

    ``max_steps=None`` keeps the agent's own (smolagents' default: 20); ``"budget"`` makes the
    whole run, planning steps and the forced final answer included, fit the scenario's
    ``max_steps``. ``per_agent=True`` makes ``build`` a ``build(bind)`` given `AgentBindings`:
    ``bind.model(name)`` and ``bind.tools(name)`` belong to agent ``name`` (the agents a tool of
    yours runs, managed agents), so the record counts each agent's steps apart; without it every
    agent's calls are ``main``'s.

    >>> SmolagentsAdapter(lambda model, tools: ToolCallingAgent(tools=tools, model=model))
    ... # doctest: +SKIP
    """

    def __init__(
        self,
        build: AgentBuilder | PerAgentBuilder,
        *,
        per_agent: bool = False,
        max_steps: int | Budgeted | None = None,
        name: str = "smolagents",
    ) -> None:
        if isinstance(build, MultiStepAgent):
            raise AdapterError(
                f"SmolagentsAdapter: {_label(build)} is an agent, not a build(model, tools): the "
                "adapter builds the agent on the session's model and the scenario's tools; pass "
                f"the function that builds it, {BUILD_EXAMPLE}"
            )
        if not callable(build):
            raise AdapterError(
                f"SmolagentsAdapter(build={build!r}): pass a callable build(model, tools) "
                f"returning an agent, {BUILD_EXAMPLE}"
            )
        if not is_step_limit(max_steps):
            raise AdapterError(
                f"SmolagentsAdapter(max_steps={max_steps!r}): use a positive int, 'budget' (the "
                "scenario's max_steps, the forced final answer included) or None (the agent's "
                "own, smolagents' default 20); smolagents itself reads 0 as the agent's own"
            )
        form = ("model", "tools")
        check_build_form(build, per_agent=per_agent, adapter="SmolagentsAdapter", arguments=form)
        self.build, self.per_agent, self.max_steps, self.name = build, per_agent, max_steps, name

    def run(self, session: Session) -> SmolagentsRun:
        turns = CallTurns()
        agent = _tool_calling(self._built(session, turns))
        max_steps = self._max_steps(session, agent.planning_interval) or agent.max_steps
        try:
            result = agent.run(session.task, max_steps=max_steps, return_full_result=True)
        finally:
            turns.close()
        if not isinstance(result, RunResult):
            raise AdapterError(f"smolagents returned {type(result).__name__}, not a RunResult")
        return SmolagentsRun(result=result, max_steps=max_steps)

    def _built(self, session: Session, turns: CallTurns) -> object:
        """What ``build`` makes: on one model and the tools, or, per agent, on each agent's own."""
        if self.per_agent:
            bind = AgentBindings(session=session, turns=turns)
            return cast(PerAgentBuilder, self.build)(bind)
        model = SessionModel(session, turns=turns)
        return cast(AgentBuilder, self.build)(model, session_tools(session, turns=turns))

    def _max_steps(self, session: Session, planning_interval: int | None) -> int | None:
        """``"budget"``: the most steps whose model calls fit the budget (`_fitting_steps`)."""
        if self.max_steps == BUDGET:
            return _fitting_steps(session.budget.max_steps, planning_interval)
        return self.max_steps

    def interpret(self, returned: object, error: BaseException | None) -> Stop | None:
        if error is not None or not isinstance(returned, SmolagentsRun):
            return None
        result = returned.result
        partial = partial_from_messages(_step_messages(result.steps))
        if result.state == "max_steps_error":
            reason = (
                f"smolagents reached max_steps={returned.max_steps} and asked the model for a "
                f"final answer with no tools, which said: {result.output!s:.100}"
            )
            return Stop(code=Code.BUDGET_STEPS, reason=reason, partial=partial)
        stop = interpret_plain(as_mapping(result.output))
        if stop is not None:
            return stop
        reason = f"final answer: {result.output!s:.160}"
        return Stop(code=Code.COMPLETED, reason=reason, partial=partial)


def _fitting_steps(budget: int, planning_interval: int | None) -> int:
    """The most action steps (at least one) whose model calls fit in ``budget``: one each, a
    planning step before the first and every ``planning_interval`` after it, and the forced
    final answer at the end."""
    steps = max(1, budget - 1)
    while steps > 1 and steps + _plans(steps, planning_interval) + 1 > budget:
        steps -= 1
    return steps


def _plans(steps: int, planning_interval: int | None) -> int:
    """The planning steps smolagents runs in ``steps`` action steps: at steps 1, 1 + interval,
    1 + 2 × interval…"""
    return -(-steps // planning_interval) if planning_interval else 0


def _tool_calling(built: object) -> MultiStepAgent:
    """What ``build`` returned, if it is a smolagents agent that acts, and whose managed agents
    act, by tool calls: a `CodeAgent` reads its actions out of the model's text, so on the
    scripted model each of its steps fails to parse and the run ends at ``max_steps`` having
    called no tool, which would pass for a stop of its own."""
    if not isinstance(built, MultiStepAgent):
        raise AdapterError(
            f"SmolagentsAdapter: build returned {built!r:.80}, not a smolagents agent; return "
            f"one, {BUILD_EXAMPLE}"
        )
    coding = next((a for a in _agents(built) if isinstance(a, CodeAgent)), None)
    if coding is not None:
        raise AdapterError(
            f"SmolagentsAdapter: {_label(coding)} acts by writing Python, which the scripted "
            f"model does not write (it calls tools): build a ToolCallingAgent instead, "
            f"{BUILD_EXAMPLE}"
        )
    return built


def _label(agent: MultiStepAgent) -> str:
    """An agent by its class and, if it has one, its name: its repr runs long."""
    kind = type(agent).__name__
    return f"{kind} {agent.name!r}" if agent.name else kind


def _agents(agent: MultiStepAgent) -> Iterator[MultiStepAgent]:
    """``agent`` and the agents it manages, theirs included."""
    yield agent
    for managed in agent.managed_agents.values():
        yield from _agents(managed)


def _step_messages(steps: list[dict[str, Any]]) -> list[JSON]:
    """The run's action steps as messages: what the model said and called, then what came back
    (an observation, or the error smolagents recorded in its place). A step that ran no
    scenario tool — the forced final answer, whose error is ``AgentMaxStepsError``, or a
    ``final_answer`` call — has no tool result: counting one made 21 of 20."""
    messages: list[JSON] = []
    for step in steps:
        if "step_number" not in step:
            continue
        names = [{"name": c.get("function", {}).get("name")} for c in step.get("tool_calls") or ()]
        said: JSON = {"role": "assistant", "content": step.get("model_output") or ""}
        messages.append({**said, "tool_calls": names} if names else said)
        error = step.get("error")
        if _ran_no_tool(names, error):
            continue
        if step.get("observations") is not None:
            messages.append({"role": "tool", "content": str(step["observations"])})
        elif isinstance(error, dict):
            messages.append({"role": "tool", "content": f"error: {error.get('message', '')}"})
    return messages


def _ran_no_tool(names: list[JSON], error: object) -> bool:
    """A ``final_answer`` call, or smolagents' own error at ``max_steps`` (its forced final
    answer); a scenario tool that raised leaves no call in the step, but its error."""
    if names and all(name["name"] == FINAL_ANSWER_TOOL for name in names):
        return True
    return isinstance(error, dict) and error.get("type") == MAX_STEPS_ERROR
