"""Consumes an Anthropic Messages request, produces the message (JSON or its SSE events).

``tool_use`` blocks become Chat Completions tool calls and ``tool_result`` blocks tool messages, so
the scripted model sees the same conversation whichever SDK the agent is built on.
"""

from __future__ import annotations

import json
from collections import Counter
from types import MappingProxyType
from typing import Any

from unsolvable._frozen import freeze
from unsolvable._model import Usage
from unsolvable._offered import OfferedTool
from unsolvable._text import text_of
from unsolvable._types import JSON
from unsolvable.wire._errors import WireFormatError
from unsolvable.wire._exchange import WireResponse
from unsolvable.wire._turn import Turn, read_from, require, require_objects, tool_calls_of

__all__ = ["ANTHROPIC_COUNT_TOKENS", "ANTHROPIC_MESSAGES"]

NAME = "Anthropic Messages"
ROLES = frozenset({"user", "assistant", "system"})
"""The roles of an Anthropic message: the API refuses any other. A ``system`` one is a
mid-conversation instruction (Claude Code and pydantic-ai send them), taken only in its place
(`_require_system_places`) and read as the user's words."""
ERROR_TYPES = MappingProxyType(
    {
        400: "invalid_request_error",
        401: "authentication_error",
        403: "permission_error",
        404: "not_found_error",
        413: "request_too_large",
        429: "rate_limit_error",
        529: "overloaded_error",
    }
)
"""The error ``type`` of each status Anthropic's API documents; any other is an ``api_error``."""
OVERLOADED = 529
"""Anthropic's status for a request it cannot take for the moment (`anthropic.OverloadedError`,
which its SDK retries); it answers no 503."""


def _system(body: JSON) -> list[JSON]:
    if body.get("system"):
        return [{"role": "system", "content": text_of(body["system"])}]
    return []


def _blocks(message: JSON) -> list[JSON]:
    content = message.get("content")
    return [{"type": "text", "text": content}] if isinstance(content, str) else content or []


def _ids(message: JSON | None, role: str, kind: str, key: str) -> list[str]:
    """The ids of ``message``'s blocks of type ``kind`` (read from ``key``), if it is ``role``'s."""
    if message is None or message.get("role") != role:
        return []
    return [str(b.get(key)) for b in _blocks(message) if b.get("type") == kind]


def _require_results(messages: list[JSON], start: int) -> None:
    """Each ``tool_use`` answered by a ``tool_result`` in the message after it, and each
    ``tool_result`` answering one of the message before it, from index ``start``, or the API's
    refusal: an agent that drops a result, or answers a call it was not asked, is refused in
    production."""
    for index in range(start, len(messages)):
        before = messages[index - 1] if index else None
        asked = _ids(before, "assistant", "tool_use", "id")
        answered = _ids(messages[index], "user", "tool_result", "tool_use_id")
        missing = [call for call in asked if call not in answered]
        if missing:
            raise WireFormatError(
                f"messages.{index - 1}: `tool_use` ids were found without `tool_result` blocks "
                f"immediately after: {', '.join(missing)}. Each `tool_use` block must have a "
                "corresponding `tool_result` block in the next message."
            )
        extra = [result for result in answered if result not in asked]
        if extra:
            raise WireFormatError(
                f"messages.{index}: unexpected `tool_use_id` found in `tool_result` blocks: "
                f"{extra[0]}. Each `tool_result` block must have a corresponding `tool_use` "
                "block in the previous message."
            )
        repeated = [result for result, times in Counter(answered).items() if times > 1]
        if repeated:
            raise WireFormatError(
                "each tool_use must have a single result. Found multiple `tool_result` blocks "
                f"with id: {repeated[0]}"
            )


def _may_precede_system(message: JSON | None) -> bool:
    """Whether a system message may follow ``message``: the user's turn, or an assistant turn
    that ends in server tool use."""
    if message is None:
        return False
    blocks = _blocks(message)
    return message.get("role") == "user" or (
        bool(blocks) and blocks[-1].get("type") == "server_tool_use"
    )


