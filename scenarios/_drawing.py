"""Consumes hypothesis's draws, produces what every scenario strategy shares: the seeds a variant
runs on, a scenario on a drawn seed, and the counts whose variant stays under the harness's step
ceiling."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from hypothesis import strategies as st

from unsolvable import Ceilings, Scenario
from unsolvable.scenarios.catalog._common import LEADS

__all__ = ["MAX_SEED", "Twins", "seeded", "seeds", "under_the_ceiling"]


Twins = Callable[[str], tuple[Scenario, ...]]
"""Makes a generated variant's twins, each variant named with the suffix it is given."""


MAX_SEED = 2**16 - 1
"""Seeds vary ids and names in the world; a 16-bit range is plenty and keeps names short."""


def seeds() -> st.SearchStrategy[tuple[int, ...]]:
    return st.tuples(st.integers(0, MAX_SEED))


def seeded(scenario: Scenario, draw: st.DrawFn) -> Scenario:
    """``scenario`` on one drawn seed, as the other strategies draw theirs: the families that use
    it take no seeds in their ``make``, which gives every built-in scenario the library's three."""
    return dataclasses.replace(scenario, seeds=draw(seeds()))


def under_the_ceiling(made: Callable[[int], Scenario], *, start: int) -> range:
    """The counts from ``start`` whose variant, ``made`` of the count, keeps its N after the
    longest background reading, and its step budget, under the harness's step ceiling: past it,
    a run that never stops is cut off before it overruns N, or before its budget runs out."""

    def fits(count: int) -> bool:
        scenario = made(count)
        ceiling = Ceilings.max_steps
        return scenario.step_bound + max(LEADS) < ceiling and scenario.budget.max_steps < ceiling

    return range(start, next(n for n in range(start, Ceilings.max_steps) if not fits(n)))
