"""Consumes a CrewAI crew builder, produces a run on a session — every model call through CrewAI's
native OpenAI provider (`OpenAICompletion`, the openai SDK's Chat Completions) on the fake model's
wire — and the `Stop` read from how the crew ended.

CrewAI's stops, read into the vocabulary (crewai 1.15, ``crewai.agents.agent_executor``):

- An agent's ``max_iter`` (default 25; one iteration = one model call with tools) never raises:
  at the limit CrewAI appends "Now it's time you MUST give your absolute best final answer …" as a
  user turn, makes **one more model call with no tools** and returns that text as the task's
  output, exactly as it returns a real one. CrewAI does not flag it, so the record holds it as the
  agent's claim — ``complete``/``COMPLETED``, which the verdict checks against the world (the
  reason says the answer was forced).
- A final answer → ``complete``/``COMPLETED`` as the agent's claim; a structured output
  (``output_pydantic`` / ``output_json``) with a ``code`` is read as that `Stop`.
- An agent's ``max_execution_time`` (seconds of real time; none by default) raises
  `TimeoutError` once the agent's loop has ended on its own: CrewAI waits for the thread it timed,
  so the model calls go on to ``max_iter`` first → ``exhausted``/``BUDGET_TIME``, with the timed
  agent's conversation as partial.
- A task's ``guardrail`` that rejects every answer: CrewAI runs the task again with the
  guardrail's error, ``guardrail_max_retries`` times (3 by default), then raises a bare
  `Exception` ("Task failed guardrail validation after 3 retries") → ``abandoned``/
  ``NEEDS_HUMAN``: the crew's own check halted the run on purpose, as a guardrail's tripwire does
  in the Agents SDK.
- A task with ``human_input=True``: CrewAI shows its answer and reads a person's feedback from
  the console, where production waits for one → ``abandoned``/``NEEDS_HUMAN`` at the ask, the
  asking agent's conversation as partial (the harness has no person to answer).
- A tool that raises: CrewAI hands ``"Error executing tool: …"`` to the model and goes on.
- The **same tool call with the same arguments getting the same result five times** (CrewAI's
  ``MAX_REPEATED_TOOL_CALLS``, on whatever the tool failure policy) aborts the run with
  ``ToolExecutionFailedError`` ("Stopped because it is not making progress") →
  ``abandoned``/``NO_PROGRESS``: a stuck agent that a changing result (a fresh request id) does
  not trip runs on to ``max_iter``. With ``tool_failure_policy="raise"`` a tool that reports a
  failure aborts the same way → ``abandoned``/``ERROR_FATAL``, naming the tool; a tool's spent
  ``max_usage_count`` → ``exhausted``/``BUDGET_CALLS``.
- A hook that stops the run (one raising `HookAborted`, or ``before_llm_call`` returning
  ``False``, on which CrewAI first runs the task again ``max_retry_limit`` times) →
  ``crashed``, as `HookStopped`, naming the hook: it gives no code, and only its author knows
  whether it stopped for a budget, for lack of progress or for a person.

Refused before the first call, with what to pass instead (`_crewai_refusals`): an agent or a
planner on a real model, memory and knowledge (a real embedder, and model calls no scenario
scripts), tasks that run at once on one agent's script, and a `Flow` or a lone `Agent` in place
of a crew.

At ``max_rpm`` (the crew's or an agent's) CrewAI sleeps out the minute and goes on: that minute
is a wait on the session clock here (`Session.sleep`), counted against the time budget, not 60 s
of real time that would run into the harness's wall ceiling.

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
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

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

TELEMETRY_OFF = {
    "CREWAI_DISABLE_TELEMETRY": "true",
    "CREWAI_DISABLE_TRACKING": "true",
    "CREWAI_TRACING_ENABLED": "false",
    "OTEL_SDK_DISABLED": "true",
}
"""What CrewAI reads (``crewai_core.telemetry``, ``crewai.execution``) to send nothing home."""
for _name, _value in TELEMETRY_OFF.items():
    os.environ.setdefault(_name, _value)

try:
    from crewai import Agent, Crew, CrewOutput, Process, Task
    from crewai.core.providers.human_input import (
        SyncHumanInputProvider,
        reset_provider,
        set_provider,
    )
    from crewai.hooks.dispatch import HookAborted
    from crewai.llms.base_llm import LLMCallBlockedError
    from crewai.tools import BaseTool
    from crewai.tools.tool_failure import ToolExecutionFailedError, ToolFailureReason
    from crewai.types.streaming import CrewStreamingOutput

    from unsolvable.adapters._crewai import (
        BASE_URL,
        AgentBindings,
        SessionTool,
        WireLLM,
        session_tools,
        wire_llm,
    )
    from unsolvable.adapters._crewai_refusals import (
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

TIMED_OUT = re.compile(
    r"^Task '(?P<task>.*)' (?P<limit>execution timed out after \d+ seconds)", re.DOTALL
)
"""How CrewAI's `TimeoutError` at an agent's ``max_execution_time`` begins (``crewai.agent``)."""
GUARDRAIL_FAILED = re.compile(r"^Task failed guardrail( \d+)? validation after \d+ retries\.")
"""How the bare `Exception` CrewAI raises when a task's guardrail retries are spent begins."""


