"""Consumes an OpenAI Chat Completions request, produces the completion (JSON or SSE chunks).

Spoken by the ``openai`` SDK's ``chat.completions``, LangChain's ``ChatOpenAI``, LiteLLM and most
OpenAI-compatible clients.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from unsolvable._frozen import freeze
from unsolvable._model import Usage
from unsolvable._offered import OfferedTool
from unsolvable._types import JSON
from unsolvable.wire._errors import WireFormatError
from unsolvable.wire._exchange import WireResponse
from unsolvable.wire._turn import (
    CREATED,
    OpenAIErrors,
    Turn,
    arguments_of,
    openai_context_error,
    read_from,
    require,
    require_objects,
    require_one_answer,
    tool_calls_of,
)

__all__ = ["CHAT_COMPLETIONS"]

NAME = "OpenAI Chat Completions"
DEFAULT_TIERS = frozenset({"auto", "default"})
"""The ``service_tier`` values that leave the choice to the API, as naming none does: it answers
that the ``default`` tier served the request, and names any other tier asked for."""


def _tools_offered(body: JSON) -> tuple[OfferedTool, ...]:
    """Each tool of the request, sent whole (its entry in ``tools``)."""
    _require_functions(body.get("tools") or ())
    if body.get("tool_choice") == "none":
        return ()
    offered = []
    for tool in body.get("tools") or ():
        function = tool.get("function", tool) if isinstance(tool, dict) else {}
        offered.append(OfferedTool.sent(str(function.get("name", "")), tool))
    return tuple(offered)


def _require_functions(tools: Iterable[object]) -> None:
    """Each function tool's function given under ``function``, or the API's refusal: a tool in
    the Responses API's shape (``{"type": "function", "name": ...}``) names it at the top."""
    for index, tool in enumerate(tools):
        if isinstance(tool, dict) and tool.get("type") == "function" and "function" not in tool:
            raise WireFormatError(
                f"Missing required parameter: 'tools[{index}].function'.",
                param=f"tools[{index}].function",
                code="missing_required_parameter",
            )


def _tool_call(call: JSON) -> JSON:
    function = {"name": call["function"]["name"], "arguments": arguments_of(call)}
    return {"id": call["id"], "type": "function", "function": function}


def _service_tier(body: JSON) -> str:
    tier = body.get("service_tier")
    return tier if isinstance(tier, str) and tier not in DEFAULT_TIERS else "default"


def _usage(usage: Usage) -> JSON:
    """The usage as the API fills it: its token counts and their details, every one the fake
    has none of (cached, audio, reasoning and prediction tokens) 0 rather than left out, since
    code written against the API reads ``usage.prompt_tokens_details.cached_tokens``."""
    return {
        **usage.to_openai(),
        "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": 0,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }


def _completion(reply: JSON, usage: Usage, turn: Turn, step: int) -> JSON:
    calls = [_tool_call(call) for call in tool_calls_of(reply)]
    message: JSON = {
        "role": "assistant",
        "content": reply.get("content"),
        "refusal": None,
        "annotations": [],
    }
    if calls:
        message["tool_calls"] = calls
    choice = {
        "index": 0,
        "message": message,
        "finish_reason": "tool_calls" if calls else "stop",
        "logprobs": None,
    }
    return {
        "id": f"chatcmpl-unsolvable-{step}",
        "object": "chat.completion",
        "created": CREATED,
        "model": turn.model,
        "choices": [choice],
        "usage": _usage(usage),
        "service_tier": _service_tier(turn.body),
    }


