"""Consumes a CrewAI crew builder, produces a run on a session — every model call through CrewAI's
native OpenAI provider (`OpenAICompletion`, the openai SDK's Chat Completions) on the fake model's
wire — and the `Stop` read from how the crew ended.

CrewAI's stops, read into the vocabulary (crewai 1.15.44, ``crewai.agents.agent_executor``):

- An agent's ``max_iter`` (default 25; one iteration = one model call with tools) never raises:
  at the limit CrewAI appends "Now it's time you MUST give your absolute best final answer …" as a
  user turn, makes **one more model call with no tools** and returns that text as the task's
  output, exactly as it returns a real one. CrewAI does not flag it, so the record holds it as the
  agent's claim — ``complete``/``COMPLETED``, which the verdict checks against the world (the
  reason says the answer was forced).
- A final answer → ``complete``/``COMPLETED`` as the agent's claim; a structured output
  (``output_pydantic`` / ``output_json``) with a ``code`` is read as that `Stop`.
- An agent's ``max_execution_time`` (seconds of real time; none by default) raises
  `TimeoutError` at the limit → ``exhausted``/``BUDGET_TIME``, with the timed agent's
  conversation as partial. CrewAI does not wait for the thread it timed, which goes on with its
  loop: its next call, refused, is work left running (``left_running``).
- A task's ``guardrail`` that rejects every answer: CrewAI runs the task again with the
  guardrail's error, ``guardrail_max_retries`` times (3 by default), then raises a bare
  `Exception` ("Task failed guardrail validation after 3 retries") → ``abandoned``/
  ``NEEDS_HUMAN``: the crew's own check halted the run on purpose, as a guardrail's tripwire does
  in the Agents SDK.
- A task with ``human_input=True``: CrewAI shows its answer and reads a person's feedback from
  the console, where production waits for one → ``abandoned``/``NEEDS_HUMAN`` at the ask, the
  asking agent's conversation as partial (the harness has no person to answer).
- A tool that raises: CrewAI hands ``"Error executing tool: …"`` to the model and goes on.
- The **same tool call with the same arguments getting the same result five times in a row**
  (CrewAI's repeated-call guard, ``MAX_REPEATED_TOOL_CALLS``; any other call in between starts
  the count again): the fourth result tells the model so, and the fifth takes its tools and
  forces a final answer, as ``max_iter`` does → ``complete``/``COMPLETED``, the reason naming the
  guard (read from the output's ``tool_failures``; under ``tool_failure_policy="ignore"`` CrewAI
  records nothing, and the reason names both causes it may have been). A stuck agent that a
  changing result (a fresh request id) does not trip runs on to ``max_iter``. Under
  ``tool_failure_policy="raise"`` (on the agent, task or crew) the guard aborts the run with
  ``ToolExecutionFailedError`` → ``abandoned``/``NO_PROGRESS``; a tool that reports a failure
  under it aborts the same way → ``abandoned``/``ERROR_FATAL``, naming the tool; a tool's spent
  ``max_usage_count`` → ``exhausted``/``BUDGET_CALLS``.
- A hook that stops the run (one raising `HookAborted`, or ``before_llm_call`` returning
  ``False``, on which CrewAI first runs the task again ``max_retry_limit`` times) →
  ``crashed``, as `HookStopped`, naming the hook: it gives no code, and only its author knows
  whether it stopped for a budget, for lack of progress or for a person.

Refused before the first call, with what to pass instead (`_crewai_refusals`): an agent or a
planner on a real model, memory and knowledge (a real embedder, and model calls no scenario
scripts), tasks that run at once on one agent's script, and a `Flow` in place of a crew.

A lone `Agent` in place of a crew runs as production runs one, ``agent.kickoff(task)``: CrewAI's
same executor, so the same stops, but for its own ``guardrail``, whose spent retries raise a
`ValueError` (→ ``abandoned``/``NEEDS_HUMAN``).

At ``max_rpm`` (the crew's or an agent's) CrewAI sleeps out the minute and goes on, for every
model call it makes (the forced final answer, and the one retry of an empty answer, too): that
minute is a wait on the session clock here (`Session.sleep`), counted against the time budget,
not 60 s of real time that would run into the harness's wall ceiling.

With ``per_agent=True`` each agent of a crew (a hierarchical crew's manager and its coworkers)
gets an LLM of its own, ``bind.llm(name)``, bound to its name on the wire, and tools of its own,
``bind.tools(name)``: its model calls are that agent's steps, its tool calls that agent's.

CrewAI needs openai<3, mcp<2 and pydantic<2.13, which the harness's other extras do not allow:
install ``pytest-unsolvable[crewai]`` in an environment of its own. Its telemetry and tracing are
switched off here (unless the environment already says otherwise) before CrewAI is imported: they
would send every run to CrewAI's hosts.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from unsolvable._environ import CREWAI_TELEMETRY_OFF
from unsolvable._errors import AdapterError
from unsolvable._record import Code, Stop
from unsolvable._session import Session
from unsolvable._types import JSON
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
from unsolvable.wire import Wire

for _name, _value in CREWAI_TELEMETRY_OFF.items():
    os.environ.setdefault(_name, _value)

try:
    from crewai import Agent, Crew, CrewOutput, Process, Task
    from crewai.lite_agent_output import LiteAgentOutput
    from crewai.tools import BaseTool
    from crewai.tools.tool_failure import (
        ToolExecutionFailedError,
        ToolFailurePolicy,
        ToolFailureReason,
        ToolFailureRecord,
        resolve_tool_failure_policy,
    )
    from crewai.utilities.agent_utils import MAX_REPEATED_TOOL_CALLS

    from unsolvable.adapters._crewai import (
        BASE_URL,
        AgentBindings,
        SessionTool,
        WireLLM,
        session_tools,
        wire_llm,
    )
    from unsolvable.adapters._crewai_kickoff import (
        CrewAIRun,
        HookStopped,
        kickoff_agent,
        kickoff_crew,
        plain_messages,
    )
    from unsolvable.adapters._crewai_refusals import (
        check_agent,
        check_crew,
        executing,
        knowledge_refused,
        not_a_crew,
    )
except ModuleNotFoundError as error:  # pragma: no cover - only without the extra
    raise ImportError(
        f"{missing_extra('crewai', 'crewai')} in an environment of its own: CrewAI pins "
        "openai<3, mcp<2 and pydantic<2.13, which the other extras do not allow"
    ) from error

__all__ = [
    "BASE_URL",
    "AgentBindings",
    "CrewAIAdapter",
    "CrewAIRun",
    "HookStopped",
    "SessionTool",
    "WireLLM",
    "adapter",
    "default_crew",
    "session_tools",
    "wire_llm",
]

CrewBuilder = Callable[[WireLLM, list[BaseTool]], Crew | Agent]
PerAgentBuilder = Callable[[AgentBindings], Crew | Agent]


def default_crew(llm: WireLLM, tools: list[BaseTool]) -> Crew:
    """One `Agent` at CrewAI's defaults on one `Task` whose description is the session's task
    (``{task}``, filled in by ``kickoff(inputs=…)``)."""
    agent = Agent(
        role="Assistant",
        goal="Complete the task you are given",
        backstory="You complete tasks with the tools you have.",
        llm=llm,
        tools=[*tools],
    )
    task = Task(description="{task}", expected_output="The task's result", agent=agent)
    return Crew(agents=[agent], tasks=[task])


class CrewAIAdapter:
    """Runs the crew made by ``build(llm, tools)`` on the session's task (``kickoff(inputs=
    {"task": …})``: write ``{task}`` where a task's description should hold it); a build that
    makes one `Agent` runs it alone, ``agent.kickoff(task)``.

    ``max_iter=None`` keeps each agent's own (CrewAI's default 25); an int sets it on every agent
    of the crew; ``"budget"`` sets the scenario's ``max_steps`` minus one, to fit the forced final
    answer in. ``per_agent=True`` makes ``build`` a ``build(bind)`` given `AgentBindings`, each
    agent on an LLM of its own.

    >>> CrewAIAdapter(lambda llm, tools: Crew(agents=[...], tasks=[...]),
    ...               max_iter=10)                                        # doctest: +SKIP
    """

    def __init__(
        self,
        build: CrewBuilder | PerAgentBuilder = default_crew,
        *,
        per_agent: bool = False,
        max_iter: int | Budgeted | None = None,
        wire: Mapping[str, Any] | None = None,
        name: str = "crewai",
    ) -> None:
        if not callable(build):
            raise AdapterError(
                f"CrewAIAdapter(build={build!r}): pass a callable build(llm, tools) returning a "
                "Crew, e.g. lambda llm, t: Crew(agents=[Agent(..., llm=llm, tools=t)], tasks=[...])"
                " (with per_agent=True, build(bind), each agent on bind.llm(name))"
            )
        check_build_form(
            build, per_agent=per_agent, adapter="CrewAIAdapter", arguments=("llm", "tools")
        )
        if not is_step_limit(max_iter):
            raise AdapterError(
                f"CrewAIAdapter(max_iter={max_iter!r}): use a positive int, 'budget' (the "
                "scenario's max_steps) or None (each agent's own, 25 by default)"
            )
        self.build, self.per_agent, self.max_iter = build, per_agent, max_iter
        self.wire_options, self.name = dict(wire or {}), name

    def run(self, session: Session) -> CrewAIRun:
        with Wire(session, **self.wire_options) as wire:
            with knowledge_refused():
                built = self._built(session, wire)
            if isinstance(built, Agent):
                return self._kickoff_agent(built, session)
            return self._kickoff_crew(built, session)

    def _built(self, session: Session, wire: Wire) -> Crew | Agent:
        if self.per_agent:
            bind = AgentBindings(session=session, wire=wire)
            built = cast("PerAgentBuilder", self.build)(bind)
        else:
            built = cast("CrewBuilder", self.build)(wire_llm(wire), session_tools(session))
        if not isinstance(built, (Crew, Agent)):
            raise not_a_crew(built)
        return built

    def _kickoff_crew(self, crew: Crew, session: Session) -> CrewAIRun:
        if crew.process == Process.hierarchical and crew.manager_agent is None:
            # A crew given a manager_llm gets its manager only inside kickoff, which keeps one
            # made before it: made here, the manager is one of the agents the limit is set on.
            crew._create_manager_agent()
        limits = self._set_max_iter(_agents(crew), session)
        check_crew(crew, _agents(crew), scripted=WireLLM)
        _wait_on_the_session_clock([crew._rpm_controller, *_controllers(_agents(crew))], session)
        ended = kickoff_crew(crew, session.task)
        return dataclasses.replace(ended, forced=_forced_in_crew(crew, ended.output, limits))

    def _kickoff_agent(self, agent: Agent, session: Session) -> CrewAIRun:
        """A lone agent run as production runs one, ``agent.kickoff(task)``."""
        limits = self._set_max_iter([agent], session)
        check_agent(agent, scripted=WireLLM)
        _wait_on_the_session_clock(_controllers([agent]), session)
        ended = kickoff_agent(agent, session.task)
        output = ended.output
        if not isinstance(output, LiteAgentOutput):
            return ended
        if not cast(WireLLM, agent.llm).forced(output.messages):
            return ended
        forced = _how_forced(agent, None, None, output.tool_failures, limits)
        return dataclasses.replace(ended, forced=forced)

    def _set_max_iter(self, agents: Sequence[Agent], session: Session) -> tuple[int, ...]:
        if self.max_iter == BUDGET:
            limit: int | None = max(1, session.budget.max_steps - 1)
        else:
            limit = self.max_iter if isinstance(self.max_iter, int) else None
        for agent in agents:
            if limit is not None:
                agent.max_iter = limit
        return tuple(agent.max_iter for agent in agents)

    def interpret(self, returned: object, error: BaseException | None) -> Stop | None:
        if error is not None or not isinstance(returned, CrewAIRun):
            return None
        if returned.tool_failure is not None:
            return _aborted(returned.tool_failure)
        if returned.halt is not None:
            partial = partial_from_messages(returned.halted_messages)
            reason = f"CrewAI: {returned.halt_reason}"
            return Stop(code=returned.halt, reason=reason, partial=partial)
        output = returned.output
        if output is None:
            return None
        if isinstance(output, LiteAgentOutput):
            messages, structured = output.messages, output.pydantic
        else:
            tasks = output.tasks_output
            messages = tasks[-1].messages if tasks else []
            structured = output.pydantic if output.pydantic is not None else output.json_dict
        partial = partial_from_messages(plain_messages(messages))
        stop = interpret_plain(as_mapping(structured))
        if stop is not None:
            return stop
        text = output.raw
        if returned.forced:
            text = (
                f"forced {returned.forced} (CrewAI's 'best final answer'), with no tools, and "
                f"returned as the answer: {text}"
            )
        return Stop(code=Code.COMPLETED, reason=f"final answer: {text}"[:200], partial=partial)


ABORT_CODES = {
    ToolFailureReason.REPEATED_CALL: Code.NO_PROGRESS,
    ToolFailureReason.USAGE_LIMIT: Code.BUDGET_CALLS,
}
"""CrewAI's aborts on a tool that are not a fatal error: its repeated-call guard is a stop for
lack of progress, and a tool's spent ``max_usage_count`` (under the ``raise`` policy) is a budget
of calls run out."""


def _aborted(error: ToolExecutionFailedError) -> Stop:
    """CrewAI's abort on a tool: `ABORT_CODES`, else (a tool failure under the ``raise`` policy)
    a fatal error."""
    record = error.record
    partial: JSON = {"tool": record.tool_name, "failure": record.failure.reason.value}
    return Stop(
        code=ABORT_CODES.get(record.failure.reason, Code.ERROR_FATAL),
        reason=f"CrewAI: {record.failure.message}"[:200],
        partial=partial,
    )


def _agents(crew: Crew) -> list[Agent]:
    """The crew's agents and, in a hierarchical crew, its manager."""
    managed = [crew.manager_agent] if crew.manager_agent is not None else []
    return [*crew.agents, *managed]


