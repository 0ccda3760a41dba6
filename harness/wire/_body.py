"""Consumes the JSON bodies of one conversation's model requests, produces what ``json.loads``
gives for each, parsing only what a body adds to the one before it.

An agent re-sends its whole conversation with every call, so by call 50 parsing the request was
the largest part of the wire's time. A body that begins with the previous body's text
up to the end of its conversation's last item holds, up to there, the same members and items:
JSON is read left to right, and the next character (a ``,`` or the ``]``) shows that the last
item ended there. Those are taken from the previous reading, and only the new items and the
members after the conversation are parsed. Anything else (another conversation, an edited one,
a body this reader does not follow) is parsed whole by ``json.loads``, whose errors are the ones
the agent sees.

The members around the conversation (the model, the tools, the system prompt) are the same text
call after call and conversation after conversation, so each text's members are parsed once per
process (`MEMBERS_MEMO` texts kept) and shared, as the items are: the wire reads them and never
changes them. A first body's members before the conversation are found where the key's text
first appears and parsed in one call rather than read one by one (at a conversation's
first call, reading member by member cost as much as a whole ``json.loads``, and a regular
expression over them a third of one).
"""

from __future__ import annotations

import functools
import json
import json.scanner
import re
from typing import Any

__all__ = ["BodyReader"]

MEMBERS_MEMO = 16
"""Distinct texts of members kept parsed: a suite's agents send a few each, and a coding agent's
tools and system prompt can be a hundred kilobytes, so a text that changes every call must not
keep many."""
_SPACES = " \t\n\r"
"""JSON's whitespace."""

_scan = json.scanner.make_scanner(json.JSONDecoder())  # type: ignore[arg-type]  # as json does
"""One JSON value at an index, with ``json.loads``'s own settings: ``(value, end)``; raises
`StopIteration` where no value begins. The scanner itself, not ``raw_decode`` around it: a
first body reads three values, and the wrapper's frame was a tenth of a read."""
_space = re.compile(r"[ \t\n\r]*").match
"""JSON's whitespace, as ``json.decoder`` skips it."""


def _skip(text: str, at: int) -> int:
    if text[at : at + 1] not in _SPACES:  # SDKs send no whitespace: no match to make
        return at
    match = _space(text, at)
    assert match is not None  # a pattern that matches the empty string always matches
    return match.end()


def _opening(text: str, quoted: str) -> tuple[tuple[tuple[str, Any], ...], int] | None:
    """A body's members before member ``key`` and the index of its value, read where the key's
    text first appears, or ``None``. There, when the text before it closed with a ``}`` parses,
    the key is a member of the body itself: one nested deeper would leave a bracket open, and
    inside a string the key's closing quote would be escaped. ``quoted``: the key as JSON."""
    at = text.find(quoted)
    if at < 0:
        return None
    before = text[:at].rstrip(_SPACES)
    colon = at + len(quoted)
    if text[colon : colon + 1] in _SPACES:  # as `_skip` begins: SDKs send no whitespace
        colon = _skip(text, colon)
    if text[colon : colon + 1] != ":":
        return None
    value = colon + 1
    if text[value : value + 1] in _SPACES:
        value = _skip(text, value)
    if before.lstrip(_SPACES) == "{":
        return (), value
    if not before.endswith(","):
        return None
    try:
        members = _members(before[:-1] + "}")
    except ValueError:
        return None
    # A comma with no member before it (``{,``) parses as ``{}`` here, where json refuses the
    # body: the reading member by member refuses it as json does.
    return (members, value) if members else None


_Members = tuple[tuple[str, Any], ...]
_last_members: tuple[tuple[str, _Members], ...] = ()
"""The texts `_members` read last (a body's members before its conversation and after it) and
their members, newest first: a suite's bodies carry the same two texts call after call and
conversation after conversation, so these are known by comparing them, rather than by hashing
them for the memo. Replaced whole, so threads only ever see a whole one."""


def _members(text: str) -> _Members:
    """The members of the object ``text`` (shared: never change them), parsed once per process
    (`MEMBERS_MEMO` texts kept)."""
    global _last_members
    for known, members in _last_members:
        if text == known:
            return members
    members = _parsed(text)
    _last_members = ((text, members), *_last_members[:1])
    return members


