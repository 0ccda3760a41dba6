"""The request body reader: what ``json.loads`` gives, for every body of a conversation, whatever
the next body does to it (grows it, edits it, starts another, breaks it), and its errors too."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from unsolvable.wire import _body
from unsolvable.wire._body import BodyReader, _opening

KEY = "messages"
names = st.text(max_size=6).filter(lambda name: name != KEY)
scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=8)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=6,
)
members = st.dictionaries(names, values, max_size=3)
layouts = st.sampled_from([{}, {"separators": (",", ":")}, {"indent": 1}, {"indent": "\t"}])
edits = st.sampled_from(["grow", "same", "edit", "shrink", "head", "tail", "break", "other"])


def _text(head: dict[str, Any], items: list[Any], tail: dict[str, Any], layout: Any) -> bytes:
    body = {**head, KEY: items, **{k: v for k, v in tail.items() if k not in head}}
    return json.dumps(body, **layout).encode()


def _loaded(read: Any, body: bytes) -> str:
    """What reading ``body`` gives, its members' order included, or the error it raises."""
    try:
        return repr(read(body))
    except ValueError as error:
        return repr((type(error), str(error)))


@given(
    members,
    members,
    layouts,
    st.lists(st.tuples(edits, st.lists(values, max_size=3), members), max_size=8),
)
def test_every_body_of_a_conversation_reads_as_json_loads_reads_it(
    head: dict[str, Any],
    tail: dict[str, Any],
    layout: Any,
    turns: list[tuple[str, list[Any], dict[str, Any]]],
) -> None:
    reader, items = BodyReader(KEY), []
    for edit, added, other in turns:
        if edit == "grow":
            items = [*items, *added]
        elif edit == "edit" and items:
            items = [*added, *items[1:]]
        elif edit == "shrink":
            items = items[: len(items) // 2]
        elif edit == "head":
            head = other
        elif edit == "tail":
            tail = other
        body = _text(head, items, tail, layout)
        if edit == "break":
            body = body[: len(body) // 2] + body[len(body) // 2 + 1 :]
        elif edit == "other":
            body = json.dumps(added).encode()
        assert _loaded(reader.read, body) == _loaded(json.loads, body)


@pytest.mark.parametrize(
    "layout", [{}, {"separators": (",", ":")}, {"indent": 1}, {"indent": "\t"}]
)
def test_a_body_that_continues_the_last_reads_only_its_new_items(layout: Any) -> None:
    reader = BodyReader(KEY)
    first = reader.read(_text({"model": "m"}, [{"n": 1}], {"stream": False}, layout))
    second = reader.read(_text({"model": "m"}, [{"n": 1}, {"n": 2}], {"stream": True}, layout))
    assert second == {"model": "m", "messages": [{"n": 1}, {"n": 2}], "stream": True}
    assert second[KEY][0] is first[KEY][0], "the item both share is taken from the first"
    assert second[KEY] is not first[KEY]
    first[KEY].append("changed by a caller")
    assert reader.read(b'{"model": "m", "messages": [{"n": 1}, {"n": 2}]}')[KEY] == [
        {"n": 1},
        {"n": 2},
    ]


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (b'{"messages": [1]}', b'{"messages": [12]}'),  # the shared text ends inside a number
        (b'{"messages": [1]}', b'{"messages": [1 2]}'),
        (b'{"messages": []}', b'{"messages": [ ,1]}'),
        (b'{"messages": [1]}', b'{"messages": [1]} {}'),
        (b'{"messages": [1]}', b'{"messages": [1], "messages": [2]}'),
        (b'{"a": 1, "messages": [1]}', b'{"a": 1, "messages": [1], "a": 2}'),
        (b'{"messages": [1]}', b'{"messages": [1],}'),
        (b'{"messages": [1]}', b'{"messages": [1], 2: 3}'),
        (b'{"messages": [1]}', b'{"messages": [1] "b": 3}'),
    ],
)
def test_a_body_that_only_looks_like_a_continuation_reads_as_json_loads_reads_it(
    before: bytes, after: bytes
) -> None:
    reader = BodyReader(KEY)
    reader.read(before)
    assert _loaded(reader.read, after) == _loaded(json.loads, after)


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"[1]",
        b'{"messages": 3}',
        b'{"other": 1}',
        b'{"a": 1, "a": 2, "messages": []}',
        b'{"a" 1, "messages": []}',
        b'{1: 2, "messages": []}',
        b'\xef\xbb\xbf{"messages": []}',
        b'{"messages": ["\xed\xa0\x80"]}',
        b'{"s": "a\\"b\\\\", "n": -0.5e-3, "t": true, "z": null, "messages": [1], "x": 1}',
        b' {\n\t"model" :\r "m" ,\n "messages" : [ ] }',
        b'{"n": NaN, "messages": []}',
        b'{"n": 01, "messages": []}',
        b'{"s": "raw\x01control", "messages": []}',
        b'{"s": "\\q", "messages": []}',
        b'{"messag\\u0065s": 3, "messages": [1]}',
        b'{"a": 1, "a": 2, "messages": [], "a": 3}',
        b'{"a": {"messages": []}, "messages": [2]}',
        b'{"a": {"b": 1, "messages": []}, "messages": [2]}',
        b'{"a": ["messages", 1], "messages": [2]}',
        b'{"a": "x\\"messages\\": [1]", "messages": [2]}',
        b'{"a": "x, "messages": [2]}',
        b'{"a": 1,, "messages": [2]}',
        b'{, "messages": [2]}',
        b'{ ,"messages": [2]}',
        b'{"a": 1, "messages" [2]}',
        b'{"a": 1, "messages"',
        b'{"a": {"b": [1, {"c": 2}]}, "messages": [2], "z": {"messages": 3}}',
    ],
)
def test_a_first_body_reads_as_json_loads_reads_it(body: bytes) -> None:
    """Bodies it does not follow, and the members before a conversation that it does."""
    assert _loaded(BodyReader(KEY).read, body) == _loaded(json.loads, body)


