"""Consumes the limits a user sets on the `contract` agent, produces its checked
`ContractThresholds`: when it stops, each threshold at least 1; and the `Terms` a run of it
reads, those and the tools it verifies and delegates with."""

from __future__ import annotations

from dataclasses import dataclass

from unsolvable._errors import BudgetError

__all__ = ["ContractThresholds", "Terms"]


@dataclass(frozen=True, kw_only=True)
class ContractThresholds:
    """When the contract stops. Each at least 1."""

    repeated_action: int = 3
    """Identical tool call + arguments made this many times with nothing new coming back: stop
    (the contract's 3×). One fewer: tell the model, once (hint first)."""
    stalled_steps: int = 2
    """Consecutive steps with no new observation: stop. Two, so a single re-check is allowed."""
    criteria_steps: int = 3
    """Consecutive steps in which no completion criterion moved and no new information came
    (numbers masked, progress figures read apart): stop. Catches work that makes new artifacts
    (to-do lists that only tick a counter) without getting closer, while a research phase of
    new reads before the write goes on."""
    unavailable_attempts: int = 3
    """Consecutive 503s with no retry hint from one tool before abandoning the dependency."""
    idle_steps: int = 8
    """Steps spent waiting (a pending job, a 503 with Retry-After) before ``BUDGET_IDLE``, when
    the budget sets no idle time (`Budget.max_idle_seconds`), which is read instead."""
    not_found_lookups: int = 2
    """Lookups in a row answered "not found" before the task's premise is taken to be false
    (``BLOCKED_INPUT``): one is a typo's worth of evidence, two are the evidence."""
    sibling_failures: int = 2
    """Workers in a row that stop without finishing before the rest are not started: siblings
    of two stuck workers share their dependency (failure propagation)."""
    warn_at_fraction_left: float = 0.2
    """Budget fraction left at which the model is told to wrap up (the contract's 20%)."""
    permission_denials: int = 2
    """Refusals of one permission (by any tool) that block: one leaves room for another,
    allowed route; a second is the retry that shows there is none."""
    retries: int = 1
    """Times a subtask that ended without success may be dispatched again: a retry needs a
    failure to retry; a subtask that succeeded, or is running, is never run twice."""
    brief_passes: int = 1
    """Times a worker's brief may be passed on whole to another worker (a coordinator handing it
    to a specialist) before passing it on again is taken for delegation that does no work."""
    stalled_waves: int = 1
    """Rounds of delegation in a row that bring no new observation (a producer and a reviewer
    going round the same drafts, a supervisor re-dispatching what is done): stop."""

    def __post_init__(self) -> None:
        thresholds = (
            "repeated_action",
            "stalled_steps",
            "criteria_steps",
            "sibling_failures",
            "not_found_lookups",
            "permission_denials",
        )
        for name in thresholds:
            if getattr(self, name) < 1:
                raise BudgetError(
                    f"ContractThresholds({name}={getattr(self, name)!r}): must be ≥ 1"
                )
        if self.unavailable_attempts < 1 or self.idle_steps < 1:
            raise BudgetError("ContractThresholds: unavailable_attempts and idle_steps must be ≥ 1")


@dataclass(frozen=True, kw_only=True)
class Terms:
    """What a run of the contract reads of its agent (`unsolvable.agents.ContractAgent`)."""

    thresholds: ContractThresholds
    verifier: str
    """The tool that re-reads the system of record."""
    delegate: str
    """The tool whose calls hand a subtask to a worker."""
