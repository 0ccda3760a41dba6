"""How a run of a multi-agent family ended, as the framework tables of ``docs/frameworks.md``
print each cell: the tests that back those tables share it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, TypeVar

from unsolvable import Ceilings, Session, TerminationRecord
from unsolvable.scenarios.catalog._dialect import HANDOFF_PREFIX

__all__ = [
    "DELEGATION_FAMILIES",
    "HANDOFF_SCENARIOS",
    "ROOMY",
    "ending",
    "report_handoff",
    "without_handoffs",
]

ROOMY = Ceilings(max_wall_seconds=60.0)
"""Timing is not under test: a loaded machine must not turn a count into a wall-clock ceiling."""


DELEGATION_FAMILIES = (
    "mixed-fan-out/one-denied",
    "duplicate-dispatch/lost-return",
    "task-graph/upstream-down",
    "role-ping-pong/reviewer-never-accepts",
    "nested-delegation/passed-on",
    "budget-edge/shared-dollars",
    "per-role-budgets/role-cap-spent",
    "per-role-budgets/run-cap-spent",
    "fan-out/rate-limit-storm",
    "mixed-fan-out/one-worker-hangs",
    "todo-spawn/subtasks-spawned",
)
"""The scenarios of the tables, one a family (two of per-role-budgets and of mixed-fan-out): a
supervisor delegating subtasks to workers."""
NOT_NESTED = tuple(name for name in DELEGATION_FAMILIES if name != "nested-delegation/passed-on")
"""For systems whose workers cannot delegate: every family but nested delegation."""

HANDOFF_SCENARIOS = ("role-ping-pong/handoff-bounce", "role-ping-pong/twin-handoff-converges")
"""The swarm scenario, two agents handing the task to each other, and its twin."""


class _Named(Protocol):
    @property
    def name(self) -> str: ...


Tool = TypeVar("Tool", bound=_Named)


def without_handoffs(tools: Iterable[Tool]) -> list[Tool]:
    """The scenario's tools but its ``transfer_to_<agent>`` ones: the framework's own handoffs,
    of the same names, take their place."""
    return [t for t in tools if not t.name.startswith(HANDOFF_PREFIX)]


def report_handoff(session: Session, name: str, *, agent: str) -> None:
    """Tells the world of a handoff the framework made, as the scenario's tool of that name does
    (the model reads the framework's own answer), as ``agent``'s call: the probe sees the task
    change hands."""
    session.call_tool(name, agent=agent)


def ending(record: TerminationRecord, *, steps: bool = True) -> str:
    """The code (or, with none, the outcome), the steps with ``steps``, and the verdict rules the
    run broke: ``"BUDGET_STEPS at 27: duplicate_dispatch, past_bound"``."""
    ended = record.code.value if record.code else record.outcome.value
    rules = ", ".join(sorted({f.rule.value for f in record.verdict.failures})) or "pass"
    return f"{ended} at {record.observed.steps}: {rules}" if steps else f"{ended}: {rules}"
