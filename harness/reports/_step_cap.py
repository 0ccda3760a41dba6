"""Consumes the judged records of one group, produces its calibrated `StepCap`: the best single
step cap over them, and whether the agent's stop logic beats it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from unsolvable._numbers import plain
from unsolvable._record import TerminationRecord
from unsolvable.reports._counted import (
    counts_from_zero,
    has_lag,
    is_counted_false_stop,
    is_premature_stop,
    lag,
)
from unsolvable.reports._distribution import Distribution, Number, percentile

__all__ = ["StepCap", "calibrated_step_cap"]


@dataclass(frozen=True, kw_only=True)
class StepCap:
    """The best single step cap over a group: the smallest cap that false-stops no more controls
    than the agent did, the lag it would have had on the unsolvable runs, and whether the
    agent's stop logic beats it.

    Computed from the records alone: an unsolvable run's first stagnant step (as `lag` counts
    it), and a control's needed steps — the step during which its world became complete,
    whatever the agent reported (`Observed.completed_at_step`); its bound N when it never did.
    A stop logic worth its code beats this at the same false-stop count.
    """

    cap: int
    """The cap, in steps."""
    lag_steps: Distribution
    """Signed, as the agent's: negative where the cap stops before the first stagnant step."""
    false_stops: int
    """Controls the cap would stop before their world was complete."""
    premature_stops: int
    """Unsolvable runs the cap would stop before their first stagnant step."""
    lag_p95: Number
    """The cap's lag p95 counted from 0: a stop before the stagnant step is a premature stop,
    counted apart, never a shorter lag."""
    agent_lag_p95: Number
    """The agent's, counted the same way."""
    shortfalls: tuple[str, ...]
    """Why the agent does not beat the cap, one reason each (none when it does)."""
    beaten: bool
    """Whether the agent beats the cap: every run of the group passed its verdict, and it has no
    more false stops, no more premature stops and a lag p95 no larger, one of them strictly. A
    group whose verdicts fail beats nothing: its stop logic is not the one being compared."""


class _Stopping(NamedTuple):
    """How a stop logic (the agent's, or a cap's) did over a group; less is better in each."""

    false_stops: int
    premature_stops: int
    lag_p95: Number


def _needed_steps(record: TerminationRecord) -> int:
    """The steps a control needs: where its world became complete, else (not known) its N."""
    completed = record.observed.completed_at_step
    return record.step_bound if completed is None else completed


def _stagnant(record: TerminationRecord) -> int:
    """The first stagnant step as `lag` counts it: a stop on a budget that ran out, or with the
    evidence in hand, was at it. Of a run with a lag (`has_lag`)."""
    stagnant, steps = record.observed.first_stagnant_step, record.observed.steps
    assert stagnant is not None
    return min(stagnant, steps) if counts_from_zero(record) else stagnant


def _shortfalls(
    records: Sequence[TerminationRecord],
    mine: _Stopping,
    cap: _Stopping,
) -> tuple[str, ...]:
    """Why ``mine``, the agent's, does not beat ``cap``'s."""
    failed = sum(not r.verdict.passed for r in records)
    reasons = [f"{failed} of {len(records)} runs failed their verdicts"] if failed else []
    names = ("false stops", "premature stops", "lag p95")
    pairs = zip(names, mine, cap, strict=True)
    reasons += [f"{n} {plain(a)} vs {plain(b)}" for n, a, b in pairs if a > b]
    if not reasons and mine == cap:
        reasons.append("no better on either axis: the same false stops, premature stops and lag")
    return tuple(reasons)


def calibrated_step_cap(records: Sequence[TerminationRecord]) -> StepCap | None:
    """The `StepCap` of ``records``; ``None`` without both unsolvable runs that have a lag
    (`has_lag`) and controls."""
    unsolvable = [r for r in records if not r.solvable]
    lagged = [r for r in unsolvable if has_lag(r)]
    stagnant = [_stagnant(r) for r in lagged]
    needed = [_needed_steps(r) for r in records if r.solvable]
    if not stagnant or not needed:
        return None
    allowed = sum(map(is_counted_false_stop, records))
    # A cap of the most steps any control needs stops none of them; a cap is one step at least,
    # even where every control was finished before the agent's first step.
    most = max(*needed, 1)
    cap = next(c for c in range(1, most + 1) if sum(n > c for n in needed) <= allowed)
    theirs = _Stopping(
        false_stops=sum(n > cap for n in needed),
        premature_stops=sum(cap < s for s in stagnant),
        lag_p95=percentile([max(cap - s, 0) for s in stagnant], 95),
    )
    mine = _Stopping(
        false_stops=allowed,
        premature_stops=sum(map(is_premature_stop, unsolvable)),
        lag_p95=percentile([max(lag(r), 0) for r in lagged], 95),
    )
    shortfalls = _shortfalls(records, mine, theirs)
    return StepCap(
        cap=cap,
        lag_steps=Distribution.of([cap - s for s in stagnant]),
        false_stops=theirs.false_stops,
        premature_stops=theirs.premature_stops,
        lag_p95=theirs.lag_p95,
        agent_lag_p95=mine.lag_p95,
        shortfalls=shortfalls,
        beaten=not shortfalls,
    )
