"""The two spellings of a JSON value: sorted keys, and what is not JSON written as text or
refused."""

from __future__ import annotations

import pytest

from unsolvable._json import canonical_json, sorted_json


def test_keys_are_sorted_at_every_depth() -> None:
    value = {"b": [{"d": 1, "c": True}], "a": None}
    assert canonical_json(value) == sorted_json(value) == '{"a": null, "b": [{"c": true, "d": 1}]}'


def test_what_is_not_json_is_written_as_str_by_one_and_refused_by_the_other() -> None:
    class Odd:
        def __str__(self) -> str:
            return "odd"

    assert canonical_json({"b": Odd(), "a": (1, 2)}) == '{"a": [1, 2], "b": "odd"}'
    with pytest.raises(TypeError, match="not JSON serializable"):
        sorted_json({"a": Odd()})
