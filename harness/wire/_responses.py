"""Consumes an OpenAI Responses API request, produces the response (JSON or its SSE events).

The OpenAI Agents SDK speaks this by default; input items are read into Chat Completions messages
(function calls merged into the assistant turn they belong to) before the scripted model sees them.

A ``namespace`` tool (how the Codex CLI offers an MCP server's tools) groups functions that are
called with ``"namespace"`` beside ``"name"``: a call without it is not routed ("unsupported
call"). The scripted model sees each such function by its qualified name,
``<namespace>__<name>`` (Codex's own spelling of an MCP tool, ``mcp__<server>__<tool>``), and a
call to a qualified name is written back split, so namespaces need no mapping of their own.
"""

from __future__ import annotations

from typing import Any

from unsolvable._types import JSON
from unsolvable.adapters.kit import text_of
from unsolvable.wire._errors import WireFormatError
from unsolvable.wire._exchange import WireResponse
from unsolvable.wire._json_text import shared, string, value
from unsolvable.wire._turn import (
    CREATED,
    Turn,
    arguments_of,
    continuation,
    openai_context_error,
    openai_error,
    read_by_identity,
    tool_calls_of,
)

__all__ = ["RESPONSES", "response_id"]

NAME = "OpenAI Responses"

SEPARATOR = "__"
"""Between a namespace and a function's name in the qualified name the scripted model sees."""
ROLES = {"developer": "system", "system": "system", "user": "user", "assistant": "assistant"}
"""Responses API roles as Chat Completions roles (``developer`` is the newer ``system``)."""


def response_id(step: int) -> str:
    """The id of the response to step ``step``: what ``previous_response_id`` names later."""
    return f"resp_unsolvable_{step}"


_last: tuple[list[JSON], list[JSON]] = ([], [])
"""The items of the request read last, and the Chat Completions messages they became (the
instructions apart): each request converts only the items it adds (`continuation`), as
Anthropic's messages are read; converting every item of every call made a call's cost grow with
the conversation. Replaced whole, so threads never see half of it; its messages are
never changed after (the one a new function call would be merged into is copied first)."""


def _messages(body: JSON) -> list[JSON]:
    global _last
    items = body.get("input")
    if isinstance(items, str):
        items = [{"role": "user", "content": items}]
    elif items is None:
        items = []
    elif not isinstance(items, list):
        raise WireFormatError(
            f"unsolvable: an {NAME} request's 'input' must be text or a list of items, got "
            f"{items!r:.80}"
        )
    converted, added = continuation(items, _last, "input", NAME)
    messages = list(converted)
    if added and messages and messages[-1].get("role") == "assistant":
        last = messages[-1]  # a function call added next is merged into it: merge into a copy
        calls = last.get("tool_calls")
        messages[-1] = {**last, "tool_calls": list(calls)} if calls is not None else dict(last)
    for item in added:
        _add_item(messages, item)
    _last = (items, messages)  # shared with the next request's reading, never changed after
    if body.get("instructions"):
        return [{"role": "system", "content": text_of(body["instructions"])}, *messages]
    return list(messages)


def _add_item(messages: list[JSON], item: JSON) -> None:
    kind = item.get("type", "message")
    if kind == "message":
        role = ROLES.get(str(item.get("role")), "user")
        messages.append({"role": role, "content": text_of(item.get("content"))})
    elif kind == "function_call":
        name = _qualified(item.get("namespace"), str(item.get("name")))
        call = {
            "id": item.get("call_id"),
            "type": "function",
            "function": {"name": name, "arguments": item.get("arguments") or "{}"},
        }
        last = messages[-1] if messages else None
        if last is None or last.get("role") != "assistant":
            last = {"role": "assistant", "content": None}
            messages.append(last)
        last.setdefault("tool_calls", []).append(call)
    elif kind == "function_call_output":
        output = item.get("output")
        content = output if isinstance(output, str) else text_of(output)
        messages.append({"role": "tool", "tool_call_id": item.get("call_id"), "content": content})
    elif kind != "reasoning":
        messages.append({"role": "user", "content": f"[{kind} item]"})


