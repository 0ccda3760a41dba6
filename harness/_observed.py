"""Consumes what the harness counted on the fake model and tools it supplied, produces `Observed`:
the counts of one run, its trajectory (`TraceStep`, `ToolTrace`) and each agent's share
(`AgentTally`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from unsolvable._frozen import freeze
from unsolvable._subtasks import Subtask

__all__ = ["CONTEXT_WINDOW", "AgentTally", "Observed", "ToolTrace", "TraceStep"]

CONTEXT_WINDOW = "context_window"
"""The refusal kind (`Observed.refusals`) of a model request longer than the scenario's
context window."""


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

    def __post_init__(self) -> None:
        _freeze_fields(self, ("refusals",))


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
    """Tool calls the agent made, the harness's own (``check_completion``) and refused ones
    included; ``external_calls`` counts the scenario's tools alone."""
    transport_attempts: int | None = 0
    """HTTP requests that reached a fake model on the wire, those refused unanswered included (a
    body the harness could not read, ``n`` > 1); SDK retries count here, not as steps. ``None``
    on a lost run."""
    first_stagnant_step: int | None
    """Ground truth: the step from which no progress was possible any more; ``None`` on a
    solvable control, where progress stays possible until it is done. Of an end that is no
    guess (a run a ceiling ended, a stop that had the evidence or that its spent budget chose),
    it is read from what the run saw: steps that offered no tool and calls left unmade hold it
    open only for a stop that may be a guess. On a lost run (its worker
    process killed, or dead) it is the step as it stood after the last call the worker showed
    the harness, as a stop there would have had it; ``None`` on a run lost before its first
    step, which showed none."""
    input_tokens: int
    """Tokens sent: every model call's ``usage.prompt_tokens``, the agent's prompt and tools
    included (``uncharged_tokens``)."""
    output_tokens: int
    """Tokens received: every model call's ``usage.completion_tokens``."""
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
    """A model call carried a tool result answering a call the model asked for (by its id) in
    its conversation: the agent read one, even one its framework made for a call it rejected
    before any tool ran. ``None`` on a lost run."""
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
    """What the next step would have taken, in tokens sent and received, estimated within the
    conversation that made the last step (the last step's plus what that conversation grew by
    over its own step before, or the last step's alone when it carried on none): whether the
    budget left could cover another step. ``None`` on a lost run."""
    next_step_cost_usd: float | None = 0.0
    """The same in dollars. ``None`` on a lost run."""
    overshoot_tokens: int = 0
    """Tokens charged past the token budget: how far the run ran past it (0 within it)."""
    overshoot_cost_usd: float = 0.0
    """Dollars past the dollar budget; with a token budget only, the tokens past it at the run's
    mean price per token."""
    final_answer_calls: int | None = 0
    """Model calls with no tools offered: a forced "give your best final answer" (CrewAI's at
    ``max_iter``, smolagents' at ``max_steps``), or any other call that offers none, such as the
    speaker selection of an AutoGen ``SelectorGroupChat``, which the harness cannot tell apart.
    ``None`` on a lost run."""
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
    """Steps begun that the dollar budget could not cover: with it spent, or with fewer dollars
    left than the step before cost (a conversation only grows, so the next step costs about as
    much at least: admit a step before it starts) and then passing it; a step that fit was
    covered, even after another agent's longer one. ``None`` on a lost run."""
    irreversible_calls: int | None = 0
    """Tool calls that did something that cannot be undone: no person approved any of them.
    ``None`` on a lost run."""
    agents: dict[str, AgentTally] | None = field(default_factory=dict)
    """Steps, tokens, dollars, tool calls and refusals of each agent, sorted by name. ``None`` on
    a lost run."""
    subtasks: tuple[Subtask, ...] | None = ()
    """The subtask table: each delegated (or declared) unit of work and its states over the
    run, as the harness saw them (`Subtask`); empty for a single agent, ``None`` on a lost
    run."""
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
    its members', ``; ``-separated; cut at 2,000 characters, `ERROR_CUT`); on a lost
    run, how the harness lost its worker (``the worker process exited with status 3 during the
    run``)."""
    traceback: str | None = None
    """Where it raised: the agent's frames of that exception, the harness's left out, at most
    its last 4,000 characters (`TRACEBACK_CUT`). Its file names depend on the folder the run was
    made from, so snapshots leave it out. ``None`` on a lost run, whose frames went with its
    worker."""
    tail: tuple[TraceStep, ...] = ()
    """The last steps of the trajectory, for failure messages; empty on a lost run, whose steps'
    text only its worker held."""
    trajectory: tuple[TraceStep, ...] = field(default=(), compare=False)
    """Every step of the run (bounded by the ceilings), tool results cut longer than in the
    tail: what ``--trace-dir`` exports and ``unsolvable import`` replays. Stable (no
    times), so ``--json`` files carry it; snapshots leave it out and keep the tail, which a
    reviewer reads. Empty on a lost run, as the tail."""

    def __post_init__(self) -> None:
        _freeze_fields(self, MAPPINGS)

    @property
    def detection_lag(self) -> int | None:
        """Steps from the first stagnant step to the stop (0 = stopped on the spot), signed, as
        observed: negative when the agent stopped before that step, which a clip at 0 would
        score as perfect. ``None`` where `first_stagnant_step` is: on a solvable control, and
        on a run lost before its first step.

        Every report (the tables and metrics, OTLP, ATIF, JUnit) counts it further, and only
        their count tells a premature stop, a guess rather than a detection: 0 at least for a
        stop the evidence or a spent budget chose, and from one step past N for a run that did
        not stop. So a record's ``-2`` may be a lag of 0 in every report, and its ``-1`` a lag
        of 11 (``lag_tokens`` and ``lag_cost_usd`` alike)."""
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


MAPPINGS = (
    "refusals",
    "steps_by_agent",
    "agents",
    "steps_past_cost_budget",
    "steps_by_role",
    "steps_past_role_budget",
)
"""The fields of `Observed` that are mappings: the rest are numbers, text and tuples."""


def _freeze_fields(counts: object, names: tuple[str, ...]) -> None:
    """``counts``'s fields ``names`` made copies that refuse every change (`freeze`): a record
    is handed to the test that made it and kept for the session's reports, so what a test does
    to its record must not reach what the reports say was counted."""
    for name in names:
        object.__setattr__(counts, name, freeze(getattr(counts, name)))