def _chunks(reply: JSON, usage: Usage, turn: Turn, step: int) -> list[tuple[str | None, Any]]:
    """The streamed completion: the role, the text, each tool call's name then arguments, the
    finish reason, the usage when asked for (``stream_options``), then ``[DONE]``."""
    head = {
        "id": f"chatcmpl-unsolvable-{step}",
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": turn.model,
        "service_tier": _service_tier(turn.body),
    }

    def chunk(delta: JSON, finish: str | None = None) -> tuple[None, JSON]:
        choice = {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
        return None, {**head, "choices": [choice]}

    # The API opens a reply with text with an empty text, and one of tool calls alone with none,
    # so the SDK's stream helper assembles the content the whole completion has.
    text = "" if reply.get("content") is not None else None
    events = [chunk({"role": "assistant", "content": text})]
    if reply.get("content"):
        events.append(chunk({"content": reply["content"]}))
    calls = tool_calls_of(reply)
    for index, call in enumerate(calls):
        opening = {**_tool_call(call), "index": index}
        opening["function"] = {"name": call["function"]["name"], "arguments": ""}
        events.append(chunk({"tool_calls": [opening]}))
        arguments = {"index": index, "function": {"arguments": arguments_of(call)}}
        events.append(chunk({"tool_calls": [arguments]}))
    events.append(chunk({}, "tool_calls" if calls else "stop"))
    if (turn.body.get("stream_options") or {}).get("include_usage"):
        events.append((None, {**head, "choices": [], "usage": _usage(usage)}))
    return [*events, (None, "[DONE]")]


def _asked_before(messages: list[Any], start: int) -> tuple[int, dict[str, None]]:
    """The index of the last assistant message before ``start`` and its tool calls that no tool
    message after it answers, in order (none when no such message has calls): looked for from
    ``start`` back, past the tool messages only."""
    answered: set[str] = set()
    for index in range(start - 1, -1, -1):
        message = messages[index]
        if message.get("role") != "tool":
            return index, _calls(message, answered)
        answered.add(str(message.get("tool_call_id")))
    return -1, {}


def _calls(message: JSON, answered: set[str]) -> dict[str, None]:
    """The ids of ``message``'s tool calls not among those ``answered``, in order."""
    if message.get("role") != "assistant":
        return {}
    ids = (str(call.get("id")) for call in message.get("tool_calls") or ())
    return {call: None for call in ids if call not in answered}


def _require_answers(messages: list[Any], start: int) -> None:
    """Every tool call answered by a tool message before any other message, and every tool
    message answering a call of the assistant message before it, from index ``start``, or the
    API's refusal: an agent that drops a result is refused in production."""
    asked_at, pending = _asked_before(messages, start)
    for index in range(start, len(messages)):
        message = messages[index]
        if message.get("role") == "tool":
            answer = str(message.get("tool_call_id"))
            if answer not in pending:
                raise WireFormatError(
                    "Invalid parameter: messages with role 'tool' must be a response to a "
                    "preceeding message with 'tool_calls'.",
                    param=f"messages.[{index}].role",
                )
            del pending[answer]
            continue
        _require_none_pending(asked_at, pending)
        asked_at, pending = index, _calls(message, set())
    _require_none_pending(asked_at, pending)


def _require_none_pending(asked_at: int, pending: dict[str, None]) -> None:
    if pending:
        raise WireFormatError(
            "An assistant message with 'tool_calls' must be followed by tool messages responding "
            "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
            f"{', '.join(pending)}",
            param=f"messages.[{asked_at}].role",
        )


class ChatCompletions(OpenAIErrors):
    """``POST …/chat/completions``."""

    __slots__ = ()  # a format keeps nothing between requests: the wire does

    name = "chat_completions"
    request_id_header = "x-request-id"
    path_suffix = "/chat/completions"
    conversation = "messages"

    def read(
        self, body: JSON, earlier: Turn | None = None, *, url: str = "", counted: bool = False
    ) -> Turn:
        messages = require(body, "messages", list, NAME)
        options = body.get("stream_options")
        if options is not None and not isinstance(options, dict):  # read only as it renders
            raise WireFormatError(
                f"unsolvable: the {NAME} request is not in the shape its API takes: "
                f"'stream_options' must be an object, got {options!r:.80}"
            )
        if options is not None and not body.get("stream"):
            raise WireFormatError(
                "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
                param="stream_options",
            )
        require_one_answer(body.get("n"), "n")
        start = read_from(earlier)
        require_objects(messages, "messages", NAME, start=start)
        _require_answers(messages, start)
        taken = () if earlier is None else earlier.conversation
        return Turn.of(
            body,
            system=[],
            items=len(messages),
            conversation=(*taken, *map(freeze, messages[start:])),
            tools=_tools_offered(body),
        )

    def render(self, reply: JSON, usage: Usage, turn: Turn, *, step: int) -> WireResponse:
        if turn.stream:
            return WireResponse.sse(_chunks(reply, usage, turn, step))
        return WireResponse.json(_completion(reply, usage, turn, step))

    def response_id(self, step: int, turn: Turn) -> str | None:
        return None

    def context_error(self, tokens: int, window: int) -> WireResponse:
        message = (
            f"This model's maximum context length is {window} tokens. However, your messages "
            f"resulted in {tokens} tokens. Please reduce the length of the messages."
        )
        return openai_context_error(message, "messages")


CHAT_COMPLETIONS = ChatCompletions()
