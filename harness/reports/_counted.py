"""Consumes one judged record, produces how every report counts it: its lag in steps, tokens and
dollars, the step it counts as stopped at, and which kind of stop it made (a false stop, an
unreported finish, a premature or blind stop, a false completion).

Lag is measured on unsolvable scenarios only (a run whose worker was lost before its first step
has none: `has_lag`)
and false stops on solvable controls only: an agent that stops at step 1 everywhere has no lag,
and only the controls (and the premature-stop count) show what that costs. Lag is signed, and
its percentiles run over the signed values, so a guess before the first stagnant step pulls p50
below zero instead of hiding at 0.
"""

from __future__ import annotations

from typing import NamedTuple

from unsolvable._observed import CONTEXT_WINDOW
from unsolvable._record import TerminationRecord
from unsolvable._rules import Rule
from unsolvable._spent import JUDGED_EXHAUSTION, budget_of, could_cover_next_step
from unsolvable._stop import Exit, Outcome

__all__ = [
    "Lags",
    "counted_lags",
    "counts_from_zero",
    "ending",
    "had_the_evidence",
    "has_lag",
    "is_blind_stop",
    "is_budget_spent",
    "is_counted_false_stop",
    "is_false_completion",
    "is_false_stop",
    "is_premature_stop",
    "is_stop_decision",
    "is_unreported_finish",
    "lag",
    "lag_cost_usd",
    "lag_tokens",
    "stopped_step",
]


def ending(record: TerminationRecord) -> str:
    """The code the agent stopped with, else the harness's outcome (``did_not_stop``, ...)."""
    return str(record.code) if record.code is not None else str(record.outcome)


def is_false_stop(record: TerminationRecord) -> bool:
    """A control that the agent ended (stopped, returned or raised) without completing it.

    ``did_not_stop`` is counted apart: the agent made no stop decision at all.
    """
    ended = record.outcome is not Outcome.DID_NOT_STOP
    return record.solvable and ended and record.exit is not Exit.COMPLETE


def is_counted_false_stop(record: TerminationRecord) -> bool:
    """A false stop the metrics count as one: unreported finishes are counted apart."""
    return is_false_stop(record) and not is_unreported_finish(record)


def is_unreported_finish(record: TerminationRecord) -> bool:
    """Finished, reported otherwise: a control the world shows finished that the agent ended
    without claiming it complete — with a non-complete code (the verdict's
    `Rule.UNREPORTED_FINISH`), with plain text or by crashing (which the verdict fails as
    `unstructured` and `crashed`). The task was not stopped too early and the report is wrong:
    counted apart from false stops, because the fix is in reporting, not in stopping. A control
    whose world the harness never read (a lost run's) is not known to be finished: it stays a
    false stop."""
    return is_false_stop(record) and record.observed.world_complete is True


def is_stop_decision(record: TerminationRecord) -> bool:
    """The agent decided to end the run short of a claim: a structured non-complete stop or an
    unstructured return. A crash decided nothing, a ceiling ended a run that did not stop, and a
    claim of completion is judged as a claim (`is_false_completion`)."""
    ended = record.outcome in (Outcome.STOPPED, Outcome.UNSTRUCTURED)
    return ended and record.exit is not Exit.COMPLETE


def is_blind_stop(record: TerminationRecord) -> bool:
    """A stop decision made before reading anything: no model call, or no tool result — neither
    one the harness's tools answered nor one the agent's framework made for a call it rejected
    and sent the model (`Observed.read_a_result`) — the model's own ``give_up`` aside, and a
    model that refused every request, over its context window: that refusal is what there was to
    read. Whatever the scenario, such a stop detected nothing."""
    observed = record.observed
    if not is_stop_decision(record):
        return False
    read = (
        observed.tool_calls
        or observed.read_a_result
        or observed.gave_up_at_step is not None
        or CONTEXT_WINDOW in (observed.refusals or {})
    )
    return observed.steps == 0 or not read


def is_budget_spent(record: TerminationRecord) -> bool:
    """A step or cost budget stop (`JUDGED_EXHAUSTION`) whose budget could not cover another
    step: its steps all used, or its tokens or dollars short of the next step's, estimated from
    the run's own growth — a ledger that admits each step before it dispatches it stops there.
    Another code names another budget, which this does not say anything about."""
    if record.code not in JUDGED_EXHAUSTION:
        return False
    return not could_cover_next_step(record.observed, budget_of(record.budget))


def had_the_evidence(record: TerminationRecord) -> bool:
    """The agent had received the evidence of stagnation when it stopped (within a step counts:
    `Observed.evidence_step`)."""
    evidence = record.observed.evidence_step
    return evidence is not None and record.observed.steps >= evidence


