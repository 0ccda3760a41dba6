"""Consumes what an agent reported and what the harness observed, produces a `TerminationRecord`.

The record keeps the two apart on purpose: an agent that *says* it finished is only believed
when the harness re-reads the world and agrees.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

__all__ = [
    "SCHEMA_VERSION",
    "Code",
    "Exit",
    "Observed",
    "Outcome",
    "Stop",
    "TerminationRecord",
    "ToolTrace",
    "TraceStep",
    "Verdict",
]

SCHEMA_VERSION = 1
"""Bumped whenever the snapshot form changes shape; old snapshots must then be regenerated."""


class Exit(StrEnum):
    """How a run ended: the three exits demand different downstream actions."""

    COMPLETE = "complete"
    ABANDONED = "abandoned"
    EXHAUSTED = "exhausted"


class Code(StrEnum):
    """Why a run ended. Budget codes start with ``BUDGET_``; see `Code.is_budget`."""

    COMPLETED = "COMPLETED"
    NO_PROGRESS = "NO_PROGRESS"
    BLOCKED_INPUT = "BLOCKED_INPUT"
    NEEDS_HUMAN = "NEEDS_HUMAN"
    ERROR_FATAL = "ERROR_FATAL"
    BUDGET_STEPS = "BUDGET_STEPS"
    BUDGET_TIME = "BUDGET_TIME"
    BUDGET_IDLE = "BUDGET_IDLE"
    BUDGET_COST = "BUDGET_COST"
    BUDGET_CALLS = "BUDGET_CALLS"

    @property
    def is_budget(self) -> bool:
        return self.name.startswith("BUDGET_")

    @property
    def exit(self) -> Exit:
        """The one exit this code belongs to."""
        if self is Code.COMPLETED:
            return Exit.COMPLETE
        return Exit.EXHAUSTED if self.is_budget else Exit.ABANDONED


class Outcome(StrEnum):
    """What the harness saw, whatever the agent said."""

    STOPPED = "stopped"
    """The agent returned a structured `Stop`."""
    UNSTRUCTURED = "unstructured"
    """The agent returned something that carries no exit."""
    CRASHED = "crashed"
    """The agent raised an exception that no adapter mapped."""
    DID_NOT_STOP = "did_not_stop"
    """A harness ceiling (steps, tool calls or wall time) ended the run."""


@dataclass(frozen=True, kw_only=True)
class Stop:
    """The structured exit an agent returns: what it *reported*.

    ``exit`` may be left out; it is then derived from ``code``.
    """

    code: Code
    """Why the agent stopped."""
    exit: Exit | None = None
    """How it stopped; must agree with ``code`` when both are given."""
    reason: str = ""
    """One sentence a human can act on."""
    partial: Any = None
    """Whatever was achieved before stopping (required on ``exhausted``)."""
    missing: tuple[str, ...] = ()
    """For ``BLOCKED_INPUT``: the inputs or permissions that are missing."""

    def __post_init__(self) -> None:
        code = Code(self.code)
        object.__setattr__(self, "code", code)
        derived = code.exit
        if self.exit is not None and Exit(self.exit) is not derived:
            raise ValueError(
                f"Stop(exit={self.exit!r}, code={code!r}): {code.value} belongs to exit "
                f"{derived.value!r}; leave exit out or pass exit={derived.value!r}"
            )
        object.__setattr__(self, "exit", derived)
        object.__setattr__(self, "missing", tuple(str(m) for m in self.missing))


@dataclass(frozen=True, kw_only=True)
class ToolTrace:
    """One tool call as the harness observed it."""

    name: str
    arguments: str
    """Canonical JSON of the arguments (sorted keys)."""
    result: str
    """What the agent saw, cut to a readable length."""
    world: str = ""
    """The world's fingerprint after the call (empty for calls the model only asked for)."""


@dataclass(frozen=True, kw_only=True)
class TraceStep:
    """One step (model call) and the tool calls the agent made after it."""

    step: int
    said: str
    """The model's text, cut to a readable length."""
    calls: tuple[ToolTrace, ...] = ()
    """Tool calls the model asked for in this step."""
    tools: tuple[ToolTrace, ...] = ()
    """Tool calls the agent actually made before its next step."""


