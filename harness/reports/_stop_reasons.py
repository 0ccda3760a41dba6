"""Consumes how a run ended (its code, or the harness's outcome when it gave none), produces what
each protocol's own stop vocabulary can say of it: ACP's ``stopReason``, the A2A task state and
the OpenTelemetry GenAI ``gen_ai.agent.finish_reason`` (`STOP_REASONS`, one row per ending).

Each value says how faithfully it says it (`Fidelity`): exactly, only by the nearest value it
shares with another ending, only with an extension value the protocol allows (an ACP stop
reason beginning with ``_``; an A2A state with the code in the status's ``metadata``), or not at
all.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from unsolvable._record import TerminationRecord
from unsolvable._stop import Code, Outcome

__all__ = [
    "A2A_CODE_KEY",
    "ENDINGS",
    "FINISH_REASONS",
    "STOP_REASONS",
    "Fidelity",
    "Said",
    "StopReasons",
    "stop_reasons",
]

A2A_CODE_KEY = "unsolvable.code"
"""The key of the task ``metadata`` entry that carries the code where the A2A state alone does
not say it."""


class Fidelity(StrEnum):
    EXACT = "exact"
    """The protocol's own value means what the ending means."""
    NEAREST = "nearest"
    """The protocol's closest value, which also stands for another ending: a reader cannot
    tell the two apart."""
    EXTENSION = "extension"
    """Said with a value the protocol leaves to implementations; a reader that does not know it
    sees a generic stop (ACP) or the nearest standard state (A2A)."""
    NONE = "none"
    """The protocol has no way to say it."""


@dataclass(frozen=True, kw_only=True)
class Said:
    """One protocol's value for an ending, and how faithful it is."""

    value: str | None
    fidelity: Fidelity


@dataclass(frozen=True, kw_only=True)
class StopReasons:
    """An ending in each protocol's stop vocabulary."""

    acp: Said
    """ACP ``session/prompt``'s ``stopReason``."""
    a2a: Said
    """The A2A task state (``TASK_STATE_…`` in the protocol buffer, ``completed`` in JSON);
    with `Fidelity.EXTENSION`, the code rides in the task's metadata (`A2A_CODE_KEY`)."""
    otel: Said
    """``gen_ai.agent.finish_reason`` as the GenAI conventions propose it."""


ENDINGS: tuple[Code | Outcome, ...] = (
    *Code,
    Outcome.DID_NOT_STOP,
    Outcome.CRASHED,
    Outcome.UNSTRUCTURED,
)
"""Every way a run ends: a code the agent gave, or the harness's outcome when it gave none."""

FINISH_REASONS: dict[Code | Outcome, str] = {
    Code.COMPLETED: "completed",
    Code.BUDGET_STEPS: "max_iterations",
    Code.BUDGET_CALLS: "max_iterations",
    Code.BUDGET_COST: "max_tokens",
    Code.BUDGET_TIME: "time_budget",
    Code.BUDGET_IDLE: "time_budget",
    Outcome.CRASHED: "error",
    # The harness's ceiling cut the run from outside: a cancellation, not the agent's own
    # iteration cap (``max_iterations`` would read as BUDGET_STEPS, an honest exhausted exit).
    Outcome.DID_NOT_STOP: "cancelled",
}
"""The closest value the GenAI conventions propose for ``gen_ai.agent.finish_reason``.
NO_PROGRESS, BLOCKED_INPUT, NEEDS_HUMAN, ERROR_FATAL (abandoned) and ``unstructured`` have none:
`finish_reason` says so instead of guessing."""


_ACP: dict[Code | Outcome, Said] = {
    Code.COMPLETED: Said(value="end_turn", fidelity=Fidelity.EXACT),
    Code.BUDGET_STEPS: Said(value="max_turn_requests", fidelity=Fidelity.EXACT),
    Code.BUDGET_COST: Said(value="max_tokens", fidelity=Fidelity.EXACT),
    # The harness ends a run at its ceiling as an editor does: it cancels the turn.
    Outcome.DID_NOT_STOP: Said(value="cancelled", fidelity=Fidelity.EXACT),
    # A crash answers the prompt with a JSON-RPC error, not a stop reason; and an unstructured
    # return has no reason to give (``end_turn`` would claim completion).
    Outcome.CRASHED: Said(value=None, fidelity=Fidelity.NONE),
    Outcome.UNSTRUCTURED: Said(value=None, fidelity=Fidelity.NONE),
}
_A2A: dict[Code | Outcome, Said] = {
    Code.COMPLETED: Said(value="completed", fidelity=Fidelity.EXACT),
    Code.BLOCKED_INPUT: Said(value="input-required", fidelity=Fidelity.EXACT),
    Code.NEEDS_HUMAN: Said(value="input-required", fidelity=Fidelity.EXTENSION),
    Code.ERROR_FATAL: Said(value="failed", fidelity=Fidelity.EXACT),
    Outcome.DID_NOT_STOP: Said(value="canceled", fidelity=Fidelity.EXACT),
    # The agent's own fatal error (ERROR_FATAL) is what ``failed`` says; a crash shares it.
    Outcome.CRASHED: Said(value="failed", fidelity=Fidelity.NEAREST),
    Outcome.UNSTRUCTURED: Said(value=None, fidelity=Fidelity.NONE),
}
"""A2A has no exhausted state and no state for a run given up on evidence: those fail, with the
code in the metadata."""


def _acp(ending: Code | Outcome) -> Said:
    if ending in _ACP:
        return _ACP[ending]
    return Said(value=f"_{ending.value.lower()}", fidelity=Fidelity.EXTENSION)


def _a2a(ending: Code | Outcome) -> Said:
    return _A2A.get(ending, Said(value="failed", fidelity=Fidelity.EXTENSION))


_OTEL_NEAREST = frozenset({Code.BUDGET_CALLS, Code.BUDGET_IDLE})
"""The endings whose finish reason is another's: ``max_iterations`` counts steps, not tool
calls; ``time_budget`` is the whole run's time, not the time since the last change."""


def _otel(ending: Code | Outcome) -> Said:
    reason = FINISH_REASONS.get(ending)
    if reason is None:
        return Said(value=None, fidelity=Fidelity.NONE)
    nearest = ending in _OTEL_NEAREST
    return Said(value=reason, fidelity=Fidelity.NEAREST if nearest else Fidelity.EXACT)


STOP_REASONS = {
    ending: StopReasons(acp=_acp(ending), a2a=_a2a(ending), otel=_otel(ending))
    for ending in ENDINGS
}
"""The table: every ending (`ENDINGS`) in the three vocabularies."""


def stop_reasons(record: TerminationRecord) -> StopReasons:
    """How ``record``'s run ended, said in each protocol's vocabulary."""
    return STOP_REASONS[record.code if record.code is not None else record.outcome]
