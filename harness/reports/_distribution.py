"""Consumes the values of one quantity over a group's runs, produces their `Distribution`: p50, p95
and max as nearest-rank percentiles, each a value that was observed."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from unsolvable._numbers import rounded

__all__ = ["Distribution", "Number", "percentile"]

Number = int | float


def percentile(values: Sequence[Number], q: int) -> Number:
    """Nearest-rank percentile: the ``ceil(q·n/100)``-th smallest of the ``n`` values.

    Always a value that was observed (a lag in steps stays a whole step), computed in integers
    so the same runs give the same number on every machine; ``q=100`` is the maximum.
    """
    if not values:
        raise ValueError("percentile() of no values; a group with no runs has no distribution")
    if not 0 < q <= 100:
        raise ValueError(f"percentile(q={q!r}): q must be a whole percent in 1..100")
    rank = (q * len(values) + 99) // 100
    return sorted(values)[rank - 1]


@dataclass(frozen=True, kw_only=True)
class Distribution:
    """p50, p95 and max of one quantity over a group's runs (nearest-rank percentiles)."""

    count: int
    """How many runs the distribution is over."""
    p50: Number
    """The median, nearest-rank: the ⌈n/2⌉-th smallest value."""
    p95: Number
    """The ⌈0.95·n⌉-th smallest value: the largest, ``max``, over fewer than 20 runs."""
    max: Number
    """The largest value."""

    @classmethod
    def of(cls, values: Sequence[Number]) -> Distribution:
        return cls(
            count=len(values),
            p50=percentile(values, 50),
            p95=percentile(values, 95),
            max=percentile(values, 100),
        )

    def rounded(self, digits: int) -> Distribution:
        """The same percentiles rounded to ``digits`` (`unsolvable._numbers.rounded`: never onto
        0 or 1 unless they are 0 or 1): the same as those of the rounded values, since rounding
        keeps their order."""
        p50, p95, most = (rounded(value, digits) for value in (self.p50, self.p95, self.max))
        return dataclasses.replace(self, p50=p50, p95=p95, max=most)