class _PersonAsked(HookAborted):
    """A task asked a person for feedback on its answer. A `HookAborted`: CrewAI lets it through
    its task retries, as it does a hook's deliberate stop."""

    def __init__(self, role: str, messages: Sequence[JSON]) -> None:
        super().__init__(f"human_input=True asks a person for feedback on {role}'s answer")
        self.messages = tuple(messages)


class _NoPerson(SyncHumanInputProvider):
    """CrewAI's console feedback, where the harness has no person: the ask ends the run."""

    def handle_feedback(self, formatted_answer: Any, context: Any) -> Any:
        raise _PersonAsked(context.agent.role, _messages(context.messages))

    async def handle_feedback_async(self, formatted_answer: Any, context: Any) -> Any:
        raise _PersonAsked(context.agent.role, _messages(context.messages))


CrewBuilder = Callable[[WireLLM, list[BaseTool]], Crew]
PerAgentBuilder = Callable[[AgentBindings], Crew]


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


@dataclass(frozen=True, kw_only=True)
class CrewAIRun:
    """What one ``kickoff`` returned, or the tool failure it aborted with, or the other stop of
    CrewAI's it raised (a time limit, a guardrail, an ask for a person); and whether CrewAI
    forced the answer that is its output."""

    output: CrewOutput | None
    tool_failure: ToolExecutionFailedError | None = None
    halt: Code | None = None
    """The code of the other stop CrewAI raised, if it raised one."""
    halt_reason: str = ""
    """CrewAI's words for that stop."""
    halted_messages: tuple[JSON, ...] = ()
    """The conversation of the agent that stop ended."""
    forced_final_answers: int = 0
    """1 if CrewAI forced the crew's output at its agent's ``max_iter``, else 0."""
    max_iter: tuple[int, ...] = ()


class CrewAIAdapter:
    """Runs the crew made by ``build(llm, tools)`` on the session's task (``kickoff(inputs=
    {"task": …})``: write ``{task}`` where a task's description should hold it).

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
                crew = self._built(session, wire)
            limits = self._set_max_iter(crew, session)
            check_crew(crew, _agents(crew), scripted=WireLLM)
            _wait_on_the_session_clock(crew, session)
            ended = _kickoff(crew, session.task)
        return dataclasses.replace(
            ended, forced_final_answers=_forced_answers(crew), max_iter=limits
        )

    def _built(self, session: Session, wire: Wire) -> Crew:
        if self.per_agent:
            bind = AgentBindings(session=session, wire=wire)
            built = cast("PerAgentBuilder", self.build)(bind)
        else:
            built = cast("CrewBuilder", self.build)(wire_llm(wire), session_tools(session))
        if not isinstance(built, Crew):
            raise not_a_crew(built)
        return built

    def _set_max_iter(self, crew: Crew, session: Session) -> tuple[int, ...]:
        if self.max_iter == BUDGET:
            limit: int | None = max(1, session.budget.max_steps - 1)
        else:
            limit = self.max_iter if isinstance(self.max_iter, int) else None
        if crew.process == Process.hierarchical and crew.manager_agent is None:
            # A crew given a manager_llm gets its manager only inside kickoff, which keeps one
            # made before it: made here, the manager is one of the agents the limit is set on.
            crew._create_manager_agent()
        agents = _agents(crew)
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
        tasks = output.tasks_output
        partial = partial_from_messages(_messages(tasks[-1].messages if tasks else []))
        structured = output.pydantic if output.pydantic is not None else output.json_dict
        stop = interpret_plain(as_mapping(structured))
        if stop is not None:
            return stop
        text = output.raw
        if returned.forced_final_answers:
            limits = ", ".join(map(str, returned.max_iter))
            text = (
                f"forced at max_iter={limits} (CrewAI's 'best final answer'), with no tools, "
                f"and returned as the answer: {text}"
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


def _output(kicked_off: CrewOutput | CrewStreamingOutput) -> CrewOutput:
    """The crew's output; a crew made with ``stream=True`` runs only as its chunks are read, as
    production reads them, and then holds its output (or raises what the run raised)."""
    if not isinstance(kicked_off, CrewStreamingOutput):
        return kicked_off
    for _chunk in kicked_off:
        pass
    return kicked_off.result


def _agents(crew: Crew) -> list[Agent]:
    """The crew's agents and, in a hierarchical crew, its manager."""
    managed = [crew.manager_agent] if crew.manager_agent is not None else []
    return [*crew.agents, *managed]