def _section_start(messages: list[JSON], index: int) -> int:
    """Where the system messages just before ``index`` start (``index`` when none are)."""
    first = index
    while first and messages[first - 1].get("role") == "system":
        first -= 1
    return first


def _require_system_places(messages: list[JSON], start: int) -> None:
    """Each system message from index ``start`` in the place the API takes one, or its
    refusal: after the user's turn (or an assistant turn ending in server tool use), with only
    system messages between, and then last or before the assistant's turn. A system message
    with no content (pydantic-ai's effort-only entry) may sit anywhere, as the API lets it."""
    for index in range(start, len(messages)):
        role, first = messages[index].get("role"), _section_start(messages, index)
        misplaced = not _may_precede_system(messages[first - 1] if first else None)
        if role == "system" and _blocks(messages[index]) and misplaced:
            raise WireFormatError(
                f"messages.{index}: role 'system' must follow a 'user' message (or an "
                "'assistant' message ending in server tool use); a system prompt that opens "
                "the conversation goes in the top-level `system` parameter"
            )
        instructed = any(_blocks(message) for message in messages[first:index])
        if role not in ("system", "assistant") and instructed:
            raise WireFormatError(
                f"messages.{index - 1}: role 'system' must be followed by an 'assistant' "
                "message, or be the last message"
            )


def _message(message: JSON) -> list[JSON]:
    """One Anthropic message as the Chat Completions messages it stands for."""
    blocks = _blocks(message)
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


def _require_roles(messages: list[JSON], start: int) -> None:
    """Every message from index ``start`` of a role the API takes, or its refusal: a message of
    another (a Chat Completions ``tool`` or ``developer`` message carried over) is refused, not
    read as a user's."""
    for index in range(start, len(messages)):
        if messages[index].get("role") not in ROLES:
            raise WireFormatError(
                f"messages.{index}.role: Input should be 'user', 'assistant' or 'system'"
            )


def _require_max_tokens(body: JSON) -> None:
    """A whole number of ``max_tokens``, which the API requires of every message it is asked
    to create, or its refusal: Chat Completions lets an agent leave it out, the Messages API
    does not."""
    given = body.get("max_tokens")
    if given is None:
        raise WireFormatError("max_tokens: Field required")
    if isinstance(given, bool) or not isinstance(given, int):
        raise WireFormatError("max_tokens: Input should be a valid integer")


def _tools_offered(body: JSON) -> tuple[OfferedTool, ...]:
    """Each tool of the request, sent whole (its entry in ``tools``)."""
    tools = body.get("tools") or ()
    for index, tool in enumerate(tools):
        if not isinstance(tool.get("name"), str):  # a Chat Completions tool names it deeper
            raise WireFormatError(f"tools.{index}.name: Field required")
    if (body.get("tool_choice") or {}).get("type") == "none":
        return ()
    return tuple(OfferedTool.sent(tool["name"], tool) for tool in tools)


def _usage(usage: Usage) -> JSON:
    """The usage as the API fills it: the fake reads and writes no cache, so its counts and
    their breakdown by lifetime are 0 rather than left out, since code written against the API
    reads ``usage.cache_creation.ephemeral_5m_input_tokens``; the standard tier served it."""
    return {
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
        "service_tier": "standard",
    }


def _message_body(reply: JSON, usage: Usage, turn: Turn, step: int) -> JSON:
    """The message: its text, then a ``tool_use`` block per tool call."""
    blocks: list[JSON] = []
    if reply.get("content"):
        blocks.append({"type": "text", "text": reply["content"]})
    calls = tool_calls_of(reply)
    for call in calls:
        function = call["function"]
        use = {"type": "tool_use", "id": call["id"], "name": function["name"]}
        blocks.append({**use, "input": json.loads(function["arguments"])})
    return {
        "id": f"msg_unsolvable_{step}",
        "type": "message",
        "role": "assistant",
        "model": turn.model,
        "content": blocks,
        "stop_reason": "tool_use" if calls else "end_turn",
        "stop_sequence": None,
        "usage": _usage(usage),
    }


