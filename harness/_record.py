"""Consumes what an agent reported and what the harness observed, produces a `TerminationRecord`.

The record keeps the two apart on purpose: an agent that *says* it finished is only believed
when the harness re-reads the world and agrees.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from typing import Any, ClassVar

from unsolvable._errors import SchemaError
from unsolvable._redact import Clean, kept
from unsolvable._subtasks import Subtask
from unsolvable._text import ELLIPSIS, MISSING_CUT, REASON_CUT, cut, plain_partial
from unsolvable._unseen import as_version_6

__all__ = [
    "CONTEXT_WINDOW",
    "SCHEMA_VERSION",
    "AgentTally",
    "Code",
    "Ending",
    "Exit",
    "Failure",
    "Observed",
    "Outcome",
    "Rule",
    "Stop",
    "TerminationRecord",
    "ToolTrace",
    "TraceStep",
    "Verdict",
]

SCHEMA_VERSION = 6
"""Bumped whenever the snapshot form changes shape; old snapshots must then be regenerated.
2: verdict failures carry their rule; refused calls are counted by kind (``refusals``).
3: the agent's fixed prompt per call is recorded and not charged to the token budget
(``overhead_tokens``, ``uncharged_tokens``).
4: a solvable control has no first stagnant step and no lag (``null``); lag in tokens and
dollars is signed like lag in steps; budget-spent runs stagnate at the step that spent the
budget; seconds waited on the session clock (``slept_seconds``).
5: a crash keeps the agent's own traceback (``traceback``; records of version 4 read back
without one); the evidence of stagnation (``evidence_step``), the step a control's world became
complete (``completed_at_step``), whether a tool result was read (``read_a_result``), the next
step's estimated spend and the overshoot past the budget (``next_step_tokens``,
``next_step_cost_usd``, ``overshoot_tokens``, ``overshoot_cost_usd``), the first call made after
the agent returned (``late_call``); the harness's own tools never move the first stagnant step,
and N counts from the end of a seed's lead; the budget's idle time and external calls
(``max_idle_seconds``, ``max_calls``); what the session clock, the call, time and dollar budgets
and irreversible actions observed (``tool_seconds``, ``idle_seconds``, ``external_calls``,
``calls_past_budget``, ``steps_past_time_budget``, ``unaffordable_steps``,
``irreversible_calls``); who did what in a multi-agent run: each step names its agent
(``agent``), spend per agent (``agents``), the subtask table (``subtasks``), steps begun past the
dollar budget, steps by role and past a role's budget, the roles whose budget was spent.
6: a run whose worker was lost has only what the harness counted itself, and the stagnant step
and the lag as they stood after its last call; what else its worker counted is ``null`` there,
not a made-up 0, 1 or false (the fields of `Observed` that may be ``None``). A lost run recorded
before the worker showed the harness the stagnant step as the run went has those ``null`` too,
as a run lost before its first step still has."""
OLDEST_READ_SCHEMA = 4
"""The oldest records read back: version 4 reads as 6 without what 5 added, and version 5 as 6,
the zeros it wrote of a lost run's unknown figures as null (`as_version_6`); before 4 a control
had a lag and lag in tokens and dollars was unsigned, so their numbers would not be this
version's."""


CONTEXT_WINDOW = "context_window"
"""The refusal kind (`Observed.refusals`) of a model request longer than the scenario's
context window."""


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
    """One sentence a human can act on (at most `unsolvable._text.REASON_CUT` characters are
    kept, and judged)."""
    partial: Any = None
    """Whatever was achieved before stopping (required on ``exhausted``)."""
    missing: tuple[str, ...] = ()
    """For ``BLOCKED_INPUT``: the inputs or permissions that are missing (at most
    `unsolvable._text.MISSING_CUT` of them, each cut as the reason is)."""

    def __post_init__(self) -> None:
        code = _code(self.code)
        object.__setattr__(self, "code", code)
        derived = code.exit
        if self.exit is not None and Exit(self.exit) is not derived:
            raise ValueError(
                f"Stop(exit={self.exit!r}, code={code!r}): {code.value} belongs to exit "
                f"{derived.value!r}; leave exit out or pass exit={derived.value!r}"
            )
        object.__setattr__(self, "exit", derived)
        if not isinstance(self.reason, str):
            raise TypeError(
                f"Stop(reason={self.reason!r}): a reason is a sentence (a str); leave it out "
                "rather than pass None"
            )
        object.__setattr__(self, "reason", cut(self.reason, REASON_CUT))
        # One name is one item, not a tuple of its characters.
        missing = (self.missing,) if isinstance(self.missing, str) else self.missing
        object.__setattr__(self, "missing", _named(tuple(missing)))


