"""Consumes the harness's limits as given, produces `Ceilings`: checked, and cheap to import.

The pytest plugin reads the ceilings from every session's options and prints their defaults in
its help, so they live apart from the scenario machinery, which an unused plugin never imports.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass
from numbers import Integral, Real

from unsolvable._errors import BudgetError

__all__ = ["Ceilings", "require_positive"]


def require_positive(owner: object, *, whole: Collection[str] = (), **values: float | None) -> None:
    """A `BudgetError` naming the first of ``values`` that is set but not a number above zero, or
    not finite (``inf`` is no limit: ``None`` says that), or, for the counts named in ``whole``,
    not a whole number: an agent may hand a count to ``range``."""
    for name, value in values.items():
        kind = Integral if name in whole else Real
        if value is None or (
            isinstance(value, kind)
            and not isinstance(value, bool)
            and value > 0
            and math.isfinite(value)
        ):
            continue
        wanted = "a positive whole number" if name in whole else "a positive, finite number"
        raise BudgetError(
            f"{type(owner).__name__}({name}={value!r}): must be {wanted}; "
            f"pass {name}=None for no limit where that is allowed"
        )


@dataclass(frozen=True, kw_only=True)
class Ceilings:
    """The harness's own limits, far above any budget: hitting one means ``did_not_stop``."""

    max_steps: int = 200
    """Model calls; eight times the cap most agents ship with (25), so only a runaway hits it."""
    max_tool_calls: int = 400
    """Tool calls, for agents that loop on tools without asking the model."""
    max_wall_seconds: float = 10.0
    """Wall time per run; a fake model answers in microseconds, so 10 s is only reached by hangs."""

    def __post_init__(self) -> None:
        require_positive(
            self,
            whole=("max_steps", "max_tool_calls"),
            max_steps=self.max_steps,
            max_tool_calls=self.max_tool_calls,
            max_wall_seconds=self.max_wall_seconds,
        )
