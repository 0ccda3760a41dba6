"""Consumes a JSON value, produces a copy of it that refuses every change: what the harness hands
a scenario's `Model`, so that nothing a model does reaches the agent's messages or the count, and
the mappings of a record it hands a test, so that nothing a test does reaches the reports.

The copies are `dict` and `list` subclasses, not mapping proxies and tuples, so that a model reads
them as the JSON it is: ``json.dumps`` writes them, and they compare equal to the dicts and lists
they were copied from.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NoReturn

__all__ = ["FrozenDict", "FrozenList", "freeze"]


def _refuse(container: object) -> NoReturn:
    raise TypeError(
        f"unsolvable: a {type(container).__name__} the harness hands over cannot be changed: it "
        "is what the harness saw and recorded (the conversation as the agent sent it, a run's "
        "counts); change a copy: json.loads(json.dumps(value))"
    )


class FrozenDict(dict[str, Any]):
    """A JSON object that cannot be changed: its members are frozen as it is made, so a
    `FrozenDict` is frozen all the way down."""

    __slots__ = ()

    def __init__(self, members: Mapping[str, Any] | None = None, /) -> None:
        super().__init__({key: freeze(value) for key, value in (members or {}).items()})

    def __setitem__(self, key: str, value: Any) -> NoReturn:
        _refuse(self)

    def __delitem__(self, key: str) -> NoReturn:
        _refuse(self)

    def __ior__(self, other: Any) -> NoReturn:  # type: ignore[misc]
        _refuse(self)

    def clear(self) -> NoReturn:
        _refuse(self)

    def pop(self, *args: Any) -> NoReturn:
        _refuse(self)

    def popitem(self) -> NoReturn:
        _refuse(self)

    def setdefault(self, *args: Any) -> NoReturn:
        _refuse(self)

    def update(self, *args: Any, **kwargs: Any) -> NoReturn:
        _refuse(self)

    def __reduce__(self) -> tuple[type[FrozenDict], tuple[dict[str, Any]]]:
        """Pickled and copied through its constructor: the default rebuilds it item by item."""
        return FrozenDict, (dict(self),)


class FrozenList(list[Any]):
    """A JSON array that cannot be changed: its items are frozen as it is made, so a
    `FrozenList` is frozen all the way down."""

    __slots__ = ()

    def __init__(self, items: Iterable[Any] = (), /) -> None:
        super().__init__([freeze(item) for item in items])

    def __setitem__(self, index: Any, value: Any) -> NoReturn:
        _refuse(self)

    def __delitem__(self, index: Any) -> NoReturn:
        _refuse(self)

    def __iadd__(self, other: Any) -> NoReturn:  # type: ignore[misc]
        _refuse(self)

    def __imul__(self, other: Any) -> NoReturn:  # type: ignore[misc]
        _refuse(self)

    def append(self, value: Any) -> NoReturn:
        _refuse(self)

    def extend(self, values: Any) -> NoReturn:
        _refuse(self)

    def insert(self, index: Any, value: Any) -> NoReturn:
        _refuse(self)

    def remove(self, value: Any) -> NoReturn:
        _refuse(self)

    def pop(self, *args: Any) -> NoReturn:
        _refuse(self)

    def clear(self) -> NoReturn:
        _refuse(self)

    def sort(self, *args: Any, **kwargs: Any) -> NoReturn:
        _refuse(self)

    def reverse(self) -> NoReturn:
        _refuse(self)

    def __reduce__(self) -> tuple[type[FrozenList], tuple[list[Any]]]:
        """Pickled and copied through its constructor: the default rebuilds it item by item."""
        return FrozenList, (list(self),)


KEPT = (str, FrozenDict, FrozenList)
"""What `freeze` keeps as it is: strings, and what is frozen already."""
ARRAYS = (list, tuple)


def freeze(value: Any) -> Any:
    """``value`` with its objects and arrays (tuples too) made ones that cannot be changed;
    strings, numbers and anything that is not JSON are immutable or the agent's own, and kept as
    they are, and so is a value frozen already."""
    if isinstance(value, KEPT):
        return value
    if isinstance(value, dict):
        return FrozenDict(value)
    if isinstance(value, ARRAYS):
        return FrozenList(value)
    return value