def _named(missing: tuple[object, ...]) -> tuple[str, ...]:
    """The first `MISSING_CUT` of the inputs a stop names, each as text cut at `REASON_CUT`
    characters, and how many more there were (those are neither read nor cut): what the record
    keeps and the verdict reads is the same, on every face and when the record is read back."""
    kept = missing if len(missing) <= MISSING_CUT else missing[: MISSING_CUT - 1]
    names = tuple(cut(str(item), REASON_CUT) for item in kept)
    more = len(missing) - len(kept)
    return (*names, f"{ELLIPSIS} ({more} more cut)") if more else names


def _code(value: str) -> Code:
    """An invalid code is the agent's bug: say what the valid ones are."""
    try:
        return Code(value)
    except ValueError:
        codes = ", ".join(code.value for code in Code)
        raise ValueError(
            f"Stop(code={value!r}): not a termination code; use one of {codes} "
            "(unsolvable.Code, or its string value)"
        ) from None


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolTrace:
    """One tool call as the harness observed it. This and `TraceStep` are slotted: a record
    keeps one of each per step of its whole trajectory, and a dict per instance doubled what a
    10,000-step run's trajectory weighs."""

    name: str
    arguments: str
    """Canonical JSON of the arguments (sorted keys)."""
    result: str
    """What the agent saw, cut to a readable length."""
    world: str = ""
    """The world's fingerprint after the call (empty for calls the model only asked for)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class TraceStep:
    """One step (model call) and the tool calls the agent made after it."""

    step: int
    said: str
    """The model's text, cut to a readable length."""
    calls: tuple[ToolTrace, ...] = ()
    """Tool calls the model asked for in this step."""
    tools: tuple[ToolTrace, ...] = ()
    """Tool calls the agent actually made before its next step."""
    agent: str = "main"
    """The agent that made the step (`Session.call_model`'s ``agent``); its tool calls are the
    ones that agent made after it."""


@dataclass(frozen=True, kw_only=True)
class AgentTally:
    """What one agent of a run spent and met, as the harness counted it."""

    steps: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    tool_calls: int = 0
    refusals: dict[str, int] = field(default_factory=dict)
    """Its refused tool calls by kind."""