def _qualified(namespace: object, name: str) -> str:
    return f"{namespace}{SEPARATOR}{name}" if namespace else name


def _namespaced(body: JSON) -> dict[str, tuple[str, str]]:
    """Each function offered inside a ``namespace`` tool: its qualified name, and the namespace
    and name it is called by."""
    return {
        _qualified(tool["name"], str(inner.get("name"))): (
            str(tool["name"]),
            str(inner.get("name")),
        )
        for tool in body.get("tools") or ()
        if tool.get("type") == "namespace"
        for inner in tool.get("tools") or ()
    }


def _tool_names(body: JSON) -> tuple[str, ...]:
    if body.get("tool_choice") == "none":
        return ()
    return _names(body.get("tools"))


@read_by_identity
def _names(tools: Any) -> tuple[str, ...]:
    names: list[str] = []
    for tool in tools or ():
        if tool.get("type") == "namespace":
            inner = tool.get("tools") or ()
            names += (_qualified(tool["name"], str(t.get("name"))) for t in inner)
        else:
            names.append(str(tool.get("name", tool.get("type", ""))))
    return tuple(names)


def _text_part(text: str) -> JSON:
    return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}


def _message_item(text: str, step: int, status: str = "completed") -> JSON:
    content = [_text_part(text)] if status == "completed" else []
    return {
        "type": "message",
        "id": f"msg_unsolvable_{step}",
        "status": status,
        "role": "assistant",
        "content": content,
    }


def _call_item(call: JSON, namespaced: dict[str, tuple[str, str]]) -> JSON:
    name = call["function"]["name"]
    namespace, name = namespaced.get(name, (None, name))
    return {
        "type": "function_call",
        "id": f"fc_{call['id']}",
        "call_id": call["id"],
        **({"namespace": namespace} if namespace else {}),
        "name": name,
        "arguments": arguments_of(call),
        "status": "completed",
    }


def _output(reply: JSON, step: int, turn: Turn) -> list[JSON]:
    items = [_message_item(reply["content"], step)] if reply.get("content") else []
    namespaced = _namespaced(turn.body)
    return [*items, *(_call_item(c, namespaced) for c in tool_calls_of(reply))]


def _item_text(call: JSON, namespaced: dict[str, tuple[str, str]]) -> str:
    """`_call_item` as text."""
    namespace, name = namespaced.get(call["function"]["name"], (None, call["function"]["name"]))
    item = string(f"fc_{call['id']}")
    named = f'"name": {value(name)}'
    if namespace:
        named += f', "namespace": {value(namespace)}'
    return (
        f'{{"arguments": {string(arguments_of(call))}, "call_id": {value(call["id"])}, '
        f'"id": {item}, {named}, "status": "completed", '
        '"type": "function_call"}'
    )


def _output_text(reply: JSON, step: int, body: JSON) -> str:
    """`_output` as text."""
    items = []
    if reply.get("content"):
        text = string(reply["content"])
        part = f'{{"annotations": [], "logprobs": [], "text": {text}, "type": "output_text"}}'
        items.append(
            f'{{"content": [{part}], "id": "msg_unsolvable_{step}", "role": "assistant", '
            '"status": "completed", "type": "message"}'
        )
    calls = tool_calls_of(reply)
    if calls:
        namespaced = _namespaced(body)
        items += (_item_text(call, namespaced) for call in calls)
    return ", ".join(items)


def _usage_text(usage: tuple[int, int]) -> str:
    input_tokens, output_tokens = usage
    return (
        f'{{"input_tokens": {input_tokens}, "input_tokens_details": '
        f'{{"cache_write_tokens": 0, "cached_tokens": 0}}, "output_tokens": '
        f'{output_tokens}, "output_tokens_details": {{"reasoning_tokens": 0}}, '
        f'"total_tokens": {input_tokens + output_tokens}}}'
    )


