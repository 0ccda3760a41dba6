"""The kept encoders write what ``json.dumps`` writes, for every JSON value and beyond it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from unsolvable._json import canonical_json, sorted_json

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text()
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(values)
def test_canonical_json_is_json_dumps_with_sorted_keys_and_str_default(value: Any) -> None:
    assert canonical_json(value) == json.dumps(value, sort_keys=True, default=str)


@given(values)
def test_sorted_json_is_json_dumps_with_sorted_keys(value: Any) -> None:
    assert sorted_json(value) == json.dumps(value, sort_keys=True)


def test_what_is_not_json_is_written_as_str_by_one_and_refused_by_the_other() -> None:
    class Odd:
        def __str__(self) -> str:
            return "odd"

    assert canonical_json({"b": Odd(), "a": (1, 2)}) == '{"a": [1, 2], "b": "odd"}'
    with pytest.raises(TypeError, match="not JSON serializable"):
        sorted_json({"a": Odd()})
