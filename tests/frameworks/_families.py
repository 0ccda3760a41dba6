"""How a run of a multi-agent family ended, as the framework tables of ``docs/frameworks.md``
print each cell: the tests that back those tables share it."""

from __future__ import annotations

from unsolvable import Ceilings, TerminationRecord

__all__ = ["ROOMY", "ending"]

ROOMY = Ceilings(max_wall_seconds=60.0)
"""Timing is not under test: a loaded machine must not turn a count into a wall-clock ceiling."""


def ending(record: TerminationRecord, *, steps: bool = True) -> str:
    """The code (or, with none, the outcome), the steps with ``steps``, and the verdict rules the
    run broke: ``"BUDGET_STEPS at 27: duplicate_dispatch, past_bound"``."""
    ended = record.code.value if record.code else record.outcome.value
    rules = ", ".join(sorted({f.rule.value for f in record.verdict.failures})) or "pass"
    return f"{ended} at {record.observed.steps}: {rules}" if steps else f"{ended}: {rules}"
