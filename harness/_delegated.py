"""Consumes a scenario's task graph and what the harness saw of each delegation, produces the
subtask's types: `SubtaskSpec` (a subtask the scenario declares), `SubtaskState`, and the row of
the subtask table, `Subtask`, with its `Dispatch`-es and the `Transition`-s of its state."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

__all__ = ["DECLARED", "Dispatch", "Subtask", "SubtaskSpec", "SubtaskState", "Transition"]

DECLARED = "declared by the scenario"
"""Why a subtask of the scenario's task graph is pending from step 0: the first line of its
history, which no subtask dispatched beside the graph has."""


class SubtaskState(StrEnum):
    """A subtask's state (the node states of a task graph, plus ``abandoned``)."""

    PENDING = "pending"
    """Declared or dispatched, not started."""
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    """Its completion criteria hold in the world."""
    FAILED = "failed"
    """Its attempt ended after a refused call (a denied permission, a dependency down)."""
    SKIPPED = "skipped"
    """Never started: a dependency did not succeed, or the run ended first."""
    ABANDONED = "abandoned"
    """Started, then its attempt (or the run) ended without success or a refusal."""

    @property
    def is_terminal(self) -> bool:
        return self not in (SubtaskState.PENDING, SubtaskState.RUNNING)


@dataclass(frozen=True, kw_only=True)
class SubtaskSpec:
    """A subtask the scenario declares: the ground truth of its task graph."""

    name: str
    """What the ``delegate`` call's ``subtask`` argument says, and the worker's conversation."""
    depends_on: tuple[str, ...] = ()
    """Subtasks that must succeed before this one may start."""
    role: str | None = None
    """The role whose workers do it: their steps count against that role's budget
    (`Scenario.role_steps`)."""
    failing: Callable[[Any], Sequence[str]] | None = None
    """Its own completion criteria that still fail, read from the run's world (the scenario's
    own kind of world, hence ``Any``); ``None``: it is done when the whole task is."""


@dataclass(frozen=True, kw_only=True)
class Transition:
    """A change of a subtask's state: when, to what, because of which agent, and why."""

    step: int
    state: SubtaskState
    agent: str | None
    why: str


@dataclass(frozen=True, kw_only=True)
class Dispatch:
    """One ``delegate`` call the model asked for."""

    step: int
    by: str
    """The agent whose model asked for it."""
    started: int | None = None
    """The step at which a worker began on it."""
    returned: int | None = None
    """The step at which its dispatcher's conversation first held its answer."""


@dataclass(frozen=True, kw_only=True)
class Subtask:
    """One row of the subtask table."""

    name: str
    state: SubtaskState
    """Its state when the run ended."""
    why: str
    depends_on: tuple[str, ...] = ()
    dispatched_by: tuple[str, ...] = ()
    """The agents that dispatched it, in order (a worker passing its brief on appears too)."""
    workers: tuple[str, ...] = ()
    """The agents that worked on it, in order."""
    blocker: str | None = None
    """What refused it: the permission or the dependency its refused call named."""
    dispatches: tuple[Dispatch, ...] = ()
    history: tuple[Transition, ...] = ()
    duplicate_starts: tuple[int, ...] = ()
    """Steps at which it started again while running, or after it had succeeded."""
    blocked_starts: tuple[int, ...] = ()
    """Steps at which it started although a dependency had not succeeded."""
    late_steps: tuple[int, ...] = ()
    """Steps a worker made on it after its delegation had returned, with no new dispatch: its
    model calls, and the steps during which it made a tool call its model asked for before."""

    @property
    def is_declared(self) -> bool:
        """Whether the scenario's task graph declares it: its state is then ground truth the
        scenario owns. One dispatched beside the graph has no criteria of its own, and is done
        only when the whole task is, which says nothing of its own work."""
        return bool(self.history) and self.history[0] == Transition(
            step=0, state=SubtaskState.PENDING, agent=None, why=DECLARED
        )