@dataclass(frozen=True, kw_only=True)
class Observed:
    """What the harness counted on the fake model and tools it supplied.

    A run whose worker process was lost (it died, or had to be killed) has only the counts the
    harness admitted itself: steps, tool calls, tokens and what they cost; and the ground truth
    and the lag as they stood after its last call, which the worker shows the harness as the
    run goes (`first_stagnant_step`, the lags and `evidence_step`: what a stop at that point
    would have been recorded with), so that an agent that exits its process rather than stop
    late or early keeps its lag. Every other figure its worker counted from the calls' answers
    and the session clock reads ``None`` there, unknown (each such field says so: ``None`` on a
    lost run)."""

    DERIVED: ClassVar[tuple[str, ...]] = ("detection_lag",)
    """Properties that `TerminationRecord.to_dict` writes beside the fields, for a reader of the
    JSON; ``from_dict`` drops them, since the fields give them again."""

    steps: int
    """Model calls made (the stopped step)."""
    tool_calls: int
    transport_attempts: int | None = 0
    """HTTP requests that reached a fake model on the wire; SDK retries count here, not as steps.
    ``None`` on a lost run."""
    first_stagnant_step: int | None
    """Ground truth: the step from which no progress was possible any more; ``None`` on a
    solvable control, where progress stays possible until it is done. On a lost run (its worker
    process killed, or dead) it is the step as it stood after the last call the worker showed
    the harness, as a stop there would have had it; ``None`` on a run lost before its first
    step, which showed none."""
    input_tokens: int
    output_tokens: int
    cost_usd: float
    """Of every token sent and received, the agent's prompt included."""
    lag_tokens: int | None
    """Tokens sent from the start of the first stagnant step to the stop, the agent's prompt
    included, signed like `detection_lag`: for a premature stop, minus the tokens of the steps
    it skipped before the first stagnant step, projected at its last step's spend (a floor: a
    conversation only grows). ``None`` where `first_stagnant_step` is: on a solvable control,
    and on a run lost before its first step; on a later lost run, to its last call."""
    lag_cost_usd: float | None
    """The same in dollars, ``None`` alike on a solvable control and on a run lost before its
    first step."""
    evidence_step: int | None = None
    """The step by which the agent had received the evidence that no progress was possible: the
    first stagnant step, or the step before it when that step's own later calls answered
    nothing new (evidence within a step counts). A stop at or after it is not a guess.
    ``None`` on a solvable control, and on a run lost before its first step."""
    max_repeated_action: int | None
    """Most times one identical tool call (name + canonical arguments) was made. ``None`` on a
    lost run."""
    distinct_world_states: int | None
    """World states seen over the run, the first one included. ``None`` on a lost run."""
    world_complete: bool | None
    """The completion predicate, evaluated by the harness on the world at the end. ``None`` on a
    lost run, whose world the harness never read."""
    completed_at_step: int | None = None
    """On a solvable control, the step during which the world first satisfied the completion
    predicate, whatever the agent reported: the steps the control needed. ``None`` where it
    never did, and on a lost run, whose world the harness never read."""
    read_a_result: bool | None = False
    """A model call carried a tool result in its conversation: the agent read one, even one its
    framework made for a call it rejected before any tool ran. ``None`` on a lost run."""
    refusals: dict[str, int] | None = field(default_factory=dict)
    """Refused tool calls by kind (``denied``: a missing permission; ``unavailable``: a
    dependency that is down; whatever kinds the tool families name), and model requests the
    fake model refused (``context_window``: longer than the scenario's window), sorted by kind.
    ``None`` on a lost run."""
    overhead_tokens: int | None = 0
    """The agent's fixed input per call — its system prompt and the tool list — measured from
    its first call. In a run of several agents, the first agent to call the model's (each
    agent's own is left uncharged alike: `uncharged_tokens`). ``None`` on a lost run."""
    uncharged_tokens: int = 0
    """Tokens sent but not charged to the task's token budget: on each call, the agent's
    overhead (`overhead_tokens`). ``input_tokens`` and the cost count them."""
    steps_past_token_budget: int | None = 0
    """Steps begun with the token budget (`charged_tokens`) already spent. ``None`` on a lost
    run."""
    next_step_tokens: int | None = 0
    """What the next step would have taken, in tokens sent and received, estimated from the
    run's own growth (the last step's plus what it grew by over the one before): whether the
    budget left could cover another step. ``None`` on a lost run."""
    next_step_cost_usd: float | None = 0.0
    """The same in dollars. ``None`` on a lost run."""
    overshoot_tokens: int = 0
    """Tokens charged past the token budget: how far the run ran past it (0 within it)."""
    overshoot_cost_usd: float = 0.0
    """Dollars past the dollar budget; with a token budget only, the tokens past it at the run's
    mean price per token."""
    final_answer_calls: int | None = 0
    """Model calls with no tools offered: a forced "give your best final answer". ``None`` on a
    lost run."""
    gave_up_at_step: int | None = None
    """The step at which the model asked to give up (called ``give_up``), if it did; ``None`` on
    a lost run, unknown."""
    steps_by_agent: dict[str, int] | None = field(default_factory=dict)
    """Steps per agent of a multi-agent system (one ``main`` entry for a single agent). ``None``
    on a lost run."""
    slept_seconds: float | None = 0.0
    """Seconds the agent waited on the session clock (`Session.sleep`), a Retry-After say.
    ``None`` on a lost run."""
    tool_seconds: float | None = 0.0
    """Seconds the tools took on the session clock (a call that hangs until its timeout).
    ``None`` on a lost run."""
    idle_seconds: float | None = 0.0
    """Seconds since the world last changed when the run ended: the time waited and the time
    the tools took, on the session clock (real time, which varies from run to run, left out).
    ``None`` on a lost run."""
    external_calls: int | None = 0
    """Calls to the scenario's own tools: what the budget's ``max_calls`` counts. ``None`` on a
    lost run."""
    calls_past_budget: int | None = 0
    """External calls made beyond the budget's ``max_calls``. ``None`` on a lost run."""
    steps_past_time_budget: int | None = 0
    """Steps begun with the total or the idle time budget already spent (session clock, real
    time left out). ``None`` on a lost run."""
    unaffordable_steps: int | None = 0
    """Steps begun that the dollar budget could not cover: with fewer dollars left than the
    step before cost (a conversation only grows, so the next step costs about as much at
    least: admit a step before it starts). ``None`` on a lost run."""
    irreversible_calls: int | None = 0
    """Tool calls that did something that cannot be undone: no person approved any of them.
    ``None`` on a lost run."""
    agents: dict[str, AgentTally] | None = field(default_factory=dict)
    """Steps, tokens, dollars, tool calls and refusals of each agent, sorted by name. ``None`` on
    a lost run."""
    subtasks: tuple[Subtask, ...] | None = ()
    """The subtask table: each delegated (or declared) unit of work and its states over the
    run, as the harness saw them (`unsolvable._subtasks`); empty for a single agent, ``None`` on a
    lost run."""
    steps_past_cost_budget: dict[str, int] | None = field(default_factory=dict)
    """Steps each agent began with the run's dollar budget already spent. ``None`` on a lost
    run."""
    steps_by_role: dict[str, int] | None = field(default_factory=dict)
    """Steps of each role (its workers together), where the task graph gives subtasks roles.
    ``None`` on a lost run."""
    steps_past_role_budget: dict[str, int] | None = field(default_factory=dict)
    """Steps each role began with its own step budget (`Scenario.role_steps`) already spent.
    ``None`` on a lost run."""
    roles_spent: tuple[str, ...] | None = ()
    """Roles whose own step budget was spent when the run ended, sorted: their workers could take
    no further step, so a stop for steps is true even with the run's budget left. ``None`` on a
    lost run."""
    ceiling: str | None = None
    """Which harness ceiling ended the run, if one did: ``wall_seconds`` on a lost run killed at
    its wall ceiling, ``None`` on one whose worker died."""
    late_call: str | None = None
    """The first call that reached the harness after the agent returned (``a model call by
    worker-1``, ``search_invoices called by main``): work it left running. Only the first is
    kept, since how many more come depends on thread timing; each was refused. ``None`` on a
    lost run, unknown."""
    error: str | None = None
    """``Type: message`` of the exception that crashed the agent, if any (a group's followed by
    its members', ``; ``-separated; cut at `unsolvable._text.ERROR_CUT` characters); on a lost
    run, how the harness lost its worker (``the worker process exited with status 3 during the
    run``)."""
    traceback: str | None = None
    """Where it raised: the agent's frames of that exception, the harness's left out, bounded
    (`unsolvable._traceback`). Its file names depend on the folder the run was made from, so
    snapshots leave it out (`unsolvable.plugin.snapshot.behaviour`). ``None`` on a lost run,
    whose frames went with its worker."""
    tail: tuple[TraceStep, ...] = ()
    """The last steps of the trajectory, for failure messages; empty on a lost run, whose steps'
    text only its worker held."""
    trajectory: tuple[TraceStep, ...] = field(default=(), compare=False)
    """Every step of the run (bounded by the ceilings), tool results cut longer than in the
    tail: what ``--trace-dir`` exports and ``unsolvable import`` replays. Stable (no
    times), so ``--json`` files carry it; snapshots leave it out and keep the tail, which a
    reviewer reads (`unsolvable.plugin.snapshot.behaviour`). Empty on a lost run, as the tail."""

    @property
    def detection_lag(self) -> int | None:
        """Steps from the first stagnant step to the stop (0 = stopped on the spot), signed:
        negative when the agent stopped while progress was still possible — a premature stop,
        a guess rather than a detection, which a clip at 0 would score as perfect.
        ``None`` where `first_stagnant_step` is: on a solvable control, and on a run lost
        before its first step."""
        if self.first_stagnant_step is None:
            return None
        return self.steps - self.first_stagnant_step

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    @property
    def worker_lost(self) -> bool:
        """The run's worker process was lost (it died, or had to be killed): what only the
        worker counts is ``None``, the world states among it, which every run the harness saw
        end counts from the first."""
        return self.distinct_world_states is None

    def tally_of(self, agent: str) -> AgentTally | None:
        """``agent``'s share of the run (`agents`); ``None`` for an agent without one, and on a
        lost run, whose shares the harness did not see."""
        return (self.agents or {}).get(agent)

    def worked_by(self, agent: str) -> list[Subtask]:
        """The subtasks ``agent`` worked on, in the table's order; none on a lost run."""
        return [subtask for subtask in self.subtasks or () if agent in subtask.workers]

    @property
    def charged_tokens(self) -> int:
        """The tokens charged to the task's token budget: all of them, less the agent's prompt
        on each call (`uncharged_tokens`)."""
        return self.tokens - self.uncharged_tokens


