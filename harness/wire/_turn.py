"""Consumes a wire-format request body, produces one `Turn`: what the scripted model is asked.

Every format reads into the same shape — Chat Completions messages plus the names of the tools
offered — because that is what `Session.call_model` takes, and renders the session's reply back.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from unsolvable._types import JSON
from unsolvable.wire._errors import WireFormatError
from unsolvable.wire._exchange import WireResponse

__all__ = [
    "CREATED",
    "Turn",
    "WireFormat",
    "arguments_of",
    "continuation",
    "openai_error",
    "read_by_identity",
    "require",
    "require_objects",
    "tool_calls_of",
]

CREATED = 1_767_225_600
"""A fixed creation time (2026-01-01) for every response: the same run gives the same bytes."""


@dataclass(slots=True)
class Turn:
    """One model request, read from any wire format.

    Slotted, not frozen, and built by position: the wire makes one every call, a frozen
    dataclass costs twice as much to build, and keywords to a class reach its ``__init__``
    through a dict (these four were 23,000 instructions of a call)."""

    messages: list[JSON]
    """The conversation as Chat Completions messages."""
    tools: tuple[str, ...]
    """Names of the tools offered; empty when none are, or when ``tool_choice`` forbids them."""
    model: str
    stream: bool
    body: JSON = field(repr=False)
    """The request as sent, for echoes such as the Responses API's ``tools``."""

    @classmethod
    def of(cls, body: JSON, messages: list[JSON], tools: tuple[str, ...]) -> Turn:
        """A turn whose format-specific parts (messages, tools) the format has already read."""
        return cls(
            messages, tools, str(body.get("model", "unsolvable")), bool(body.get("stream")), body
        )


class WireFormat(Protocol):
    """One wire format: which path it answers, how it reads a request and writes a reply."""

    name: str
    path_suffix: str
    conversation: str
    """The member of a request body that holds the conversation, re-sent grown every call."""

    def read(self, body: JSON) -> Turn: ...

    def render(self, reply: JSON, usage: tuple[int, int], turn: Turn, *, step: int) -> WireResponse:
        """The format's reply to ``turn``: ``reply`` is the session's assistant message (Chat
        Completions, `Session.answer`), ``usage`` its input and output tokens."""
        ...

    def error(self, status: int, message: str) -> WireResponse:
        """The format's own error body for ``status``."""
        ...


def require(body: Mapping[str, Any], key: str, kind: type, fmt: str) -> Any:
    """``body[key]`` of type ``kind``, or a `WireFormatError` naming the format and the key."""
    value = body.get(key)
    if not isinstance(value, kind):
        raise WireFormatError(
            f"unsolvable: a {fmt} request needs {key!r} as {kind.__name__}, got {value!r:.80}; "
            "is the client pointed at the right path?"
        )
    return value


def require_objects(items: list[Any], key: str, fmt: str, *, start: int = 0) -> None:
    """Every one of ``items`` (``body[key]`` from index ``start``) a JSON object, or a
    `WireFormatError` naming the first that is not: a message the formats would read as a dict
    otherwise failed the call with an `AttributeError` from inside the wire. The types are
    gathered in C, so a long conversation costs little more than a short one."""
    if not items or set(map(type, items)) == {dict}:
        return
    index, item = next((i, m) for i, m in enumerate(items) if type(m) is not dict)
    raise WireFormatError(
        f"unsolvable: a {fmt} request's {key!r} must hold JSON objects, got {item!r:.80} at "
        f"index {start + index}"
    )


def continuation(
    items: list[Any], last: tuple[list[Any], list[JSON]], key: str, fmt: str
) -> tuple[list[JSON], list[Any]]:
    """What a format that converts a conversation item by item reuses from the last request it
    read (``last``: its items and the messages they became), and the items left to convert: an
    agent re-sends its whole conversation with items appended, so while ``items`` begin with
    the last request's (one comparison in C) only the rest are converted; otherwise all are,
    from no messages. The items left are checked to be JSON objects (`require_objects`); the
    ones before were, when they were added."""
    seen, converted = last
    if len(items) >= len(seen) and items[: len(seen)] == seen:
        start = len(seen)
    else:
        converted, start = [], 0
    added = items[start:]
    require_objects(added, key, fmt, start=start)
    return converted, added


def read_by_identity(read: Callable[[Any], tuple[str, ...]]) -> Callable[[Any], tuple[str, ...]]:
    """``read`` of the tools a request offers (its ``tools``, or ``None``), kept for the last
    list it read, by identity: the body reader shares a tool list sent unchanged between calls
    (`unsolvable.wire._body`), so a conversation's tools are read once rather than once per call.
    The list is held, so no other takes its id, and the pair is replaced whole, so
    threads only ever see one."""
    last: tuple[object, tuple[str, ...]] = (None, read(None))

    def names(tools: Any) -> tuple[str, ...]:
        nonlocal last
        known = last
        if known[0] is tools:
            return known[1]
        found = read(tools)
        last = (tools, found)
        return found

    return names


def arguments_of(call: JSON) -> str:
    """The JSON arguments of a Chat Completions tool call, as the string the formats carry."""
    arguments = call.get("function", {}).get("arguments")
    return arguments if isinstance(arguments, str) else json.dumps(arguments or {})


def tool_calls_of(reply: JSON) -> list[JSON]:
    return list(reply.get("tool_calls") or ())


OPENAI_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "invalid_api_key",
    404: "not_found_error",
    413: "invalid_request_error",
    503: "server_error",
}


def openai_error(status: int, message: str) -> WireResponse:
    """An error body the way OpenAI's API writes it; its SDK raises the matching `APIError`."""
    kind = OPENAI_ERROR_TYPES.get(status, "server_error")
    body = {"error": {"message": message, "type": kind, "param": None, "code": kind}}
    return WireResponse.json(body, status=status)