def _events(message: JSON) -> list[tuple[str | None, Any]]:
    """The streamed message: ``message_start`` (no content, no stop reason, no output tokens
    yet), a start, a delta and a stop per content block, ``message_delta`` with the stop reason
    and the output tokens, then ``message_stop``."""
    opening = {**message, "content": [], "stop_reason": None}
    opening["usage"] = {**message["usage"], "output_tokens": 0}
    events: list[JSON] = [{"type": "message_start", "message": opening}]
    for index, block in enumerate(message["content"]):
        if block["type"] == "tool_use":
            start = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        else:
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        events += [
            {"type": "content_block_start", "index": index, "content_block": start},
            {"type": "content_block_delta", "index": index, "delta": delta},
            {"type": "content_block_stop", "index": index},
        ]
    stop = {"stop_reason": message["stop_reason"], "stop_sequence": None}
    usage = {"output_tokens": message["usage"]["output_tokens"]}
    events += [
        {"type": "message_delta", "delta": stop, "usage": usage},
        {"type": "message_stop"},
    ]
    return [(event["type"], event) for event in events]


class AnthropicMessages:
    """``POST …/v1/messages``."""

    __slots__ = ()  # a format keeps nothing between requests: the wire does

    name = "anthropic_messages"
    request_id_header = "request-id"
    path_suffix = "/messages"
    conversation = "messages"

    def read(
        self, body: JSON, earlier: Turn | None = None, *, url: str = "", counted: bool = False
    ) -> Turn:
        if not counted:
            _require_max_tokens(body)
        raw = require(body, "messages", list, NAME)
        start = read_from(earlier)
        require_objects(raw, "messages", NAME, start=start)
        _require_roles(raw, start)
        _require_system_places(raw, start)
        _require_results(raw, start)
        taken = () if earlier is None else earlier.conversation
        added = [freeze(message) for item in raw[start:] for message in _message(item)]
        return Turn.of(
            body,
            system=_system(body),
            items=len(raw),
            conversation=(*taken, *added),
            tools=_tools_offered(body),
        )

    def render(self, reply: JSON, usage: Usage, turn: Turn, *, step: int) -> WireResponse:
        message = _message_body(reply, usage, turn, step)
        if turn.stream:
            return WireResponse.sse(_events(message))
        return WireResponse.json(message)

    def error(
        self, status: int, message: str, *, param: str | None = None, code: str | None = None
    ) -> WireResponse:
        """Anthropic's error bodies name no member and no code: ``param`` and ``code`` are not
        written."""
        kind = ERROR_TYPES.get(status, "api_error")
        body = {"type": "error", "error": {"type": kind, "message": message}}
        return WireResponse.json(body, status=status)

    def transient_error(self, message: str) -> WireResponse:
        return self.error(OVERLOADED, message)

    def response_id(self, step: int, turn: Turn) -> str | None:
        return None

    def context_error(self, tokens: int, window: int) -> WireResponse:
        """A 400 ``invalid_request_error`` (the SDK raises `anthropic.BadRequestError`)."""
        return self.error(400, f"prompt is too long: {tokens} tokens > {window} maximum")


ANTHROPIC_MESSAGES = AnthropicMessages()


class AnthropicCountTokens:
    """``POST …/v1/messages/count_tokens`` (the SDK's beta client adds ``?beta=true``): a
    Messages request, counted."""

    __slots__ = ()

    name = "anthropic_count_tokens"
    path_suffix = "/messages/count_tokens"
    generating = ANTHROPIC_MESSAGES

    def request(self, body: JSON) -> JSON:
        return body

    def render(self, tokens: int) -> WireResponse:
        """The SDK's `MessageTokensCount` (and `BetaMessageTokensCount`, whose
        ``context_management`` is absent when none was asked for)."""
        return WireResponse.json({"input_tokens": tokens})


ANTHROPIC_COUNT_TOKENS = AnthropicCountTokens()