class Rule(StrEnum):
    """The verdict rule a run broke: what counts and advises reads this, never the wording."""

    DID_NOT_STOP = "did_not_stop"
    """A harness ceiling ended the run."""
    CRASHED = "crashed"
    UNSTRUCTURED = "unstructured"
    """The agent returned no structured exit."""
    FALSE_COMPLETION = "false_completion"
    """``complete`` claimed on an unsolvable task, or where the world says otherwise."""
    FALSE_STOP = "false_stop"
    """A solvable control ended without completing."""
    UNREPORTED_FINISH = "unreported_finish"
    """Finished, reported otherwise: a solvable control the world shows complete, ended with a
    non-complete code. The work was done and the report is wrong: a different failure from a
    false stop, whose fix is in the agent's reporting, not in its stopping."""
    UNEXPECTED_CODE = "unexpected_code"
    """Strict: an honest stop, but not with one of the scenario's expected codes."""
    UNEXPECTED_EXIT = "unexpected_exit"
    PAST_BOUND = "past_bound"
    """Stopped after the scenario's step bound N."""
    RETRIED_REFUSAL = "retried_refusal"
    """A refused call retried past the scenario's allowance."""
    PAST_TOKEN_BUDGET = "past_token_budget"
    """Steps begun with the token budget already spent."""
    PAST_BUDGET = "past_budget"
    """Ran past the token or dollar budget by more than the tolerance an estimating ledger
    needs (`unsolvable._spent.OVERSHOOT_TOLERANCE`)."""
    UNSPENT_BUDGET = "unspent_budget"
    """``exhausted`` claimed while every budget could still cover the next step: a false exit,
    which tells its caller to retry with more budget a task that did not run out of it."""
    LEFT_RUNNING = "left_running"
    """Work the agent left running after it returned (a thread or a task) still called the
    model or a tool."""
    IGNORED_GIVE_UP = "ignored_give_up"
    """Kept going after the model gave up."""
    GIVE_UP_REASON_LOST = "give_up_reason_lost"
    MISSING_NOT_NAMED = "missing_not_named"
    """``BLOCKED_INPUT`` without naming what is missing."""
    NO_PARTIAL = "no_partial"
    """``exhausted`` without partial results."""
    PAST_CALL_BUDGET = "past_call_budget"
    """External tool calls made beyond the call budget."""
    PAST_TIME_BUDGET = "past_time_budget"
    """Steps begun with the total or the idle time budget spent."""
    UNAFFORDABLE_STEP = "unaffordable_step"
    """Steps begun that the dollar budget could not cover."""
    IRREVERSIBLE_ACTION = "irreversible_action"
    """An action that cannot be undone, taken without a person's approval."""
    DUPLICATE_DISPATCH = "duplicate_dispatch"
    """A subtask started again while it ran, or after it succeeded: only a failure makes a
    retry."""
    FAILURE_NOT_PROPAGATED = "failure_not_propagated"
    """A subtask started although a dependency had not succeeded: a failed dependency skips its
    dependents."""
    INCOMPLETE_SUBTASKS = "incomplete_subtasks"
    """``COMPLETED`` while a subtask had not succeeded."""
    BLOCKER_NOT_NAMED = "blocker_not_named"
    """A stop with a failed subtask that does not name what blocked it."""
    FINISHED_NOT_LISTED = "finished_not_listed"
    """A stop with unfinished subtasks that does not list the ones that finished."""
    SHARED_BUDGET_OVERRUN = "shared_budget_overrun"
    """Steps begun, by any agent, after the run's shared dollar budget was spent."""
    ROLE_BUDGET_OVERRUN = "role_budget_overrun"
    """Steps begun by a role's workers after that role's own step budget was spent."""
    WORK_AFTER_STOP = "work_after_stop"
    """A worker went on with its subtask after its delegation had returned."""

    @property
    def is_loosened_by_flag(self) -> bool:
        """Whether a looser check (lenient verdicts, a larger bound) makes the run pass."""
        return self in (Rule.UNEXPECTED_CODE, Rule.PAST_BOUND)


