"""The body reader gives what ``json.loads`` gives for every body of a conversation — grown,
edited, restarted, spaced, broken — and says how many items repeat the previous body's text."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from unsolvable._frozen import FrozenDict
from unsolvable.wire._body import BodyReader

TEXT = st.text(max_size=6)
SCALARS = (
    st.none() | st.booleans() | st.integers(-20, 20) | st.sampled_from([1.0, 0.5, -0.0]) | TEXT
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=5,
)
ITEMS = st.dictionaries(st.sampled_from(["role", "content", "n"]), VALUES, max_size=3)
BEFORE = st.dictionaries(st.sampled_from(["model", "max_tokens"]), VALUES)
AFTER = st.dictionaries(st.sampled_from(["tools", "stream"]), VALUES)
"""Members before and after the conversation, as the SDKs write them."""
SEPARATORS = st.sampled_from([(", ", ": "), (",", ":"), (" ,  ", " : ")])
STEPS = st.lists(
    st.tuples(
        st.sampled_from(["grow", "grow", "grow", "edit", "restart", "members", "break"]),
        st.lists(ITEMS, max_size=3),
        AFTER,
        SEPARATORS,
    ),
    max_size=8,
)


def _body(before: dict[str, Any], items: list[Any], after: dict[str, Any], spacing: Any) -> bytes:
    body = {**before, "messages": items, **after}
    return json.dumps(body, separators=spacing).encode()


@given(STEPS, BEFORE, AFTER)
def test_every_body_reads_as_json_loads_reads_it(
    steps: list[tuple[str, list[Any], dict[str, Any], Any]],
    before: dict[str, Any],
    after: dict[str, Any],
) -> None:
    """And ``repeated`` is the previous body's item count exactly when this body's text begins
    with the previous one's up to its last item; else none."""
    reader = BodyReader("messages")
    items: list[Any] = []
    last: tuple[list[Any], Any] | None = None  # the items and spacing of the last body read
    for kind, more, members, spacing in steps:
        if kind == "grow":
            items = [*items, *more]
        elif kind == "edit" and items:
            items = [{**items[0], "content": ["edited", items[0].get("content")]}, *items[1:]]
        elif kind == "restart":
            items = more
        elif kind == "members":
            after = members
        body = _body(before, items, after, spacing)
        if kind == "break":
            body = body[: len(body) // 2]
        repeats = last is not None and last[1] == spacing and items[: len(last[0])] == last[0]
        expected = len(last[0]) if last is not None and repeats else 0
        read = _check(reader, body, expected if kind != "break" else None)
        last = (items, spacing) if read else None


def _check(reader: BodyReader, body: bytes, repeated: int | None) -> bool:
    """Whether ``body`` was read (it is JSON); its reading checked against ``json.loads``."""
    try:
        expected = json.loads(body)
    except ValueError as error:
        with pytest.raises(type(error)):
            reader.read(body)
        return False
    reading = reader.read(body)
    assert reading.body == expected and list(reading.body) == list(expected)
    assert all(isinstance(item, FrozenDict) for item in reading.body["messages"])
    if repeated is not None:
        assert reading.repeated == repeated
    return True


def test_a_grown_body_repeats_every_item_of_the_one_before() -> None:
    reader, items = BodyReader("messages"), [{"role": "user", "content": "go"}]
    assert reader.read(_body({"model": "m"}, items, {}, (",", ":"))).repeated == 0
    for step in range(1, 4):
        items.append({"role": "assistant", "content": f"step {step}"})
        reading = reader.read(_body({"model": "m"}, items, {"tools": []}, (",", ":")))
        assert reading.repeated == step and reading.body["messages"] == items


@pytest.mark.parametrize(
    ("first", "then"), [("1", "true"), ("1", "1.0"), ("1", "12"), ("1", "1e2")]
)
def test_a_number_written_otherwise_is_another_item_however_python_compares_it(
    first: str, then: str
) -> None:
    """``1``, ``1.0`` and ``true`` are equal in Python and three texts in JSON: the reader compares
    texts, so an item written otherwise is read again, never taken for the one before."""
    reader = BodyReader("messages")
    reader.read(f'{{"messages": [{{"n": {first}}}]}}'.encode())
    body = f'{{"messages": [{{"n": {then}}}, {{"n": 2}}]}}'.encode()
    reading = reader.read(body)
    assert reading.repeated == 0 and reading.body == json.loads(body)
    assert [type(item["n"]) for item in reading.body["messages"]] == [
        type(json.loads(then)),
        int,
    ]


def test_a_body_without_the_conversation_or_not_an_object_reads_as_json_loads() -> None:
    reader = BodyReader("messages")
    for body in (b'{"model": "m"}', b"[1, 2]", b'{"messages": "hi"}', b' {"messages": [] } '):
        assert reader.read(body).body == json.loads(body)
    with pytest.raises(json.JSONDecodeError):
        reader.read(b'{"messages": [], }')


@pytest.mark.parametrize(
    "body",
    [
        b'{"model": "a", "messages": [], "model": "b"}',
        b'{"messages": [{"n": 1}], "stream": true, "messages": [{"n": 2}]}',
        b'{"model": "a", "model": "b", "messages": [{"n": 1}]}',
    ],
)
def test_a_name_given_twice_keeps_its_first_place_and_its_last_value(body: bytes) -> None:
    reading = BodyReader("messages").read(body)
    assert reading.body == json.loads(body) and list(reading.body) == list(json.loads(body))


def test_a_conversation_given_twice_is_the_second_one_and_repeats_nothing_after() -> None:
    reader = BodyReader("messages")
    reader.read(b'{"messages": [{"n": 1}], "messages": [{"n": 2}]}')
    reading = reader.read(b'{"messages": [{"n": 1}, {"n": 3}]}')
    assert reading.repeated == 0 and reading.body == {"messages": [{"n": 1}, {"n": 3}]}
