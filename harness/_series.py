"""Consumes what a run spent of one quantity before each of its steps, produces the step at which
a limit was reached or could still be covered, observed for the steps made and projected after
them (`Spend`)."""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, overload

__all__ = ["Combined", "FirstStep", "Spend", "grown"]

_V = TypeVar("_V", int, float)


@dataclass(frozen=True, kw_only=True)
class Spend:
    """One quantity spent over a run (tokens, dollars, simulated seconds), step by step: what
    the budget-spent ground truth and the lag in tokens and dollars read.

    Spend past the last step made is *projected* at the last step's spend: a conversation only
    grows, so each later step costs at least that much and the projection is a floor (a step
    waits as long as the last did, for time).
    A run with no step has nothing to project from: its later steps are taken to cost nothing.
    """

    before: Sequence[float]
    """``before[i]``: spent before step ``i + 1`` began."""
    total: float
    """Spent by the end of the run."""

    @property
    def _last(self) -> float:
        """What the last step made cost (0 without a step)."""
        return self.total - self.before[-1] if self.before else 0.0

    def next_step(self, continued: int) -> float:
        """What the next step of the conversation that made the last step would cost: the last
        step's spend plus what it grew by over ``continued``, the earlier step that conversation
        carried on (a conversation re-sent every step grows by about as much each step); the
        last step's spend alone when it carried on none (``0``) or one that spent nothing (a
        refused request, which measures no growth), the floor of a conversation that only
        grows; 0 without a step. Another conversation's step is never the step before: a small
        one made just before the last would pass for growth."""
        if not 0 < continued < len(self.before):
            return self._last
        before = self.before[continued] - self.before[continued - 1]
        return grown(self._last, before) if before > 0 else self._last

    def at_start(self, step: int) -> float:
        """Spent before ``step`` began: observed for the steps made, projected after them."""
        made = len(self.before)
        if step <= made:
            return self.before[step - 1]
        return self.total + (step - 1 - made) * self._last

    def spent_at(self, limit: float | None, first: FirstStep | None = None) -> int | None:
        """The step during which the spend reached ``limit`` (observed, else projected);
        ``None`` for no limit, or no spend to project from. ``first``: the search so far among
        the steps before the last, whose spend is final (`FirstStep`)."""
        if limit is None or not self.before:
            return None
        before, made = self.before, len(self.before)
        reached = (first or FirstStep()).among(made - 1, lambda step: before[step] >= limit)
        if reached is None and self.total >= limit:
            reached = made
        if reached is not None or self._last <= 0:
            return reached
        return made + math.ceil((limit - self.total) / self._last)

    def covered_until(self, limit: float | None, first: FirstStep | None = None) -> int | None:
        """The last step a budget of ``limit`` could cover: the one after which the next step,
        costing at least what it cost (a conversation only grows), would take the spend past
        ``limit`` — observed, else projected at the last step's spend. An agent that admits
        each step before it begins stops there. ``None`` for no limit, or nothing to project
        from. ``first``: as for `spent_at`."""
        if limit is None or not self.before:
            return None
        before, made = self.before, len(self.before)

        def uncovered(step: int, end: float) -> bool:
            return end + (end - before[step - 1]) > limit

        covered = (first or FirstStep()).among(made - 1, lambda step: uncovered(step, before[step]))
        if covered is not None or uncovered(made, self.total):
            return covered or made
        if self._last <= 0:
            return None
        return made + math.floor((limit - self.total) / self._last)


def grown(last: float, before: float) -> float:
    """The next step of a conversation whose last step spent ``last`` and whose step before it
    spent ``before``: the last step's spend plus what it grew by, never less than the last."""
    return last + max(last - before, 0.0)


class FirstStep:
    """The search for the first step that meets a test among the steps whose figures are final
    (every step but the last made), each step tested once over the run: the truth asked for
    after every call then costs the same at step 10,000 as at step 1. One instance serves one
    test."""

    __slots__ = ("found", "tested")

    def __init__(self) -> None:
        self.tested = 0
        self.found: int | None = None

    def among(self, final: int, meets: Callable[[int], bool]) -> int | None:
        """The first of steps 1 to ``final`` that ``meets`` the test, if any."""
        while self.found is None and self.tested < final:
            self.tested += 1
            if meets(self.tested):
                self.found = self.tested
        return self.found


class Combined(Sequence[_V]):
    """Two arrays of per-step values combined one value at a time as they are read, not all at
    once: the truth reads one step's spend for the lag, so asking for it after every call costs
    the same at step 10,000 as at step 1."""

    __slots__ = ("_combine", "_first", "_second")

    def __init__(
        self, combine: Callable[[Any, Any], _V], first: array[Any], second: array[Any]
    ) -> None:
        self._combine: Callable[[Any, Any], _V] = combine
        self._first, self._second = first, second

    def __len__(self) -> int:
        return len(self._first)

    @overload
    def __getitem__(self, index: int) -> _V: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[_V]: ...

    def __getitem__(self, index: int | slice) -> _V | Sequence[_V]:
        if isinstance(index, slice):
            return list(map(self._combine, self._first[index], self._second[index]))
        return self._combine(self._first[index], self._second[index])

    def __iter__(self) -> Iterator[_V]:
        return map(self._combine, self._first, self._second)