def _controllers(agents: Sequence[Agent]) -> list[Any]:
    """The agents' rate limiters (``max_rpm``)."""
    return [agent._rpm_controller for agent in agents]


def _wait_on_the_session_clock(controllers: Sequence[Any], session: Session) -> None:
    """Makes the minute CrewAI sleeps out at ``max_rpm`` (the crew's or an agent's) a wait on the
    session clock: the run goes on as in production, the minute counted against the time
    budget, where 60 s of real time would run into the harness's wall ceiling."""
    for controller in controllers:
        if controller is not None:  # an agent shares the crew's, and is given the same wait
            controller._wait_for_next_minute = _next_minute(controller, session)


def _next_minute(controller: Any, session: Session) -> Callable[[], None]:
    def wait() -> None:
        session.sleep(60)
        controller._current_rpm = 0  # as CrewAI's own wait ends

    return wait


def _forced_in_crew(crew: Crew, output: object, limits: Sequence[int]) -> str:
    """How CrewAI forced the answer that is the crew's output (`_how_forced`), or "": the last
    answer of a hierarchical crew's manager, else of the last task's agent. Another agent's
    forced answer, on the same LLM or not, is only what its task or delegation returned."""
    task = crew.tasks[-1] if crew.tasks else None
    agent = executing(crew, task)
    llm = getattr(agent, "llm", None)
    conversation = getattr(getattr(agent, "agent_executor", None), "messages", None) or []
    if agent is None or not (isinstance(llm, WireLLM) and llm.forced(conversation)):
        return ""
    tasks = output.tasks_output if isinstance(output, CrewOutput) else []
    failures = tasks[-1].tool_failures if tasks else []
    return _how_forced(agent, task, crew, failures, limits)


