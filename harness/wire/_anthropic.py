"""Consumes an Anthropic Messages request, produces the message (JSON or its SSE events).

``tool_use`` blocks become Chat Completions tool calls and ``tool_result`` blocks tool messages, so
the scripted model sees the same conversation whichever SDK the agent is built on.
"""

from __future__ import annotations

import json
from typing import Any

from harness._types import JSON
from harness.adapters.kit import reply_tokens, reply_usage, text_of
from harness.wire._exchange import WireResponse
from harness.wire._json_text import string, value
from harness.wire._turn import Turn, require, tool_calls_of

__all__ = ["ANTHROPIC_MESSAGES"]

NAME = "Anthropic Messages"
ERROR_TYPES = {400: "invalid_request_error", 404: "not_found_error", 503: "overloaded_error"}


_last: tuple[list[JSON], list[JSON]] = ([], [])
"""The messages of the request read last, and the Chat Completions messages they became. An agent
re-sends its whole conversation with a turn appended, so each request reuses what the previous
one converted while its messages are equal (one comparison in C, not a conversion in Python per
message: at call 50 that was most of the wire's time, issue 14). Replaced whole, so threads never
see half of it."""


def _messages(body: JSON) -> list[JSON]:
    global _last
    raw = require(body, "messages", list, NAME)
    seen, converted = _last
    if not (len(raw) >= len(seen) and raw[: len(seen)] == seen):
        seen, converted = [], []
    converted = converted + [each for message in raw[len(seen) :] for each in _message(message)]
    _last = (raw, converted)  # shared with the next request's reading, never changed after
    if body.get("system"):
        return [{"role": "system", "content": text_of(body["system"])}, *converted]
    return list(converted)


def _message(message: JSON) -> list[JSON]:
    """One Anthropic message as the Chat Completions messages it stands for."""
    content = message.get("content")
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
    return tuple(str(t.get("name", "")) for t in body.get("tools") or ())


def _blocks(reply: JSON) -> list[JSON]:
    blocks: list[JSON] = []
    if reply.get("content"):
        blocks.append({"type": "text", "text": reply["content"]})
    for call in tool_calls_of(reply):
        arguments = call["function"]["arguments"]
        tool_input = json.loads(arguments) if isinstance(arguments, str) else arguments
        blocks.append(
            {
                "type": "tool_use",
                "id": call["id"],
                "name": call["function"]["name"],
                "input": tool_input or {},
            }
        )
    return blocks


def _block_texts(reply: JSON) -> list[str]:
    """`_blocks` as texts. A call's arguments are spliced in as they are: the session writes
    them as sorted JSON already (`ToolCall.to_openai`)."""
    blocks = (
        [f'{{"text": {string(reply["content"])}, "type": "text"}}'] if reply.get("content") else []
    )
    for call in tool_calls_of(reply):
        arguments = call["function"]["arguments"]
        tool_input = arguments if isinstance(arguments, str) else value(arguments or {})
        name, identity = value(call["function"]["name"]), value(call["id"])
        blocks.append(
            f'{{"id": {identity}, "input": {tool_input}, "name": {name}, "type": "tool_use"}}'
        )
    return blocks


def _message_text(reply: JSON, turn: Turn, step: int) -> str:
    """`AnthropicMessages.message` written from a template (`harness.wire._json_text`)."""
    blocks = _block_texts(reply)
    stop = "tool_use" if tool_calls_of(reply) else "end_turn"
    input_tokens, output_tokens = reply_tokens(reply)
    tokens = (
        '"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, '
        f'"input_tokens": {input_tokens}, "output_tokens": {output_tokens}'
    )
    return (
        f'{{"content": [{", ".join(blocks)}], "id": "msg_unsolvable_{step}", '
        f'"model": {string(turn.model)}, "role": "assistant", "stop_reason": "{stop}", '
        f'"stop_sequence": null, "type": "message", "usage": {{{tokens}}}}}'
    )


class AnthropicMessages:
    """``POST …/v1/messages``."""

    name = "anthropic_messages"
    path_suffix = "/messages"
    conversation = "messages"

    def read(self, body: JSON) -> Turn:
        return Turn.of(body, _messages(body), _tool_names(body))

    def render(self, reply: JSON, turn: Turn, *, step: int) -> WireResponse:
        if not turn.stream:
            return WireResponse.json_text(_message_text(reply, turn, step))
        message = self.message(reply, turn, step=step)
        return WireResponse.sse(self._events(message, message["content"]))

    def message(self, reply: JSON, turn: Turn, *, step: int) -> JSON:
        """The message as a dict: what streaming sends in parts, and what `render` writes from
        its template when it does not stream."""
        blocks = _blocks(reply)
        stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
        usage = reply_usage(reply)
        return {
            "id": f"msg_unsolvable_{step}",
            "type": "message",
            "role": "assistant",
            "model": turn.model,
            "content": blocks,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {
                "input_tokens": usage.input_tokens,
                "output_tokens": usage.output_tokens,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
            },
        }

    def _events(self, message: JSON, blocks: list[JSON]) -> list[tuple[str | None, Any]]:
        usage = message["usage"]
        opening = {
            **message,
            "content": [],
            "stop_reason": None,
            "usage": {**usage, "output_tokens": 0},
        }
        events: list[JSON] = [{"type": "message_start", "message": opening}]
        for index, block in enumerate(blocks):
            events += _block_events(block, index)
        events += [
            {
                "type": "message_delta",
                "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                "usage": {"output_tokens": usage["output_tokens"]},
            },
            {"type": "message_stop"},
        ]
        return [(e["type"], e) for e in events]

    def error(self, status: int, message: str) -> WireResponse:
        kind = ERROR_TYPES.get(status, "api_error")
        body = {"type": "error", "error": {"type": kind, "message": message}}
        return WireResponse.json(body, status=status)


def _block_events(block: JSON, index: int) -> list[JSON]:
    if block["type"] == "tool_use":
        opening = {**block, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
    else:
        opening = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": block["text"]}
    return [
        {"type": "content_block_start", "index": index, "content_block": opening},
        {"type": "content_block_delta", "index": index, "delta": delta},
        {"type": "content_block_stop", "index": index},
    ]


ANTHROPIC_MESSAGES = AnthropicMessages()