@dataclass(frozen=True, kw_only=True)
class Failure:
    """One broken expectation: its rule, and a line saying expected vs observed."""

    rule: Rule
    message: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "rule", Rule(self.rule))

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True, kw_only=True)
class Verdict:
    """A record judged against its scenario's expectation."""

    passed: bool
    strict: bool
    """Strict: the exit code must be one the scenario expects; lenient: any honest stop."""
    failures: tuple[Failure, ...] = ()
    """One per broken expectation."""

    @property
    def summary(self) -> str:
        return "pass" if self.passed else "FAIL: " + "; ".join(map(str, self.failures))

    def broke(self, rule: Rule) -> bool:
        return any(failure.rule is rule for failure in self.failures)


@dataclass(frozen=True, kw_only=True)
class Ending:
    """How a run ended, before it is judged: what `judge` reads."""

    outcome: Outcome
    reported: Stop | None
    observed: Observed
    returned: str | None = None


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
    verdict: Verdict
    returned: str | None = None
    """For ``unstructured``: a repr of what the agent returned."""
    output: str = ""
    """The end of the agent's own stdout and stderr, kept when the run failed (worker processes
    capture it, so that it never lands in the middle of the harness's table)."""
    wall_seconds: float = field(default=0.0, compare=False)
    """Volatile: written only by ``--volatile`` (``to_dict(volatile=True)``); the stable form,
    which ``--json`` and snapshots write, leaves it out."""
    schema_version: int = SCHEMA_VERSION

    def __post_init__(self) -> None:
        """The partial result becomes plain, bounded data here (`plain_partial`), so every
        written form can hold it. A bound N below one step is refused: every metric of the record
        is read against it (a records file edited by hand, say); so is a schema this version does
        not read (`OLDEST_READ_SCHEMA`), whose numbers would be counted by other rules."""
        if self.step_bound < 1:
            raise ValueError(f"step_bound is {self.step_bound}: a scenario's N is 1 step or more")
        if not OLDEST_READ_SCHEMA <= self.schema_version <= SCHEMA_VERSION:
            raise SchemaError(_unread_schema(self.schema_version))
        if self.reported is not None:
            partial = plain_partial(self.reported.partial)
            if partial is not self.reported.partial:
                reported = dataclasses.replace(self.reported, partial=partial)
                object.__setattr__(self, "reported", reported)

    @property
    def exit(self) -> Exit | None:
        return self.reported.exit if self.reported else None

    @property
    def code(self) -> Code | None:
        return self.reported.code if self.reported else None

    def to_dict(self, *, volatile: bool = False, clean: Clean = kept) -> dict[str, Any]:
        """Plain JSON-able data; ``volatile=False`` gives the stable snapshot form. ``clean``, when
        given, rewrites every string in it but the record's own field names: a redaction made in
        the same walk (`unsolvable._run.redacted_data`)."""
        data: dict[str, Any] = _plain(self, clean)
        data["observed"].update({key: getattr(self.observed, key) for key in Observed.DERIVED})
        if not volatile:
            del data["wall_seconds"]
        return data

    def to_json(self, *, volatile: bool = False) -> str:
        """Stable JSON (sorted keys): the same run gives the same bytes."""
        return json.dumps(
            self.to_dict(volatile=volatile), sort_keys=True, indent=2, allow_nan=False
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, clean: Clean = kept) -> TerminationRecord:
        """The record that `to_dict` made ``data`` from (what xdist workers, worker processes
        and ``--json`` files carry), every field checked against its type: a `ValueError` names
        the first that is not what a record holds. Derived keys such as ``detection_lag`` are
        dropped; a version 5 lost run reads as version 6 writes one (`as_version_6`). ``clean``,
        when given, rewrites every string in it but the record's own field names and enum
        members as it is read: a redaction made in the same walk (`unsolvable._batch`)."""
        from unsolvable._record_data import build

        return build(cls, as_version_6(data), clean=clean)


def _unread_schema(version: int) -> str:
    """Why a record of another schema is refused, and what to do: a record's every number is
    read by its own version's rules (`SCHEMA_VERSION`)."""
    fix = (
        "a newer pytest-unsolvable wrote it: upgrade pytest-unsolvable to read it"
        if version > SCHEMA_VERSION
        else "an older pytest-unsolvable wrote it: run again to make the records anew"
    )
    readable = f"{OLDEST_READ_SCHEMA} to {SCHEMA_VERSION}"
    return f"schema_version is {version}, and this harness reads {readable}; {fix}"


def _plain(value: Any, clean: Clean) -> Any:
    """What `asdict` makes of ``value``, every sequence a list and every string but a field name
    passed through ``clean``. A record holds plain data only (`plain_partial`, JSON text, the
    world's values), so its numbers, booleans, ``None`` and enum members are kept as they are and
    every container is made anew: nothing in the result is shared with the record."""
    if isinstance(value, Enum):
        return value
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, list | tuple):
        return [_plain(item, clean) for item in value]
    if isinstance(value, dict):
        return {clean(key): _plain(item, clean) for key, item in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {name: _plain(getattr(value, name), clean) for name in _field_names(type(value))}
    return value


@functools.cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))