@functools.lru_cache(maxsize=MEMBERS_MEMO)
def _parsed(text: str) -> _Members:
    return tuple(json.loads(text).items())


class _Unread(Exception):
    """The body is not one this reader follows: ``json.loads`` reads it instead."""


_Reading = tuple[str, tuple[tuple[str, Any], ...], tuple[Any, ...]]
"""What the previous body's reading keeps for the next one: its text up to the end of its
conversation's last item (or its ``[``), the members before the conversation in order, and the
conversation's items, shared with the next reading and never changed by the wire, which builds
its own messages from them. A plain tuple, made every call; never changed, so threads that
share a reader only ever see a whole one."""


class BodyReader:
    """Reads request bodies whose member ``key`` is a conversation that grows call by call."""

    def __init__(self, key: str) -> None:
        self.key = key
        self._quoted = json.dumps(key)
        self._last: _Reading | None = None

    def read(self, body: bytes) -> Any:
        """``json.loads(body)``, raising what it raises."""
        last = self._last
        try:
            text = body.decode()
            if last is not None and text.startswith(last[0]):
                head, items = last[1], list(last[2])
                end, at = _more(text, len(last[0]), items)
            else:
                head, at = _opening(text, self._quoted) or self._head(text)
                items, at = _scan(text, at)
                if type(items) is not list:
                    raise _Unread
                end = at - 1  # the ``]``; whitespace before it belongs to no item
                while text[end - 1] in _SPACES:
                    end -= 1
            body_read = dict(head)
            body_read[self.key] = items
            if text[at : at + 1] in _SPACES:
                at = _skip(text, at)
            # a name given twice keeps its place, as in json
            body_read.update(_tail(text, at))
        except (_Unread, ValueError, IndexError, StopIteration):
            self._last = None
            return json.loads(body)
        self._last = (text[:end], head, tuple(items))
        return body_read

    def _head(self, text: str) -> tuple[tuple[tuple[str, Any], ...], int]:
        """The members before the conversation, and the index of its value, read one by one
        (where `_opening` cannot tell them)."""
        at = _skip(text, 0)
        if text[at] != "{":
            raise _Unread
        members: dict[str, Any] = {}
        at += 1
        while True:
            name, at = _name(text, _skip(text, at))
            if name == self.key:
                break
            members[name], at = _scan(text, at)
            at = _skip(text, at)
            if text[at] != ",":  # the object ends without the conversation
                raise _Unread
            at += 1
        return tuple(members.items()), at


def _name(text: str, at: int) -> tuple[str, int]:
    """A member's name at ``at`` and the index of its value."""
    if text[at] != '"':
        raise _Unread
    name, at = _scan(text, at)
    at = _skip(text, at)
    if text[at] != ":":
        raise _Unread
    return name, _skip(text, at + 1)


def _tail(text: str, at: int) -> tuple[tuple[str, Any], ...]:
    """The members after the conversation, from ``at`` (its ``,`` or the object's ``}``): parsed
    in one call, as the object they make with a ``{`` put before them."""
    if text[at] == ",":
        if text[at + 1 : at + 2] != '"' and text[_skip(text, at + 1)] != '"':  # `"`: SDKs'
            raise _Unread
        return _members("{" + text[at + 1 :])
    if text[at] != "}" or _skip(text, at + 1) != len(text):
        raise _Unread
    return ()


def _more(text: str, at: int, items: list[Any]) -> tuple[int, int]:
    """Appends the items that follow ``items`` in the array from ``at`` (just past the last of
    them, or past the ``[`` when there are none) and returns the index past its last item and
    the index past its ``]``."""
    end = at
    at = _skip(text, at)
    if text[at] != "]":
        if items:
            if text[at] != ",":
                raise _Unread
            at = _skip(text, at + 1)
        while True:
            item, end = _scan(text, at)
            items.append(item)
            at = _skip(text, end)
            if text[at] == "]":
                break
            if text[at] != ",":
                raise _Unread
            at = _skip(text, at + 1)
    return end, at + 1