@pytest.mark.parametrize(
    ("key", "opening"),
    [
        ("messages", b'{"model":"gpt-x","stream":false,"messages":['),  # openai, Chat Completions
        ("input", b'{"model":"gpt-x","stream":true,"input":['),  # openai, Responses
        ("messages", b'{"max_tokens":256,"messages":['),  # anthropic
    ],
)
def test_the_sdks_openings_are_read_in_one_parse(key: str, opening: bytes) -> None:
    """The members before the conversation are found where its key first appears, and its
    value where they end."""
    text = opening.decode() + "]}"
    found = _opening(text, json.dumps(key))
    assert found is not None
    head, at = found
    assert dict(head) == {k: v for k, v in json.loads(text).items() if k != key}
    assert text[at] == "["


def test_the_members_around_the_conversation_are_parsed_once_and_shared() -> None:
    """Another conversation with the same tools gets the same parsed tools: the wire never
    changes them."""
    body = b'{"model": "m", "messages": [%d], "tools": [{"name": "search"}]}'
    first, second = (BodyReader(KEY).read(body % n) for n in (1, 2))
    assert first["tools"] == [{"name": "search"}]
    assert second["tools"] is first["tools"]
    assert second["messages"] == [2]


def test_the_text_around_the_conversation_is_known_by_comparing_it_to_the_last(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The members around the conversation are the same text call after call: a body beginning
    or ending with the text read last takes its members without hashing it for the memo; any
    other is parsed."""
    parsed: list[str] = []
    real = _body._parsed
    monkeypatch.setattr(_body, "_parsed", lambda text: parsed.append(text) or real(text))
    monkeypatch.setattr(_body, "_last_members", ())  # whatever another test read last
    tail = b', "tools": [{"name": "search"}], "stream": false}'
    reader = BodyReader(KEY)
    for n in (1, 2, 3):
        body = b'{"model": "m", "messages": [%d]%s' % (n, tail)
        assert reader.read(body)["tools"] == [{"name": "search"}]
    read = BodyReader(KEY).read(b'{"model": "m", "messages": [4]%s' % tail)
    assert (read["model"], read["messages"]) == ("m", [4])
    assert parsed == ['{"model": "m"}', '{ "tools": [{"name": "search"}], "stream": false}']
    assert BodyReader(KEY).read(b'{"model": "n", "messages": [5]}')["model"] == "n"
    assert BodyReader(KEY).read(b'{"messages": [5], "stream": true}')["stream"] is True
    with pytest.raises(json.JSONDecodeError):
        BodyReader(KEY).read(b'{"messages": [6],')