def counts_from_zero(record: TerminationRecord) -> bool:
    """A stop whose lag counts at least 0: the agent had the evidence, or the budget could not
    cover another step."""
    return had_the_evidence(record) or is_budget_spent(record)


def _never_below_zero(record: TerminationRecord) -> bool:
    """A lag that counts at least 0: a stop the evidence or the budget chose, or a run that did
    not stop, wherever a ceiling found it."""
    return counts_from_zero(record) or record.outcome is Outcome.DID_NOT_STOP


def stopped_step(record: TerminationRecord) -> int:
    """The step a run counts as stopped at: its last step, but at least one step past its bound
    N for a run that did not stop, which is what the verdict calls it — a ceiling that found it
    earlier (wall time, tool calls) cut it short there, and the step it found it at says
    nothing of when it would have stopped."""
    steps = record.observed.steps
    return max(steps, record.step_bound + 1) if record.outcome is Outcome.DID_NOT_STOP else steps


def lag_tokens(record: TerminationRecord) -> int | None:
    """The record's lag in tokens, counted as `lag` counts steps (a run that did not stop at 0
    at least: the spend it would have made is not known); ``None`` without a lag (`has_lag`)."""
    tokens = record.observed.lag_tokens
    return None if tokens is None else max(tokens, 0) if _never_below_zero(record) else tokens


def lag_cost_usd(record: TerminationRecord) -> float | None:
    """The record's lag in dollars, counted as `lag_tokens` counts tokens; ``None`` without a
    lag (`has_lag`)."""
    cost = record.observed.lag_cost_usd
    return None if cost is None else max(cost, 0.0) if _never_below_zero(record) else cost


def has_lag(record: TerminationRecord) -> bool:
    """An unsolvable run with a stagnant step, so a lag: every one but a run whose worker
    process was lost (killed, or died) before its first step, of which the harness observed
    nothing — its record has no stagnant step and no lag, as a control has none. A run lost
    later has the stagnant step and the lag as they stood after its last call, and counts as a
    stop there would have. Every lag figure is over these runs."""
    return not record.solvable and record.observed.detection_lag is not None


def lag(record: TerminationRecord) -> int:
    """The signed detection lag the metrics and tables count, of an unsolvable run: the
    record's, except that it counts at least 0 for a stop the agent had the evidence for by then
    (evidence within the step before the first stagnant one) and for a stop on a budget that
    could not cover another step — the budget chose that step, not a guess — and from its
    `stopped_step`, 0 at least, for a run that did not stop. Raises `ValueError` on a run with no
    stagnant step (`has_lag`): a control, or a run lost before its first step."""
    signed = record.observed.detection_lag
    stagnant = record.observed.first_stagnant_step
    if signed is None or stagnant is None or not has_lag(record):
        kind = (
            "a solvable control" if record.solvable else "a lost run that showed no stagnant step"
        )
        raise ValueError(f"lag() of {record.scenario}, {kind}: it has no lag")
    if record.outcome is Outcome.DID_NOT_STOP:
        return max(stopped_step(record) - stagnant, 0)
    return max(signed, 0) if counts_from_zero(record) else signed


class Lags(NamedTuple):
    """One run's lag as every report counts it; each ``None`` on a run without a lag."""

    steps: int | None
    tokens: int | None
    cost_usd: float | None


def counted_lags(record: TerminationRecord) -> Lags:
    """The lag in steps, tokens and dollars as every report counts it (`lag`, `lag_tokens`,
    `lag_cost_usd`), for the faces that give one run's figures."""
    if not has_lag(record):
        return Lags(steps=None, tokens=None, cost_usd=None)
    return Lags(steps=lag(record), tokens=lag_tokens(record), cost_usd=lag_cost_usd(record))


def is_premature_stop(record: TerminationRecord) -> bool:
    """An unsolvable run the agent ended before its first stagnant step (negative lag), or a
    blind stop decision: a guess, not a detection. A crash ends the run as early as a stop
    would, so one before the stagnant step counts too, as a crash on a control counts as a
    false stop; a ceiling and a claim of completion are counted as what they are. A run lost
    before its first step has no stagnant step (`has_lag`), but ended before any: it counts as
    one that raised there does."""
    if record.solvable:
        return False
    ended = is_stop_decision(record) or record.outcome is Outcome.CRASHED
    early = lag(record) < 0 if has_lag(record) else record.observed.steps == 0
    return (ended and early) or is_blind_stop(record)


def is_false_completion(record: TerminationRecord) -> bool:
    """``complete`` claimed on an unsolvable scenario, or where the world says otherwise: the
    verdict's rule, so that every count agrees with what the tests failed on."""
    return record.verdict.broke(Rule.FALSE_COMPLETION)