@dataclass(frozen=True, kw_only=True)
class Observed:
    """What the harness counted on the fake model and tools it supplied."""

    steps: int
    """Model calls made (the stopped step)."""
    tool_calls: int
    transport_attempts: int = 0
    """HTTP requests that reached a fake model on the wire; SDK retries count here, not as steps."""
    first_stagnant_step: int
    """Ground truth: the step from which no progress was possible any more."""
    input_tokens: int
    output_tokens: int
    cost_usd: float
    lag_tokens: int
    """Tokens spent from the first stagnant step to the stop."""
    lag_cost_usd: float
    max_repeated_action: int
    """Most times one identical tool call (name + canonical arguments) was made."""
    distinct_world_states: int
    denied_calls: int
    """Tool calls refused for a missing permission."""
    world_complete: bool
    """The completion predicate, evaluated by the harness on the world at the end."""
    unavailable_calls: int = 0
    """Tool calls answered 503-style by a dependency that is down."""
    steps_past_token_budget: int = 0
    """Steps begun with the token budget already spent."""
    final_answer_calls: int = 0
    """Model calls with no tools offered: a forced "give your best final answer"."""
    gave_up_at_step: int | None = None
    """The step at which the model asked to give up (called ``give_up``), if it did."""
    steps_by_agent: dict[str, int] = field(default_factory=dict)
    """Steps per agent of a multi-agent system (one ``main`` entry for a single agent)."""
    ceiling: str | None = None
    """Which harness ceiling ended the run, if one did."""
    error: str | None = None
    """``Type: message`` of the exception that crashed the agent, if any."""
    tail: tuple[TraceStep, ...] = ()
    """The last steps of the trajectory, for failure messages."""

    @property
    def detection_lag(self) -> int:
        """Steps from the first stagnant step to the stop (0 = stopped on the spot)."""
        return max(0, self.steps - self.first_stagnant_step)

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True, kw_only=True)
class Verdict:
    """A record judged against its scenario's expectation."""

    passed: bool
    strict: bool
    """Strict: the exit code must be one the scenario expects; lenient: any honest stop."""
    failures: tuple[str, ...] = ()
    """One line per broken expectation, each saying expected vs observed."""

    @property
    def summary(self) -> str:
        return "pass" if self.passed else "FAIL: " + "; ".join(self.failures)


@dataclass(frozen=True, kw_only=True)
class TerminationRecord:
    """The output of one run: scenario × seed × agent."""

    scenario: str
    family: str
    seed: int
    agent: str
    outcome: Outcome
    reported: Stop | None
    """The agent's structured exit; ``None`` unless ``outcome`` is ``stopped``."""
    observed: Observed
    step_bound: int
    """N: the scenario's bound on the stopped step."""
    solvable: bool = False
    """A solvable control: any exit but ``complete`` is a false stop (metrics read this)."""
    budget: dict[str, float | int | None]
    """The budget the agent was given (steps, tokens, wall seconds, cost)."""
    verdict: Verdict | None = None
    """``None`` until `judge` has read the record."""
    returned: str | None = None
    """For ``unstructured``: a repr of what the agent returned."""
    wall_seconds: float = field(default=0.0, compare=False)
    """Volatile: kept out of the snapshot form."""
    schema_version: int = SCHEMA_VERSION

    @property
    def exit(self) -> Exit | None:
        return self.reported.exit if self.reported else None

    @property
    def code(self) -> Code | None:
        return self.reported.code if self.reported else None

    def to_dict(self, *, volatile: bool = False) -> dict[str, Any]:
        """Plain JSON-able data; ``volatile=False`` gives the stable snapshot form."""
        data = asdict(self)
        data["observed"]["detection_lag"] = self.observed.detection_lag
        if self.reported is not None:
            data["reported"]["partial"] = _jsonable(self.reported.partial)
        if not volatile:
            del data["wall_seconds"]
        return data

    def to_json(self, *, volatile: bool = False) -> str:
        """Stable JSON (sorted keys): the same run gives the same bytes."""
        return json.dumps(self.to_dict(volatile=volatile), sort_keys=True, indent=2)


def _jsonable(value: Any) -> Any:
    """Partial results are the agent's own objects; keep them if JSON can, else their repr."""
    try:
        json.dumps(value, sort_keys=True)
    except (TypeError, ValueError):
        return repr(value)
    return value
