"""Hypothesis strategies more than one test module draws from."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st


def json_values(*, max_leaves: int) -> st.SearchStrategy[Any]:
    """JSON values of every kind but floats, nested up to ``max_leaves`` scalars: arguments and
    tool answers as scenarios write them."""
    return st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
        max_leaves=max_leaves,
    )