def _how_forced(
    agent: Agent,
    task: Task | None,
    crew: Crew | None,
    failures: Sequence[ToolFailureRecord],
    limits: Sequence[int],
) -> str:
    """What made CrewAI force ``agent``'s answer: its repeated-call guard when the ``failures``
    of its output hold the guard's stop of that agent, else its ``max_iter`` — unless the tool
    failure policy is ``ignore``, under which the guard records nothing to tell the two apart."""
    guard = next(
        (
            f
            for f in failures
            if f.failure.reason is ToolFailureReason.REPEATED_CALL and f.agent_role == agent.role
        ),
        None,
    )
    if guard is not None:
        times = f"{MAX_REPEATED_TOOL_CALLS} times in a row"
        return f"by its repeated-call guard ({guard.tool_name!r} {times})"
    at_limit = "at max_iter=" + ", ".join(map(str, limits))
    if resolve_tool_failure_policy(agent=agent, task=task, crew=crew) is ToolFailurePolicy.IGNORE:
        unrecorded = "unrecorded: tool_failure_policy='ignore'"
        return f"{at_limit} or by its repeated-call guard ({unrecorded})"
    return at_limit


adapter = CrewAIAdapter()
"""The registered ``crewai`` agent: one agent on one task at CrewAI's defaults
(``unsolvable run --agent crewai``)."""
