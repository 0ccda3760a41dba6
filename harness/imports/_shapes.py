"""Consumes a value a format reader found in a trace and where it found it, produces the value in
the shape the reader needs, or `Malformed` naming the field and what it holds: a trace is read
from a user's file, so a wrong shape is said where it is met, not hit deeper in as a Python error.
Scenario files (`unsolvable.imports._schema`) name what a field holds in the same words.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = [
    "Malformed",
    "NotThisFormat",
    "identifier",
    "kind_of",
    "listed",
    "obj",
    "string",
    "type_word",
]

_WORDS = {
    str: "a string", int: "a whole number", float: "a number", bool: "a true/false",
    list: "a list", dict: "an object", type(None): "null",
}  # fmt: skip
"""JSON's types as a person writing a trace or a scenario file names them."""
_TOML_WORDS = {**_WORDS, dict: "a table/object"}
"""The same where the file may be TOML, which calls an object a table (a scenario file)."""


class Malformed(Exception):
    """A field of a trace in a shape its format does not give it; `read_trace` names the format.

    Not an `UnsolvableError`: `read_trace` turns it, as it turns the Python errors a reader
    meets, into the `ImportFailed` that names the file and the format."""


class NotThisFormat(Exception):
    """A file that is no trace of the format asked for at all: ``what`` it is not, and the
    ``fix``. `read_trace` says it with the file and the format, as it says `Malformed`."""

    def __init__(self, what: str, fix: str) -> None:
        super().__init__(f"not {what}: {fix}")
        self.what, self.fix = what, fix


def type_word(kind: type, *, toml: bool = False) -> str:
    """``kind`` as the file's format calls it: ``a whole number``; ``toml`` for a file that may
    be TOML (whose dates, which JSON has not, keep their Python name: ``a date``)."""
    return (_TOML_WORDS if toml else _WORDS).get(kind, f"a {kind.__name__}")


def kind_of(value: object, *, toml: bool = False) -> str:
    """What ``value`` is, as the file's format calls it (`type_word`), and its start:
    ``a string ('x')``."""
    return f"{type_word(type(value), toml=toml)} ({value!r:.60})"


def obj(value: Any, where: str) -> Mapping[str, Any]:
    """``value`` when it is an object; an empty one when the field is absent or null, which
    every format allows for the fields its readers look into."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise Malformed(f"{where} is {kind_of(value)}, not an object")
    return value


def listed(value: Any, where: str) -> list[Any]:
    """``value`` when it is a list; an empty one when the field is absent or null."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise Malformed(f"{where} is {kind_of(value)}, not a list")
    return value


def identifier(value: Any, where: str) -> str | None:
    """An id that pairs a tool call with its answer: a string, or ``None`` when absent."""
    if value is not None and not isinstance(value, str):
        raise Malformed(f"{where} is {kind_of(value)}, not a string (the id of a tool call)")
    return value


def string(value: Any, where: str) -> str:
    """A field the format requires, a string that is not empty (a tool's name)."""
    if not isinstance(value, str) or not value:
        held = "is missing" if value is None else f"is {kind_of(value)}, not a name"
        raise Malformed(f"{where} {held}")
    return value
