"""Consumes an Anthropic Messages request, produces the message (JSON or its SSE events).

``tool_use`` blocks become Chat Completions tool calls and ``tool_result`` blocks tool messages, so
the scripted model sees the same conversation whichever SDK the agent is built on.
"""

from __future__ import annotations

import json
from typing import Any

from unsolvable._types import JSON
from unsolvable.adapters.kit import text_of
from unsolvable.wire._exchange import WireResponse
from unsolvable.wire._json_text import string, value
from unsolvable.wire._turn import Turn, continuation, read_by_identity, require, tool_calls_of

__all__ = ["ANTHROPIC_MESSAGES"]

NAME = "Anthropic Messages"
ROLES = frozenset({"user", "assistant"})
"""The roles of an Anthropic message."""
ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    404: "not_found_error",
    413: "request_too_large",
    503: "overloaded_error",
}


Reply = tuple[JSON, list[JSON], tuple[int, int]]
"""The session's reply, its tool calls and its input and output tokens, each read once."""
_last: tuple[list[JSON], list[JSON]] = ([], [])
"""The messages of the request read last, and the Chat Completions messages they became. An agent
re-sends its whole conversation with a turn appended, so each request reuses what the previous
one converted while its messages are equal (one comparison in C, not a conversion in Python per
message: at call 50 that was most of the wire's time). Replaced whole, so threads never
see half of it."""


def _messages(body: JSON) -> list[JSON]:
    global _last
    raw = require(body, "messages", list, NAME)
    converted, added = continuation(raw, _last, "messages", NAME)
    converted = list(converted)  # a list of its own: the last one is shared
    for message in added:
        converted += _message(message)
    _last = (raw, converted)  # shared with the next request's reading, never changed after
    if body.get("system"):
        return [{"role": "system", "content": text_of(body["system"])}, *converted]
    return list(converted)


def _message(message: JSON) -> list[JSON]:
    """One Anthropic message as the Chat Completions messages it stands for: a message of a
    role and a text alone is one already, and is taken as it is (shared, as the body reader's
    items are: neither the wire nor the session changes a message)."""
    content = message.get("content")
    if type(content) is str and content and len(message) == 2 and message.get("role") in ROLES:
        return [message]
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
    if message.get("role") == "assistant":
        return [_assistant(blocks)]
    return _user(blocks)


def _assistant(blocks: list[JSON]) -> JSON:
    text = text_of([b for b in blocks if b.get("type") == "text"])
    message: JSON = {"role": "assistant", "content": text or None}
    calls = [
        {
            "id": b.get("id"),
            "type": "function",
            "function": {"name": b.get("name"), "arguments": json.dumps(b.get("input") or {})},
        }
        for b in blocks
        if b.get("type") == "tool_use"
    ]
    if calls:
        message["tool_calls"] = calls
    return message


def _user(blocks: list[JSON]) -> list[JSON]:
    """Tool results first (they answer the previous turn), then the user's own text."""
    results = [
        {"role": "tool", "tool_call_id": b.get("tool_use_id"), "content": text_of(b.get("content"))}
        for b in blocks
        if b.get("type") == "tool_result"
    ]
    text = text_of([b for b in blocks if b.get("type") == "text"])
    return [*results, {"role": "user", "content": text}] if text else results


def _tool_names(body: JSON) -> tuple[str, ...]:
    if (body.get("tool_choice") or {}).get("type") == "none":
        return ()
    return _names(body.get("tools"))


@read_by_identity
def _names(tools: Any) -> tuple[str, ...]:
    return tuple([str(t.get("name", "")) for t in tools or ()])


def _input_text(arguments: object) -> str:
    """A tool call's arguments as its block's ``input``: spliced in as they are, since the
    session writes them as sorted JSON already (`ToolCall.to_openai`)."""
    return arguments if type(arguments) is str else value(arguments or {})


def _usage_text(input_tokens: int, output_tokens: int) -> str:
    """A message's usage object, as the message and the streamed ``message_start`` carry it."""
    return (
        '{"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, '
        f'"input_tokens": {input_tokens}, "output_tokens": {output_tokens}}}'
    )


