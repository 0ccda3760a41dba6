"""Consumes plain data that claims to be a record (from a worker process, an xdist worker, a
``--json`` file), produces the `TerminationRecord` it describes, or a `ValueError` naming the
first field that is not what the record's types say; with a ``clean`` function, every string the
record holds passed through it as it is read (the harness's redaction of a worker's record).

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
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any, TypeVar

from unsolvable._errors import SchemaError
from unsolvable._redact import Clean, cleaned, kept

__all__ = ["build"]

T = TypeVar("T")


Reader = Callable[[object, Clean], Any]
"""Reads one value as a field of some type holds it, its strings passed through the `Clean`
function, or raises `_Wrong`."""


class _Wrong(Exception):
    """What is wrong with a value, and where it is: each container the error passes out through
    puts its key in front, so that a record that reads cleanly builds no path at all."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem
        self.inside: list[str] = []
        """The keys from the value out to the record, innermost first (``.steps``, ``[3]``)."""

    def at(self, key: str) -> _Wrong:
        self.inside.append(key)
        return self

    def said_of(self, root: str) -> str:
        return root + "".join(reversed(self.inside)) + self.problem


def build(cls: type[T], data: object, *, clean: Clean = kept) -> T:
    """The dataclass ``cls`` made of ``data``, every field checked; keys that are not fields
    (derived ones such as ``detection_lag``) are dropped, fields with defaults may be absent.
    Every string it holds, dict keys too, is passed through ``clean``, but the field names and
    enum members, which are the record's own words: they are checked, not cleaned."""
    try:
        return _reader(typing.cast(Hashable, cls))(data, clean)  # type: ignore[no-any-return]
    except _Wrong as wrong:
        raise ValueError(wrong.said_of(cls.__name__)) from None


@functools.cache
def _reader(hint: Any) -> Reader:
    """How a value of type ``hint`` is read, worked out once per type: a record's types are
    fixed, and a long trajectory reads the same few types thousands of times."""
    origin = typing.get_origin(hint)
    if hint is Any:
        return cleaned
    if origin in (typing.Union, types.UnionType):
        return _either(typing.get_args(hint))
    if origin is tuple:
        return _items(_reader(typing.get_args(hint)[0]))
    if origin is dict:
        return _mapping(_reader(typing.get_args(hint)[1]))
    if dataclasses.is_dataclass(hint):
        return _dataclass(hint)  # type: ignore[arg-type]
    if isinstance(hint, type) and issubclass(hint, Enum):
        return _member(hint)
    return _scalar(hint)


@dataclass(frozen=True, kw_only=True)
class _Field:
    """One field of a dataclass, as a record's data gives it."""

    name: str
    read: Reader
    required: bool
    """It has no default and cannot be null: data without it is refused."""
    null_when_absent: bool
    """It has no default but may be null: data without it gives null."""


@functools.cache
def _fields(cls: type) -> tuple[_Field, ...]:
    """``cls``'s fields, their types resolved once (an ``eval`` per field)."""
    hints = typing.get_type_hints(cls)
    return tuple(
        _Field(
            name=field.name,
            read=_reader(hints[field.name]),
            required=_is_required(field, hints[field.name]),
            null_when_absent=_has_no_default(field),
        )
        for field in dataclasses.fields(cls)
    )


def _dataclass(cls: type[T]) -> Reader:
    """Its fields are looked up when a value is read, not now, so that a dataclass may hold
    its own type."""

    def read(data: object, clean: Clean) -> T:
        if not isinstance(data, Mapping):
            raise _Wrong(f" is {_kind(data, clean)}, not an object")
        given = {}
        for field in _fields(typing.cast(Hashable, cls)):
            if field.name in data:
                try:
                    given[field.name] = field.read(data[field.name], clean)
                except _Wrong as wrong:
                    raise wrong.at(f".{field.name}") from None
            elif field.required:
                raise _Wrong(" is missing").at(f".{field.name}")
            elif field.null_when_absent:
                given[field.name] = None  # a field that may be null may be left out
        try:
            return cls(**given)
        except SchemaError:
            raise  # the whole record is of another version: no field of it is wrong
        except (TypeError, ValueError) as error:  # what a field's own check says (a code, say)
            raise _Wrong(f": {error}") from None

    return read


def _has_no_default(field: dataclasses.Field[Any]) -> bool:
    return field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING


def _is_required(field: dataclasses.Field[Any], hint: Any) -> bool:
    """A field with no default that cannot be null."""
    return _has_no_default(field) and type(None) not in typing.get_args(hint)


def _kind(value: object, clean: Clean) -> str:
    """What ``value`` is, as an error names it: cleaned before it is shown, as it would be kept."""
    return f"a {type(value).__name__} ({cleaned(value, clean)!r:.60})"


def _scalar(hint: Any) -> Reader:
    def read(value: object, clean: Clean) -> object:
        if not _is_scalar(hint, value):
            raise _Wrong(f" is {_kind(value, clean)}, not {_article(hint)}")
        return clean(value) if isinstance(value, str) else value

    return read


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


def _either(hints: tuple[Any, ...]) -> Reader:
    """A value of one of ``hints``; a field that may be null and is not says what the other
    type found wrong."""
    nullable = type(None) in hints
    rest = [_reader(hint) for hint in hints if hint is not type(None)]
    wanted = " or ".join(_article(hint) for hint in hints)

    def read(value: object, clean: Clean) -> object:
        if value is None and nullable:
            return None
        if len(rest) == 1:
            return rest[0](value, clean)
        for reader in rest:
            with contextlib.suppress(_Wrong):
                return reader(value, clean)
        raise _Wrong(f" is {_kind(value, clean)}, not {wanted}")

    return read


def _items(reader: Reader) -> Reader:
    def read(value: object, clean: Clean) -> tuple[Any, ...]:
        if not isinstance(value, list | tuple):
            raise _Wrong(f" is {_kind(value, clean)}, not a list")
        items = []
        for at, item in enumerate(value):
            try:
                items.append(reader(item, clean))
            except _Wrong as wrong:
                raise wrong.at(f"[{at}]") from None
        return tuple(items)

    return read


def _mapping(reader: Reader) -> Reader:
    def read(value: object, clean: Clean) -> dict[str, Any]:
        if not isinstance(value, Mapping) or not all(isinstance(key, str) for key in value):
            raise _Wrong(f" is {_kind(value, clean)}, not an object")
        read = {}
        for key, item in value.items():
            try:
                read[clean(key)] = reader(item, clean)
            except _Wrong as wrong:
                raise wrong.at(f".{key}") from None
        return read

    return read


def _member(hint: type[Enum]) -> Reader:
    def read(value: object, clean: Clean) -> Enum:
        try:
            return hint(value)
        except ValueError:
            known = ", ".join(str(member.value) for member in hint)
            raise _Wrong(f" is {_kind(value, clean)}, not one of {known}") from None

    return read
