"""Consumes the fields of one scenario file's data, produces each one checked against the kind it
must be, or a `ScenarioFileError` naming the file, the field and the fix."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from unsolvable._errors import docs_page
from unsolvable.imports._scenario_file import ScenarioFileError
from unsolvable.imports._shapes import kind_of, type_word

__all__ = ["DOCS", "FieldReader"]

DOCS = f"see {docs_page('incidents', 'scenario-files')}"


class FieldReader:
    """Reads fields of one file, each error naming the file, the field and the fix."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, where: str, problem: str, fix: str) -> ScenarioFileError:
        return ScenarioFileError(
            f"scenario file {self.source!r}: field {where!r} {problem}; {fix} ({DOCS})"
        )

    def get(
        self,
        data: Mapping[str, Any],
        key: str,
        kind: type | tuple[type, ...],
        where: str,
        fix: str,
        default: Any = ...,
    ) -> Any:
        if key not in data:
            if default is ...:
                raise self.fail(where, "is missing", fix)
            return default
        value = data[key]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            wanted = " or ".join(type_word(k, toml=True) for k in kinds)
            raise self.fail(where, f"is {kind_of(value, toml=True)}, not {wanted}", fix)
        return value

    def items(
        self, data: Mapping[str, Any], key: str, where: str, fix: str, default: Any = ...
    ) -> list[Any]:
        return list(self.get(data, key, list, where, fix, default))

    def table(
        self, value: Any, where: str, fix: str, keys: Collection[str] | None = None
    ) -> Mapping[str, Any]:
        """``value`` as a table; with ``keys``, one holding any other key is refused, since a
        misspelt optional field would be left out without a word and its default used."""
        if not isinstance(value, Mapping):
            wanted = type_word(dict, toml=True)
            raise self.fail(where, f"is {kind_of(value, toml=True)}, not {wanted}", fix)
        if keys is not None and (unknown := sorted(set(value) - set(keys))):
            raise self.fail(
                f"{where}.{unknown[0]}", f"is not a field of {where}", f"use only {sorted(keys)}"
            )
        return value
