"""Consumes the exit an agent returns, produces the `Stop` it reported, checked: its `Code`, the
`Exit` that code belongs to, and the `Outcome` the harness saw whatever the agent said."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from unsolvable._text import ELLIPSIS, MISSING_CUT, REASON_CUT, cut

__all__ = ["Code", "Exit", "Outcome", "Stop"]


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
    """One sentence a human can act on (at most 10,000 characters are kept, and judged:
    `REASON_CUT`)."""
    partial: Any = None
    """Whatever was achieved before stopping (required on ``exhausted``); the record keeps it as
    JSON of at most 100,000 characters, and more as its JSON (or a text) cut to them
    (`PARTIAL_CUT`)."""
    missing: tuple[str, ...] = ()
    """For ``BLOCKED_INPUT``: the inputs or permissions that are missing (at most 100 of them,
    `MISSING_CUT`, the last then saying how many more were cut; each cut as the reason is)."""

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
        object.__setattr__(self, "reason", cut(_text(self.reason), REASON_CUT))
        # One name is one item, not a tuple of its characters.
        missing = (self.missing,) if isinstance(self.missing, str) else self.missing
        object.__setattr__(self, "missing", _named(tuple(missing)))


def _named(missing: tuple[object, ...]) -> tuple[str, ...]:
    """The first `MISSING_CUT` of the inputs a stop names, each as text cut at `REASON_CUT`
    characters, and how many more there were (those are neither read nor cut): what the record
    keeps and the verdict reads is the same, on every face and when the record is read back."""
    kept = missing if len(missing) <= MISSING_CUT else missing[: MISSING_CUT - 1]
    names = tuple(cut(_text(item), REASON_CUT) for item in kept)
    more = len(missing) - len(kept)
    return (*names, f"{ELLIPSIS} ({more} more cut)") if more else names


def _text(value: object) -> str:
    """``value`` as text of the plain `str` type: the verdict reads a reason and the names of
    what is missing with ``in``, which a subclass of `str` could answer as it liked (naming every
    input while the record, which writes the text, names none)."""
    return str.__str__(str(value))


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
