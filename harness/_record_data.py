"""Consumes plain data that claims to be a record (from a worker process, an xdist worker, a
``--json`` file), produces the `TerminationRecord` it describes, or a `ValueError` naming the
first field that is not what the record's types say.

Nothing that crosses a process boundary or comes from a file is trusted: a record whose step
count is a string would pass here and break the metrics, the reports or the gate later, far from
its cause. Each field is checked against its dataclass annotation, so the check follows the
record's shape as it changes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import math
import types
import typing
from collections.abc import Hashable, Mapping
from enum import Enum
from typing import Any, TypeVar

__all__ = ["build"]

T = TypeVar("T")


@functools.cache
def _hints(cls: Hashable) -> dict[str, Any]:
    """A dataclass's field types, resolved once per class: its annotations are fixed, and
    resolving them (an ``eval`` per field) for each step of a long trajectory was most of the
    cost of reading a record back."""
    return typing.get_type_hints(cls)


def build(cls: type[T], data: object, where: str = "") -> T:
    """The dataclass ``cls`` made of ``data``, every field checked; keys that are not fields
    (derived ones such as ``detection_lag``) are dropped, fields with defaults may be absent."""
    where = where or cls.__name__
    if not isinstance(data, Mapping):
        raise ValueError(f"{where} is {_kind(data)}, not an object")
    hints, given = _hints(typing.cast(Hashable, cls)), {}
    for field in dataclasses.fields(cls):  # type: ignore[arg-type]
        if field.name in data:
            given[field.name] = _value(hints[field.name], data[field.name], f"{where}.{field.name}")
        elif _is_required(field, hints[field.name]):
            raise ValueError(f"{where}.{field.name} is missing")
        elif _has_no_default(field):
            given[field.name] = None  # a field that may be null may be left out
    try:
        return cls(**given)
    except (TypeError, ValueError) as error:  # what a field's own check says (a code, say)
        raise ValueError(f"{where}: {error}") from None


def _has_no_default(field: dataclasses.Field[Any]) -> bool:
    return field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING


def _is_required(field: dataclasses.Field[Any], hint: Any) -> bool:
    """A field with no default that cannot be null."""
    return _has_no_default(field) and type(None) not in typing.get_args(hint)


def _kind(value: object) -> str:
    return f"a {type(value).__name__} ({value!r:.60})"


def _value(hint: Any, value: object, where: str) -> Any:
    """``value`` as a field of type ``hint`` holds it; a `ValueError` naming ``where`` if it is
    not one."""
    origin = typing.get_origin(hint)
    if hint is Any:
        return value
    if origin in (typing.Union, types.UnionType):
        return _either(typing.get_args(hint), value, where)
    if origin is tuple:
        return _items(typing.get_args(hint)[0], value, where)
    if origin is dict:
        return _mapping(typing.get_args(hint)[1], value, where)
    if dataclasses.is_dataclass(hint):
        return build(hint, value, where)  # type: ignore[arg-type]
    if isinstance(hint, type) and issubclass(hint, Enum):
        return _member(hint, value, where)
    if _is_scalar(hint, value):
        return value
    raise ValueError(f"{where} is {_kind(value)}, not {_article(hint)}")


def _is_scalar(hint: object, value: object) -> bool:
    if hint is type(None):
        return value is None
    if hint is bool:
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if hint is int:
        return isinstance(value, int)
    if hint is float:
        return isinstance(value, int | float) and math.isfinite(value)
    return hint is str and isinstance(value, str)


def _article(hint: object) -> str:
    names: dict[object, str] = {
        type(None): "null",
        bool: "a boolean",
        int: "a whole number",
        float: "a finite number",
        str: "a string",
    }
    return names.get(hint, str(hint))


def _either(hints: tuple[Any, ...], value: object, where: str) -> Any:
    """A value of one of ``hints``; a field that may be null and is not says what the other
    type found wrong."""
    if value is None and type(None) in hints:
        return None
    rest = [hint for hint in hints if hint is not type(None)]
    if len(rest) == 1:
        return _value(rest[0], value, where)
    for hint in rest:
        with contextlib.suppress(ValueError):
            return _value(hint, value, where)
    wanted = " or ".join(_article(hint) for hint in hints)
    raise ValueError(f"{where} is {_kind(value)}, not {wanted}")


def _items(hint: Any, value: object, where: str) -> tuple[Any, ...]:
    if not isinstance(value, list | tuple):
        raise ValueError(f"{where} is {_kind(value)}, not a list")
    return tuple(_value(hint, item, f"{where}[{i}]") for i, item in enumerate(value))


def _mapping(hint: Any, value: object, where: str) -> dict[str, Any]:
    if not isinstance(value, Mapping) or not all(isinstance(key, str) for key in value):
        raise ValueError(f"{where} is {_kind(value)}, not an object")
    return {key: _value(hint, item, f"{where}.{key}") for key, item in value.items()}


def _member(hint: type[Enum], value: object, where: str) -> Enum:
    try:
        return hint(value)
    except ValueError:
        known = ", ".join(str(member.value) for member in hint)
        raise ValueError(f"{where} is {_kind(value)}, not one of {known}") from None
