"""Consumes a run's totals and its budget, produces the ground truth's types: `Truth` (the first
stagnant step, the evidence of it and the lag) and `Overrun` (the next step's estimate and how far
the run went past its budget)."""

from __future__ import annotations

from dataclasses import dataclass

from unsolvable._scenario import Budget

__all__ = ["COST_DIGITS", "Overrun", "Truth", "overshoot"]

COST_DIGITS = 6
"""Dollar figures keep a millionth of a dollar, as the records do."""


@dataclass(frozen=True, kw_only=True)
class Truth:
    """The ground truth of a finished run and the lag measured against it; all ``None`` on a
    solvable control, which has no stagnant step."""

    first_stagnant_step: int | None
    lag_tokens: int | None
    """Signed, as the lag in steps: tokens spent from the start of the first stagnant step to
    the stop; for a stop before it, minus the (projected) tokens of the steps skipped before it."""
    lag_cost_usd: float | None
    evidence_step: int | None
    """The step by which the agent had received the evidence that no progress was possible: the
    first stagnant step, or the step before it when that step's own later calls already repeated
    what had been seen (evidence within a step counts)."""

    def had_the_evidence(self, steps: int) -> bool:
        """Whether a run that made ``steps`` steps had received the evidence by its last: its end
        is then no guess, whatever ended it, and is judged by what it saw (`Observer`, and
        `Seen` for a run whose worker was lost)."""
        return self.evidence_step is not None and steps >= self.evidence_step


@dataclass(frozen=True, kw_only=True)
class Overrun:
    """What a finished run spent against its budget: whether it could afford another step, and
    how far it went past a token or dollar budget."""

    next_step_tokens: int
    """The next step's tokens, every token sent and received as the model's usage reports them
    to the agent, estimated within the conversation that made the last step: the last step's
    plus what that conversation grew by over its own step before, or the last step's alone when
    it carried on none (`Spend.next_step`)."""
    next_step_cost_usd: float
    overshoot_tokens: int
    """Tokens charged past the token budget (0 within it, or without one)."""
    overshoot_cost_usd: float
    """Dollars past the dollar budget; with a token budget only, the overshoot's tokens at the
    run's mean price per token."""


def overshoot(budget: Budget, *, tokens: int, cost: float, sent: int) -> tuple[int, float]:
    """How far past its token and dollar budget a run that ended with these totals went
    (`Overrun.overshoot_tokens`, `Overrun.overshoot_cost_usd`): the totals alone tell it, so a
    run whose worker was lost has it too."""
    over = max(0, tokens - budget.max_tokens) if budget.max_tokens is not None else 0
    if budget.max_cost_usd is not None:
        over_cost = max(0.0, cost - budget.max_cost_usd)
    else:
        over_cost = over * cost / sent if sent else 0.0
    return over, round(over_cost, COST_DIGITS)