def _message_text(reply: Reply, turn: Turn, step: int, *, streamed: bool = False) -> str:
    """The message written from a template (`unsolvable.wire._json_text`). ``streamed``: the
    message as ``message_start`` opens a stream, before any content (no blocks, no stop
    reason, no output tokens yet). Its content blocks: its text, then a ``tool_use`` block per
    tool call."""
    message, calls, (input_tokens, output_tokens) = reply
    if streamed:
        blocks, reason, output_tokens = "", "null", 0
    else:
        content = message.get("content")
        texts = [f'{{"text": {string(content)}, "type": "text"}}'] if content else []
        for call in calls:
            function = call["function"]
            texts.append(
                f'{{"id": {value(call["id"])}, "input": {_input_text(function["arguments"])}, '
                f'"name": {value(function["name"])}, "type": "tool_use"}}'
            )
        blocks, reason = ", ".join(texts), f'"{_stop(calls)}"'
    return (
        f'{{"content": [{blocks}], "id": "msg_unsolvable_{step}", '
        f'"model": {string(turn.model)}, "role": "assistant", "stop_reason": {reason}, '
        f'"stop_sequence": null, "type": "message", '
        f'"usage": {_usage_text(input_tokens, output_tokens)}}}'
    )


def _stop(calls: list[JSON]) -> str:
    return "tool_use" if calls else "end_turn"


def _stream(reply: Reply, turn: Turn, step: int) -> str:
    """The streamed message, its events written from templates as the message is, straight
    into the stream's text as `encode_sse` frames them (encoding each event as a dict was most
    of a streamed call's wire, and framing events one by one half of what was left):
    ``message_start``, a start, a delta and a stop per content block, ``message_delta`` with
    the stop reason, then ``message_stop``."""
    message, calls, (_, output_tokens) = reply
    opening = _message_text(reply, turn, step, streamed=True)
    parts = [f'event: message_start\ndata: {{"message": {opening}, "type": "message_start"}}\n\n']
    blocks: list[tuple[str, str]] = []
    if message.get("content"):
        delta = f'{{"text": {string(message["content"])}, "type": "text_delta"}}'
        blocks.append(('{"text": "", "type": "text"}', delta))
    for call in calls:
        name, identity = value(call["function"]["name"]), value(call["id"])
        start = f'{{"id": {identity}, "input": {{}}, "name": {name}, "type": "tool_use"}}'
        partial = string(_input_text(call["function"]["arguments"]))
        blocks.append((start, f'{{"partial_json": {partial}, "type": "input_json_delta"}}'))
    for index, (start, delta) in enumerate(blocks):
        parts.append(
            "event: content_block_start\n"
            f'data: {{"content_block": {start}, "index": {index}, '
            '"type": "content_block_start"}\n\n'
            "event: content_block_delta\n"
            f'data: {{"delta": {delta}, "index": {index}, "type": "content_block_delta"}}\n\n'
            "event: content_block_stop\n"
            f'data: {{"index": {index}, "type": "content_block_stop"}}\n\n'
        )
    parts.append(
        "event: message_delta\n"
        f'data: {{"delta": {{"stop_reason": "{_stop(calls)}", "stop_sequence": null}}, '
        f'"type": "message_delta", "usage": {{"output_tokens": {output_tokens}}}}}\n\n'
        'event: message_stop\ndata: {"type": "message_stop"}\n\n'
    )
    return "".join(parts)


class AnthropicMessages:
    """``POST …/v1/messages``."""

    name = "anthropic_messages"
    path_suffix = "/messages"
    conversation = "messages"

    def read(self, body: JSON) -> Turn:
        return Turn.of(body, _messages(body), _tool_names(body))

    def render(self, reply: JSON, usage: tuple[int, int], turn: Turn, *, step: int) -> WireResponse:
        read = (reply, tool_calls_of(reply), usage)
        if turn.stream:
            return WireResponse.sse_text(_stream(read, turn, step))
        return WireResponse.json_text(_message_text(read, turn, step))

    def error(self, status: int, message: str) -> WireResponse:
        kind = ERROR_TYPES.get(status, "api_error")
        body = {"type": "error", "error": {"type": kind, "message": message}}
        return WireResponse.json(body, status=status)


ANTHROPIC_MESSAGES = AnthropicMessages()
