"""Consumes the rules a run can break (`Rule`), produces the verdict's types: a `Failure` per
broken rule, and the `Verdict` that holds them."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = ["Failure", "Rule", "Verdict"]


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
    """Ran past the token or dollar budget by more than the 5% an estimating ledger needs
    (`OVERSHOOT_TOLERANCE`)."""
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
    UNFINISHED_LISTED = "unfinished_listed"
    """A stop that lists as finished a subtask whose criteria never held: a success claimed
    for work its caller would then take for done."""
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
