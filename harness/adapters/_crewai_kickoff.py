"""Consumes a crew or a lone agent on the fake model, produces what its ``kickoff`` ended with:
the output, or the stop CrewAI raised (its repeated-call guard, a time limit, a guardrail's spent
retries, an ask for a person) as a `CrewAIRun`, or a hook's stop as `HookStopped`. Imported by
`unsolvable.adapters.crewai`, once CrewAI's telemetry is switched off."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from crewai import Agent, Crew, CrewOutput, Task
from crewai.core.providers.human_input import (
    SyncHumanInputProvider,
    reset_provider,
    set_provider,
)
from crewai.hooks.dispatch import HookAborted
from crewai.lite_agent_output import LiteAgentOutput
from crewai.llms.base_llm import LLMCallBlockedError
from crewai.tools.tool_failure import ToolExecutionFailedError
from crewai.types.streaming import CrewStreamingOutput

from unsolvable._record import Code
from unsolvable._types import JSON
from unsolvable.adapters._crewai import WireLLM
from unsolvable.adapters._crewai_refusals import executing

__all__ = ["CrewAIRun", "HookStopped", "kickoff_agent", "kickoff_crew", "plain_messages"]

TIMED_OUT = re.compile(
    r"^Task '(?P<task>.*)' (?P<limit>execution timed out after \d+ seconds)", re.DOTALL
)
"""How CrewAI's `TimeoutError` at an agent's ``max_execution_time`` begins (``crewai.agent``)."""
GUARDRAIL_FAILED = re.compile(r"^Task failed guardrail( \d+)? validation after \d+ retries\.")
"""How the bare `Exception` CrewAI raises when a task's guardrail retries are spent begins."""
AGENT_GUARDRAIL_FAILED = re.compile(r"^Agent's guardrail failed validation after \d+ retries\.")
"""How the `ValueError` CrewAI raises when a lone agent's guardrail retries are spent begins."""


class _PersonAsked(HookAborted):
    """A task asked a person for feedback on its answer. A `HookAborted`: CrewAI lets it through
    its task retries, as it does a hook's deliberate stop."""

    def __init__(self, role: str, messages: Sequence[JSON]) -> None:
        super().__init__(f"human_input=True asks a person for feedback on {role}'s answer")
        self.messages = tuple(messages)


class _NoPerson(SyncHumanInputProvider):
    """CrewAI's console feedback, where the harness has no person: the ask ends the run."""

    def handle_feedback(self, formatted_answer: Any, context: Any) -> Any:
        raise _PersonAsked(context.agent.role, plain_messages(context.messages))

    async def handle_feedback_async(self, formatted_answer: Any, context: Any) -> Any:
        raise _PersonAsked(context.agent.role, plain_messages(context.messages))


@dataclass(frozen=True, kw_only=True)
class CrewAIRun:
    """What one ``kickoff`` returned, or the tool failure it aborted with, or the other stop of
    CrewAI's it raised (a time limit, a guardrail, an ask for a person); and how CrewAI forced
    the answer that is its output, if it did."""

    output: CrewOutput | LiteAgentOutput | None
    """The crew's output, or a lone agent's."""
    tool_failure: ToolExecutionFailedError | None = None
    halt: Code | None = None
    """The code of the other stop CrewAI raised, if it raised one."""
    halt_reason: str = ""
    """CrewAI's words for that stop."""
    halted_messages: tuple[JSON, ...] = ()
    """The conversation of the agent that stop ended."""
    forced: str = ""
    """How CrewAI forced the answer that is its output ("at max_iter=25", "by its repeated-call
    guard: …"), or "" if it did not force it."""


def _output(kicked_off: CrewOutput | CrewStreamingOutput) -> CrewOutput:
    """The crew's output; a crew made with ``stream=True`` runs only as its chunks are read, as
    production reads them, and then holds its output (or raises what the run raised)."""
    if not isinstance(kicked_off, CrewStreamingOutput):
        return kicked_off
    for _chunk in kicked_off:
        pass
    return kicked_off.result


def kickoff_crew(crew: Crew, task: str) -> CrewAIRun:
    """The crew's output on ``task``, or the stop of CrewAI's it raised (`_stopped`): besides
    an agent's, a time limit and a task's guardrail's spent retries (a bare `Exception`, known by
    its words)."""

    def halt(error: Exception) -> CrewAIRun | None:
        timed = TIMED_OUT.match(str(error)) if isinstance(error, TimeoutError) else None
        if timed is not None:
            halted = next((t for t in crew.tasks if t.description == timed["task"]), None)
            reason = f"max_execution_time, {timed['limit']}"
            return _halted(Code.BUDGET_TIME, reason, _conversation(crew, halted))
        if type(error) is Exception and GUARDRAIL_FAILED.match(str(error)):
            halted = next((t for t in crew.tasks if t.output is None), None)
            return _halted(Code.NEEDS_HUMAN, str(error), _conversation(crew, halted))
        return None

    return _stopped(lambda: CrewAIRun(output=_output(crew.kickoff(inputs={"task": task}))), halt)


def kickoff_agent(agent: Agent, task: str) -> CrewAIRun:
    """The lone agent's output on ``task`` (``agent.kickoff(task)``), or the stop of CrewAI's it
    raised (`_stopped`): besides a crew's agent's, its own guardrail's spent retries (a
    `ValueError`, known by its words), the agent's own check halting the run as a task's does.
    CrewAI keeps no conversation of a kickoff that raised: the agent's LLM holds the last one."""

    def halt(error: Exception) -> CrewAIRun | None:
        if isinstance(error, ValueError) and AGENT_GUARDRAIL_FAILED.match(str(error)):
            llm = agent.llm
            sent = llm.last_conversation() if isinstance(llm, WireLLM) else []
            return _halted(Code.NEEDS_HUMAN, str(error), sent)
        return None

    return _stopped(lambda: CrewAIRun(output=agent.kickoff(task)), halt)


def _stopped(
    kickoff: Callable[[], CrewAIRun], halt: Callable[[Exception], CrewAIRun | None]
) -> CrewAIRun:
    """What ``kickoff`` returned, or the stop of CrewAI's it raised: its repeated-call guard, an
    ask for a person, or what ``halt`` reads as a stop; a hook's stop is raised again as
    `HookStopped`, anything else as it was."""
    provider = set_provider(_NoPerson())
    try:
        return kickoff()
    except ToolExecutionFailedError as error:
        return CrewAIRun(output=None, tool_failure=error)
    except _PersonAsked as asked:
        return _halted(Code.NEEDS_HUMAN, str(asked), asked.messages)
    except HookAborted as aborted:
        raise HookStopped(f"{_hook(aborted.source)} stopped the run: {aborted.reason}") from aborted
    except LLMCallBlockedError as blocked:
        raise HookStopped(BLOCKED) from blocked
    except Exception as error:
        halted = halt(error)
        if halted is None:
            raise
        return halted
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
    return plain_messages(getattr(executor, "messages", None) or [])


def plain_messages(messages: Sequence[Any]) -> list[JSON]:
    """The task's conversation (CrewAI keeps it in Chat Completions' shape) as plain mappings."""
    return [dict(m) for m in messages if isinstance(m, Mapping)]