def _response_text(reply: JSON | None, usage: tuple[int, int], turn: Turn, step: int) -> str:
    """The response, completed with ``reply`` and its ``usage`` or opened without one (as
    streaming first sends it), written from a template (`unsolvable.wire._json_text`)."""
    body = turn.body
    output, status, written = "", "in_progress", "null"
    if reply is not None:
        output, status, written = _output_text(reply, step, body), "completed", _usage_text(usage)
    parallel = "true" if body.get("parallel_tool_calls", True) else "false"
    return (
        f'{{"created_at": {CREATED}, "error": null, "id": {string(response_id(step))}, '
        f'"incomplete_details": null, "instructions": {shared(body.get("instructions"))}, '
        f'"max_output_tokens": {value(body.get("max_output_tokens"))}, '
        f'"metadata": {value(body.get("metadata") or {})}, "model": {string(turn.model)}, '
        f'"object": "response", "output": [{output}], '
        f'"parallel_tool_calls": {parallel}, '
        f'"previous_response_id": {value(body.get("previous_response_id"))}, '
        f'"status": "{status}", "temperature": {value(body.get("temperature"))}, '
        f'"text": {{"format": {{"type": "text"}}}}, '
        f'"tool_choice": {value(body.get("tool_choice") or "auto")}, '
        f'"tools": {shared(body.get("tools") or [])}, "top_p": {value(body.get("top_p"))}, '
        f'"truncation": "disabled", "usage": {written}}}'
    )


def _response_event(kind: str, response: str, number: int) -> tuple[str, str]:
    """An event carrying a whole response, written around its text."""
    return kind, f'{{"response": {response}, "sequence_number": {number}, "type": "{kind}"}}'


class Responses:
    """``POST …/responses``."""

    name = "responses"
    path_suffix = "/responses"
    conversation = "input"

    def read(self, body: JSON) -> Turn:
        return Turn.of(body, _messages(body), _tool_names(body))

    def render(self, reply: JSON, usage: tuple[int, int], turn: Turn, *, step: int) -> WireResponse:
        if turn.stream:
            return WireResponse.sse(self._events(reply, usage, turn, step=step))
        return WireResponse.json_text(_response_text(reply, usage, turn, step))

    def _events(
        self, reply: JSON, usage: tuple[int, int], turn: Turn, *, step: int
    ) -> list[tuple[str | None, Any]]:
        opening = _response_text(None, usage, turn, step)
        events: list[tuple[str | None, Any]] = [
            _response_event("response.created", opening, 0),
            _response_event("response.in_progress", opening, 1),
        ]
        for index, item in enumerate(_output(reply, step, turn)):
            for e in _item_events(item, index):
                events.append((e["type"], {**e, "sequence_number": len(events)}))
        completed = _response_text(reply, usage, turn, step)
        events.append(_response_event("response.completed", completed, len(events)))
        return events

    def error(self, status: int, message: str) -> WireResponse:
        return openai_error(status, message)

    def context_error(self, tokens: int, window: int) -> WireResponse:
        """The Responses API names no numbers in its refusal."""
        message = (
            "Your input exceeds the context window of this model. Please adjust your input and "
            "try again."
        )
        return openai_context_error(message, "input")


def _item_events(item: JSON, index: int) -> list[JSON]:
    """The events that stream one output item: added, its deltas, done."""
    where = {"item_id": item["id"], "output_index": index}
    if item["type"] == "function_call":
        opening = {**item, "arguments": "", "status": "in_progress"}
        middle = [
            {"type": "response.function_call_arguments.delta", **where, "delta": item["arguments"]},
            {
                "type": "response.function_call_arguments.done",
                **where,
                "arguments": item["arguments"],
                "name": item["name"],
            },
        ]
    else:
        text = item["content"][0]["text"]
        opening = {**item, "content": [], "status": "in_progress"}
        part = {**where, "content_index": 0}
        middle = [
            {"type": "response.content_part.added", **part, "part": _text_part("")},
            {"type": "response.output_text.delta", **part, "delta": text, "logprobs": []},
            {"type": "response.output_text.done", **part, "text": text, "logprobs": []},
            {"type": "response.content_part.done", **part, "part": _text_part(text)},
        ]
    return [
        {"type": "response.output_item.added", "output_index": index, "item": opening},
        *middle,
        {"type": "response.output_item.done", "output_index": index, "item": item},
    ]


RESPONSES = Responses()
