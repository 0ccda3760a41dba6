"""Consumes a supervisor's dispatches and its workers' stops, produces the contract's own subtask
table: which subtask may run (never one that already succeeded or is running, never one whose
dependency failed, a failed one retried only within the allowance) and what a stop must say — the
blocker, and the subtasks that finished.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from unsolvable._stop import Code, Exit, Stop

__all__ = ["PERMANENT", "Supervision"]

PERMANENT = frozenset({Code.BLOCKED_INPUT, Code.ERROR_FATAL})
"""A worker's stop that no retry can lift: a permission it lacks, a dependency that is down."""


@dataclass(kw_only=True)
class _Row:
    state: str = "pending"
    """pending, running, succeeded, failed, skipped or abandoned: the vocabulary's node states."""
    attempts: int = 0
    stop: Stop | None = None
    blockers: list[str] = field(default_factory=list)


class Supervision:
    """One supervisor's subtasks; ``retries`` is how often a subtask that ended without success
    may be dispatched again."""

    def __init__(self, *, retries: int) -> None:
        self.retries = retries
        self.rows: dict[str, _Row] = {}

    def refusal(self, name: str, depends_on: list[str]) -> str | None:
        """Why ``name`` must not run now, or ``None`` when it may."""
        row = self.rows.setdefault(name, _Row())
        if row.state == "succeeded":
            return f"{name!r} already succeeded: {row.stop.reason if row.stop else ''}"
        if row.state == "running":
            return f"{name!r} is already running"
        if row.stop is not None and row.stop.code in PERMANENT:
            return f"{name!r} failed and no retry can lift it: {row.stop.reason}"
        if row.attempts > self.retries:
            return f"{name!r} was tried {row.attempts} times"
        unmet = [d for d in depends_on if self.rows.get(d, _Row()).state != "succeeded"]
        if unmet:
            row.state = "skipped"
            return f"{name!r} is skipped: its dependency {unmet[0]!r} did not succeed"
        return None

    def skip(self, name: str) -> None:
        """Not started: its siblings failed before it, and share what failed them."""
        self.rows.setdefault(name, _Row()).state = "skipped"

    def start(self, name: str) -> None:
        row = self.rows[name]
        row.state, row.attempts = "running", row.attempts + 1

    def settle(self, name: str, stop: Stop, blockers: list[str]) -> None:
        """The worker's stop, read into the table: only a verified completion is success."""
        row = self.rows[name]
        row.stop, row.blockers = stop, blockers
        if stop.exit is Exit.COMPLETE:
            row.state = "succeeded"
        else:
            row.state = "failed" if stop.code in PERMANENT or blockers else "abandoned"

    def blocked(self) -> list[Stop]:
        """The workers' stops of the subtasks whose failure no retry can lift."""
        return [
            row.stop
            for row in self.rows.values()
            if row.stop is not None and row.stop.code in PERMANENT and row.state == "failed"
        ]

    def retriable(self) -> list[str]:
        """Subtasks that failed on a refusal a retry may find lifted, within the allowance: a
        permission refused once (the next worker's refusal is what shows it is not), or a
        dependency that refused the call before its worker gave up on it (one its worker found
        down for good ended the subtask `PERMANENT`)."""
        return [
            name
            for name, row in self.rows.items()
            if row.state == "failed"
            and row.blockers
            and row.stop is not None
            and row.stop.code not in PERMANENT
            and row.attempts <= self.retries
        ]

    def unfinished(self) -> list[str]:
        """Subtasks that ended failed, abandoned or skipped."""
        return [n for n, r in self.rows.items() if r.state in ("failed", "abandoned", "skipped")]

    def finished(self) -> list[str]:
        return [name for name, row in self.rows.items() if row.state == "succeeded"]

    def states(self) -> dict[str, str]:
        """The table as partial results: each subtask's state, and what blocked the failed."""
        return {
            name: row.state + (f" ({', '.join(row.blockers)})" if row.blockers else "")
            for name, row in self.rows.items()
        }

    def summary(self) -> str:
        """One sentence for a stop's reason: what finished, and what did not."""
        finished = self.finished()
        rest = [f"{n}: {s}" for n, s in self.states().items() if n not in finished]
        done = ", ".join(finished) if finished else "none"
        return f"finished: {done}; not finished: {'; '.join(rest) or 'none'}"
