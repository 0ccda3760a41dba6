"""Consumes the ``@pytest.mark.unsolvable`` markers of a test, produces its frozen `MarkerOptions`:
the closest marker wins, keyword by keyword, and a bad keyword is a short `TypeError`."""

from __future__ import annotations

import dataclasses
import difflib
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pytest

from unsolvable.plugin._options import DOCS, MARKER

if TYPE_CHECKING:
    from unsolvable._loading import AgentLike

__all__ = ["MarkerOptions", "marker_line"]


@dataclass(frozen=True, kw_only=True)
class MarkerOptions:
    """The keywords of ``@pytest.mark.unsolvable``; the closest marker wins, keyword by keyword."""

    agent: AgentLike | None = None
    """A spec string (``pkg.module:attr``, ``naive``, ``contract``), a callable or an Adapter."""
    scenarios: tuple[str, ...] | None = None
    """Scenario or family names `unsolvable_case` is parametrized over (default: all)."""
    seeds: tuple[int, ...] | None = None
    """Seeds per scenario (default: each scenario's own)."""
    strict: bool | None = None
    step_bound: int | None = None
    max_steps: int | None = None
    max_tokens: int | None = None
    max_wall_seconds: float | None = None
    max_cost_usd: float | None = None
    ceiling_steps: int | None = None
    ceiling_tool_calls: int | None = None
    ceiling_seconds: float | None = None

    @classmethod
    def from_node(cls, node: pytest.Item | pytest.Collector | Any) -> MarkerOptions:
        """Merges every ``unsolvable`` marker from the farthest to the closest."""
        __tracebackhide__ = True
        merged: dict[str, Any] = {}
        for mark in reversed(list(node.iter_markers(MARKER))):
            if mark.args:
                raise TypeError(
                    f"@pytest.mark.unsolvable{mark.args!r}: takes keywords only, e.g. "
                    f"@pytest.mark.unsolvable(scenarios=[...]); see {DOCS}"
                )
            merged.update(mark.kwargs)
        return cls.from_kwargs(merged)

    @classmethod
    def from_kwargs(cls, kwargs: Mapping[str, Any]) -> MarkerOptions:
        __tracebackhide__ = True
        known = [field.name for field in dataclasses.fields(cls)]
        for name in kwargs:
            if name not in known:
                close = difflib.get_close_matches(name, known, n=1)
                hint = f"did you mean {close[0]}=? " if close else ""
                raise TypeError(
                    f"@pytest.mark.unsolvable({name}=...): unknown keyword; {hint}"
                    f"it accepts {', '.join(known)} ({DOCS})"
                )
        return cls(**{name: _check(name, value) for name, value in kwargs.items()})

    @property
    def overrides(self) -> dict[str, int | float]:
        """Step bound and budget fields, as `unsolvable.run` takes them."""
        names = ("step_bound", "max_steps", "max_tokens", "max_wall_seconds", "max_cost_usd")
        return {name: getattr(self, name) for name in names if getattr(self, name) is not None}


_COUNTS = frozenset(
    {"step_bound", "max_steps", "max_tokens", "ceiling_steps", "ceiling_tool_calls"}
)
"""The keywords that count steps, tokens or calls: whole numbers, as an agent may hand them to
``range``."""


def _names(name: str, value: Any, kind: type) -> tuple[Any, ...]:
    __tracebackhide__ = True
    items = (value,) if isinstance(value, kind) else value
    if not isinstance(items, Iterable) or isinstance(items, str | bytes):
        items = None
    elif all(isinstance(item, kind) and not isinstance(item, bool) for item in items):
        return tuple(items)
    raise TypeError(
        f"@pytest.mark.unsolvable({name}={value!r}): expected a {kind.__name__} or a list of "
        f"{kind.__name__}s, got {type(value).__name__}"
    )


def _check(name: str, value: Any) -> Any:
    """Validates one marker keyword: the accepted types, and numbers above zero."""
    __tracebackhide__ = True
    if value is None or name == "agent":
        return value
    if name == "scenarios":
        return _names(name, value, str)
    if name == "seeds":
        from unsolvable._scenario import SEEDS, is_seed

        seeds = _names(name, value, int)
        if not all(is_seed(seed) for seed in seeds):
            raise TypeError(
                f"@pytest.mark.unsolvable(seeds={value!r}): expected seeds, each {SEEDS}, "
                "e.g. seeds=[0, 1]"
            )
        return seeds
    if name == "strict":
        if not isinstance(value, bool):
            raise TypeError(f"@pytest.mark.unsolvable(strict={value!r}): expected True or False")
        return value
    if name in _COUNTS and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise TypeError(
            f"@pytest.mark.unsolvable({name}={value!r}): expected a positive whole number, "
            f"got {type(value).__name__}"
        )
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise TypeError(
            f"@pytest.mark.unsolvable({name}={value!r}): expected a positive number, "
            f"got {type(value).__name__}"
        )
    if not math.isfinite(value):  # an endless ceiling or budget is none: the run could hang
        raise TypeError(
            f"@pytest.mark.unsolvable({name}={value!r}): expected a positive, finite number, "
            f"got {type(value).__name__}"
        )
    return value


def marker_line() -> str:
    """The ``markers`` ini line: the full keyword signature, so --strict-markers and
    ``pytest --markers`` show it."""
    keywords = ", ".join(f"{field.name}=None" for field in dataclasses.fields(MarkerOptions))
    return (
        f"{MARKER}(*, {keywords}): run this test's agent on unsolvable scenarios with these "
        f"settings; the closest marker wins, keyword by keyword. See {DOCS}"
    )
