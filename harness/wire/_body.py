"""Consumes the JSON bodies of one conversation's requests, produces what ``json.loads`` gives for
each and how many of its conversation's items repeat the previous body's, parsing only what a
body adds.

An agent re-sends its whole conversation with every call, so parsing every body whole made a
request's cost grow with the conversation's length. A body that begins with the previous body's
text up to the end of its conversation's last item holds, up to there, the same members and
items: JSON is read left to right, and the same text is the same value. Those are taken from the
previous reading, and only what follows is parsed. Texts are compared, never parsed values (which
would take ``1``, ``1.0`` and ``true`` for one another). Anything else — another conversation, an
edited one, a body this reader does not follow — is parsed whole by ``json.loads``, whose errors
are the ones the caller sees. The conversation's items are frozen (`unsolvable._frozen`), since
they are handed on and read again by the next request.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, NamedTuple

from unsolvable._frozen import freeze
from unsolvable._types import JSON
from unsolvable.wire._exchange import reading_json

__all__ = ["BodyReader", "Reading"]

SPACES = " \t\n\r"
"""JSON's whitespace."""


class Reading(NamedTuple):
    """One body, read."""

    body: Any
    """What ``json.loads`` gives, the conversation's items frozen."""
    repeated: int
    """How many leading items of the conversation are the previous body's, as text."""


class _Unread(Exception):
    """The body is not one this reader follows: ``json.loads`` reads it instead."""


@dataclass(frozen=True, kw_only=True)
class _Read:
    """What a reading keeps for the next one."""

    prefix: str
    """The body's text up to the end of its conversation's last item (or its ``[``)."""
    head: tuple[tuple[str, Any], ...]
    """The members before the conversation, in order, frozen."""
    items: tuple[Any, ...]


class BodyReader:
    """Reads the request bodies of one conversation whose member ``key`` (an array) grows call
    by call. One reader per conversation; it is not safe to share between threads."""

    def __init__(self, key: str) -> None:
        self.key = key
        self._decode = json.JSONDecoder().raw_decode
        """One JSON value at an index, with ``json.loads``'s own settings: ``(value, end)``."""
        self._last: _Read | None = None

    def read(self, body: bytes) -> Reading:
        """``json.loads(body)``, raising what it raises, and `ValueError` for a body nested too
        deeply to read or freeze (`reading_json`)."""
        with reading_json():
            try:
                return self._read(body)
            except (_Unread, ValueError, IndexError):  # a JSON or UTF-8 error is a ValueError
                self._last = None
                data = json.loads(body)
                if isinstance(data, dict) and isinstance(data.get(self.key), list):
                    data[self.key] = [freeze(item) for item in data[self.key]]
                return Reading(body=data, repeated=0)

    def _read(self, body: bytes) -> Reading:
        text = body.decode()
        last = self._last
        if last is not None and text.startswith(last.prefix):
            head, items, at = last.head, list(last.items), len(last.prefix)
        else:
            head, at = self._head(text)
            items = []
        repeated = len(items)
        end, at = self._items(text, at, items)
        tail = self._tail(text, at)
        if any(name == self.key for name, _ in tail):  # a second conversation would be the one
            raise _Unread
        data: JSON = {}
        for name, value in (*head, (self.key, items), *tail):
            data[name] = value  # a name given twice keeps its place and its last value, as in json
        self._last = _Read(prefix=text[:end], head=head, items=tuple(items))
        return Reading(body=data, repeated=repeated)

    def _member(self, text: str, at: int) -> tuple[str, int]:
        """The member name at ``at`` (whitespace before it skipped) and the index of its
        value."""
        at = _skip(text, at)
        if text[at] != '"':
            raise _Unread
        name, at = self._decode(text, at)
        at = _skip(text, at)
        if text[at] != ":":
            raise _Unread
        return name, _skip(text, at + 1)

    def _head(self, text: str) -> tuple[tuple[tuple[str, Any], ...], int]:
        """The members before the conversation, and the index just past its ``[``."""
        at = _skip(text, 0)
        if text[at] != "{":
            raise _Unread
        members: list[tuple[str, Any]] = []
        at += 1
        while True:
            name, at = self._member(text, at)
            if name == self.key:
                if text[at] != "[":
                    raise _Unread
                return tuple(members), at + 1
            value, at = self._decode(text, at)
            members.append((name, freeze(value)))  # read again by the next body that repeats it
            at = _skip(text, at)
            if text[at] != ",":  # the object ends without the conversation
                raise _Unread
            at += 1

    def _items(self, text: str, at: int, items: list[Any]) -> tuple[int, int]:
        """Appends the items that follow ``items`` in the array from ``at`` (just past the last
        of them, or past the ``[`` when there are none); returns the index past its last item
        and the index past its ``]``."""
        end = at
        at = _skip(text, at)
        while text[at] != "]":
            if items:
                if text[at] != ",":
                    raise _Unread
                at = _skip(text, at + 1)
            item, end = self._decode(text, at)
            items.append(freeze(item))
            at = _skip(text, end)
        return end, at + 1

    def _tail(self, text: str, at: int) -> list[tuple[str, Any]]:
        """The members after the conversation, from ``at`` (just past its ``]``) to the body's
        end."""
        members = []
        at = _skip(text, at)
        while text[at] == ",":
            name, at = self._member(text, at + 1)
            value, at = self._decode(text, at)
            members.append((name, value))
            at = _skip(text, at)
        if text[at] != "}" or _skip(text, at + 1) != len(text):
            raise _Unread
        return members


def _skip(text: str, at: int) -> int:
    while text[at : at + 1] and text[at] in SPACES:
        at += 1
    return at
