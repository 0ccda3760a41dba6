"""Consumes an OpenAI Chat Completions request, produces the completion (JSON or SSE chunks).

Spoken by the ``openai`` SDK's ``chat.completions``, LangChain's ``ChatOpenAI``, LiteLLM and most
OpenAI-compatible clients.
"""

from __future__ import annotations

from typing import Any

from unsolvable._types import JSON
from unsolvable.wire._exchange import WireResponse
from unsolvable.wire._json_text import string, value
from unsolvable.wire._turn import (
    CREATED,
    Turn,
    arguments_of,
    openai_context_error,
    openai_error,
    read_by_identity,
    require,
    require_objects,
    tool_calls_of,
)

__all__ = ["CHAT_COMPLETIONS"]

NAME = "OpenAI Chat Completions"


def _tool_names(body: JSON) -> tuple[str, ...]:
    if body.get("tool_choice") == "none":
        return ()
    return _names(body.get("tools"))


@read_by_identity
def _names(tools: Any) -> tuple[str, ...]:
    names = []
    for tool in tools or ():
        function = tool.get("function", tool) if isinstance(tool, dict) else {}
        names.append(str(function.get("name", "")))
    return tuple(names)


def _tool_call_text(call: JSON) -> str:
    function = (
        f'{{"arguments": {string(arguments_of(call))}, "name": {value(call["function"]["name"])}}}'
    )
    return f'{{"function": {function}, "id": {value(call["id"])}, "type": "function"}}'


def _usage_text(usage: tuple[int, int]) -> str:
    """The reply's usage object, as the completion and the last streamed chunk carry it."""
    input_tokens, output_tokens = usage
    return (
        f'{{"completion_tokens": {output_tokens}, "prompt_tokens": {input_tokens}, '
        f'"total_tokens": {input_tokens + output_tokens}}}'
    )


def _completion(reply: JSON, usage: tuple[int, int], turn: Turn, step: int) -> str:
    """The completion written from a template (`unsolvable.wire._json_text`)."""
    calls = tool_calls_of(reply)
    said = f'"content": {value(reply.get("content"))}, "refusal": null, "role": "assistant"'
    if calls:
        said += f', "tool_calls": [{", ".join(map(_tool_call_text, calls))}]'
    finish = "tool_calls" if calls else "stop"
    choice = f'{{"finish_reason": "{finish}", "index": 0, "logprobs": null, "message": {{{said}}}}}'
    return (
        f'{{"choices": [{choice}], "created": {CREATED}, "id": "chatcmpl-unsolvable-{step}", '
        f'"model": {string(turn.model)}, "object": "chat.completion", '
        f'"usage": {_usage_text(usage)}}}'
    )


class ChatCompletions:
    """``POST …/chat/completions``."""

    name = "chat_completions"
    path_suffix = "/chat/completions"
    conversation = "messages"

    def read(self, body: JSON) -> Turn:
        """The messages as sent, not copied: the body reader shares them between calls and
        nothing on the wire changes them (a copy of each, every call, made a call's cost grow
        with the conversation)."""
        messages = require(body, "messages", list, NAME)
        require_objects(messages, "messages", NAME)
        return Turn.of(body, list(messages), _tool_names(body))

    def render(self, reply: JSON, usage: tuple[int, int], turn: Turn, *, step: int) -> WireResponse:
        if turn.stream:
            return WireResponse.sse(self._chunks(reply, usage, turn, step=step))
        return WireResponse.json_text(_completion(reply, usage, turn, step))

    def _chunks(
        self, reply: JSON, usage: tuple[int, int], turn: Turn, *, step: int
    ) -> list[tuple[str | None, Any]]:
        """The streamed completion's chunks, written from a template as the completion is: the
        members every chunk shares are written once (encoding each chunk as a dict was half of
        a streamed call's wire)."""
        shared = (
            f'"created": {CREATED}, "id": "chatcmpl-unsolvable-{step}", '
            f'"model": {string(turn.model)}, "object": "chat.completion.chunk"'
        )

        def chunk(delta: str, finish: str = "null") -> tuple[None, str]:
            choice = (
                f'{{"delta": {delta}, "finish_reason": {finish}, "index": 0, "logprobs": null}}'
            )
            return None, f'{{"choices": [{choice}], {shared}}}'

        events = [chunk('{"content": "", "role": "assistant"}')]
        if reply.get("content"):
            events.append(chunk(f'{{"content": {value(reply["content"])}}}'))
        calls = tool_calls_of(reply)
        for index, call in enumerate(calls):
            name, identity = value(call["function"]["name"]), value(call["id"])
            opening = (
                f'{{"function": {{"arguments": "", "name": {name}}}, "id": {identity}, '
                f'"index": {index}, "type": "function"}}'
            )
            events.append(chunk(f'{{"tool_calls": [{opening}]}}'))
            arguments = (
                f'{{"function": {{"arguments": {string(arguments_of(call))}}}, "index": {index}}}'
            )
            events.append(chunk(f'{{"tool_calls": [{arguments}]}}'))
        events.append(chunk("{}", '"tool_calls"' if calls else '"stop"'))
        if (turn.body.get("stream_options") or {}).get("include_usage"):
            events.append((None, f'{{"choices": [], {shared}, "usage": {_usage_text(usage)}}}'))
        return [*events, (None, "[DONE]")]

    def error(self, status: int, message: str) -> WireResponse:
        return openai_error(status, message)

    def context_error(self, tokens: int, window: int) -> WireResponse:
        message = (
            f"This model's maximum context length is {window} tokens. However, your messages "
            f"resulted in {tokens} tokens. Please reduce the length of the messages."
        )
        return openai_context_error(message, "messages")


CHAT_COMPLETIONS = ChatCompletions()