def _wait_on_the_session_clock(crew: Crew, session: Session) -> None:
    """Makes the minute CrewAI sleeps out at ``max_rpm`` (the crew's or an agent's) a wait on the
    session clock: the run goes on as in production, the minute counted against the time
    budget, where 60 s of real time would run into the harness's wall ceiling."""
    controllers = [crew._rpm_controller, *(agent._rpm_controller for agent in _agents(crew))]
    for controller in controllers:
        if controller is not None:  # an agent shares the crew's, and is given the same wait
            controller._wait_for_next_minute = _next_minute(controller, session)


def _next_minute(controller: Any, session: Session) -> Callable[[], None]:
    def wait() -> None:
        session.sleep(60)
        controller._current_rpm = 0  # as CrewAI's own wait ends

    return wait


def _forced_answers(crew: Crew) -> int:
    """Whether CrewAI forced the answer that is the crew's output (1) or not (0): the last
    answer of a hierarchical crew's manager, else of the last task's agent. Another agent's
    forced answer, on the same LLM or not, is only what its task or delegation returned."""
    agent = executing(crew, crew.tasks[-1] if crew.tasks else None)
    llm = getattr(agent, "llm", None)
    conversation = getattr(getattr(agent, "agent_executor", None), "messages", None) or []
    return int(isinstance(llm, WireLLM) and llm.forced(conversation))


def _kickoff(crew: Crew, task: str) -> CrewAIRun:
    """The crew's output on ``task``, or the stop of CrewAI's it raised: its repeated-call guard,
    an ask for a person, a time limit, a guardrail's spent retries (a bare `Exception`, known by
    its words); a hook's stop is raised again as `HookStopped`."""
    provider = set_provider(_NoPerson())
    try:
        return CrewAIRun(output=_output(crew.kickoff(inputs={"task": task})))
    except ToolExecutionFailedError as error:
        return CrewAIRun(output=None, tool_failure=error)
    except _PersonAsked as asked:
        return _halted(Code.NEEDS_HUMAN, str(asked), asked.messages)
    except HookAborted as aborted:
        raise HookStopped(f"{_hook(aborted.source)} stopped the run: {aborted.reason}") from aborted
    except LLMCallBlockedError as blocked:
        raise HookStopped(BLOCKED) from blocked
    except TimeoutError as error:
        timed = TIMED_OUT.match(str(error))
        if timed is None:
            raise
        halted = next((t for t in crew.tasks if t.description == timed["task"]), None)
        reason = f"max_execution_time, {timed['limit']}"
        return _halted(Code.BUDGET_TIME, reason, _conversation(crew, halted))
    except Exception as error:
        if type(error) is not Exception or not GUARDRAIL_FAILED.match(str(error)):
            raise
        halted = next((t for t in crew.tasks if t.output is None), None)
        return _halted(Code.NEEDS_HUMAN, str(error), _conversation(crew, halted))
    finally:
        reset_provider(provider)


class HookStopped(Exception):
    """A CrewAI hook (``before_llm_call`` returning ``False``, or any hook raising
    `HookAborted`) stopped the run on purpose. The record keeps it as ``crashed``, saying so: a
    hook gives no code, and only its author knows whether it stopped the run for a budget, for
    lack of progress or for a person."""

    def __init__(self, what: str) -> None:
        super().__init__(
            f"{what} (a CrewAI hook's deliberate stop: recorded as crashed, as it gives no code "
            "to tell a budget spent from no progress or a person needed)"
        )


BLOCKED = (
    "a before_llm_call hook returned False and blocked a model call; CrewAI ran the task again "
    "on it, max_retry_limit times, then raised LLMCallBlockedError"
)
"""What CrewAI does when a hook returns ``False``: to it a blocked call is an error of the task,
which it retries; a hook that raises `HookAborted` ends the run at once."""


def _hook(source: object) -> str:
    """The hook that raised `HookAborted`, by the ``source`` it named, if any."""
    if source is None:
        return "a hook"
    return f"hook {getattr(source, '__qualname__', source)!s}"


def _halted(code: Code, reason: str, messages: Sequence[JSON]) -> CrewAIRun:
    return CrewAIRun(output=None, halt=code, halt_reason=reason, halted_messages=tuple(messages))


def _conversation(crew: Crew, task: Task | None) -> list[JSON]:
    """The conversation of the agent that ran ``task`` last, which a stopped task never puts in
    its output."""
    if task is None:
        return []
    executor = getattr(executing(crew, task), "agent_executor", None)
    return _messages(getattr(executor, "messages", None) or [])


def _messages(messages: Sequence[Any]) -> list[JSON]:
    """The task's conversation (CrewAI keeps it in Chat Completions' shape) as plain mappings."""
    return [dict(m) for m in messages if isinstance(m, Mapping)]


adapter = CrewAIAdapter()
"""The registered ``crewai`` agent: one agent on one task at CrewAI's defaults
(``unsolvable run --agent crewai``)."""
