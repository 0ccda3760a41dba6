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

from collections.abc import Sequence
from types import MappingProxyType
from typing import Any

from unsolvable._frozen import freeze
from unsolvable._model import Usage
from unsolvable._offered import OfferedTool
from unsolvable._text import text_of
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
    require_objects,
    tool_calls_of,
)

__all__ = ["RESPONSES", "RESPONSES_INPUT_TOKENS", "no_call_for", "no_output_for", "response_id"]

NAME = "OpenAI Responses"

SEPARATOR = "__"
"""Between a namespace and a function's name in the qualified name the scripted model sees."""
ROLES = MappingProxyType(
    {"developer": "system", "system": "system", "user": "user", "assistant": "assistant"}
)
"""Responses API roles as Chat Completions roles (``developer`` is the newer ``system``)."""


def response_id(step: int) -> str:
    """The id of the response to step ``step``: what ``previous_response_id`` names later."""
    return f"resp_unsolvable_{step}"


def _items(body: JSON) -> list[Any]:
    items = body.get("input")
    if isinstance(items, str):
        return [{"role": "user", "content": items}]
    if items is None:
        return []
    if not isinstance(items, list):
        raise WireFormatError(
            f"unsolvable: an {NAME} request's 'input' must be text or a list of items, got "
            f"{items!r:.80}"
        )
    return items


def _system(body: JSON) -> list[JSON]:
    """Instructions are a system message, and are not carried over to a later response."""
    if body.get("instructions"):
        return [{"role": "system", "content": text_of(body["instructions"])}]
    return []


def _add_item(messages: list[JSON], item: JSON) -> None:
    """Appends what ``item`` becomes to ``messages``, frozen; a function call joins the
    assistant message before it, which is replaced by one with the call added."""
    kind = item.get("type", "message")
    if kind == "message":
        role = ROLES.get(str(item.get("role")), "user")
        messages.append(freeze({"role": role, "content": text_of(item.get("content"))}))
    elif kind == "function_call":
        name = _qualified(item.get("namespace"), str(item.get("name")))
        call = {
            "id": item.get("call_id"),
            "type": "function",
            "function": {"name": name, "arguments": item.get("arguments") or "{}"},
        }
        last = messages[-1] if messages else None
        if last is None or last.get("role") != "assistant":
            messages.append(freeze({"role": "assistant", "content": None, "tool_calls": [call]}))
        else:
            messages[-1] = freeze({**last, "tool_calls": [*(last.get("tool_calls") or ()), call]})
    elif kind == "function_call_output":
        output = item.get("output")
        content = output if isinstance(output, str) else text_of(output)
        tool = {"role": "tool", "tool_call_id": item.get("call_id"), "content": content}
        messages.append(freeze(tool))
    elif kind != "reasoning":
        messages.append(freeze({"role": "user", "content": f"[{kind} item]"}))


def _require_outputs(items: list[Any], start: int, taken: Sequence[JSON] | None) -> None:
    """Every function call from index ``start`` answered by a ``function_call_output`` after it,
    and every output answering a call before it — among these items, or the messages ``taken``
    from the conversation's earlier items — or the API's refusal: an agent that drops a result
    is refused in production. The items before ``start`` were checked when they were read, so
    none of their calls is still unanswered. ``taken`` is ``None`` for a request that continues
    a stored response, whose outputs answer the calls of a response the wire keeps apart
    (`Turn.continues`): the wire checks those."""
    pending: dict[str, None] = {}
    for item in items[start:]:
        kind, call = item.get("type"), str(item.get("call_id"))
        if kind == "function_call":
            pending[call] = None
        elif kind == "function_call_output" and call in pending:
            del pending[call]
        elif kind == "function_call_output" and taken is not None and not _called(taken, call):
            raise no_call_for(call)
    if pending:
        raise no_output_for(next(iter(pending)))


def no_output_for(call: str) -> WireFormatError:
    """The API's refusal of a request that leaves the function call ``call`` without its
    output."""
    return WireFormatError(f"No tool output found for function call {call}.", param="input")


def no_call_for(call: str) -> WireFormatError:
    """The API's refusal of a function call output that answers ``call``, which no call before it
    made."""
    return WireFormatError(
        f"No tool call found for function call output with call_id {call}.", param="input"
    )


def _called(messages: Sequence[JSON], call: str) -> bool:
    """Whether one of ``messages`` made the tool call ``call``: read only for an output that
    answers no call of its own request's new items, which is rare."""
    return any(str(made.get("id")) == call for m in messages for made in m.get("tool_calls") or ())


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


def _tools_offered(body: JSON) -> tuple[OfferedTool, ...]:
    """Each tool of the request, sent whole: its entry in ``tools``, or a namespace's entry for
    it, under its qualified name."""
    _require_function_names(body.get("tools") or ())
    if body.get("tool_choice") == "none":
        return ()
    offered: list[OfferedTool] = []
    for tool in body.get("tools") or ():
        if tool.get("type") == "namespace":
            inner = tool.get("tools") or ()
            offered += (
                OfferedTool.sent(_qualified(tool["name"], str(t.get("name"))), t) for t in inner
            )
        else:
            offered.append(OfferedTool.sent(str(tool.get("name", tool.get("type", ""))), tool))
    return tuple(offered)


def _require_function_names(tools: Sequence[JSON]) -> None:
    """Each function tool named at its top level, or the API's refusal: a tool in the Chat
    Completions shape (``{"type": "function", "function": {...}}``, `Session.openai_tools`)
    names its function one level down, where the Responses API does not read it."""
    for index, tool in enumerate(tools):
        if tool.get("type") == "function" and not isinstance(tool.get("name"), str):
            raise WireFormatError(
                f"Missing required parameter: 'tools[{index}].name'.",
                param=f"tools[{index}].name",
                code="missing_required_parameter",
            )


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


def _usage(usage: Usage) -> JSON:
    return {
        "input_tokens": usage.input_tokens,
        "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
        "output_tokens": usage.output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": usage.input_tokens + usage.output_tokens,
    }


def _response(reply: JSON | None, usage: Usage, turn: Turn, step: int) -> JSON:
    """The response, completed with ``reply`` and its ``usage`` or opened without them (as
    streaming first sends it); the request's settings echoed as the API echoes them."""
    body = turn.body
    return {
        "id": response_id(step),
        "object": "response",
        "created_at": CREATED,
        "status": "in_progress" if reply is None else "completed",
        "model": turn.model,
        "output": [] if reply is None else _output(reply, step, turn),
        "usage": None if reply is None else _usage(usage),
        "instructions": body.get("instructions"),
        "tools": body.get("tools") or [],
        "tool_choice": body.get("tool_choice") or "auto",
        "parallel_tool_calls": bool(body.get("parallel_tool_calls", True)),
        "previous_response_id": body.get("previous_response_id"),
        "metadata": body.get("metadata") or {},
        "temperature": body.get("temperature"),
        "top_p": body.get("top_p"),
        "max_output_tokens": body.get("max_output_tokens"),
        "text": {"format": {"type": "text"}},
        "truncation": "disabled",
        "error": None,
        "incomplete_details": None,
    }


class Responses(OpenAIErrors):
    """``POST …/responses``."""

    __slots__ = ()  # a format keeps nothing between requests: the wire does

    name = "responses"
    request_id_header = "x-request-id"
    path_suffix = "/responses"
    conversation = "input"

    def read(
        self, body: JSON, earlier: Turn | None = None, *, url: str = "", counted: bool = False
    ) -> Turn:
        items = _items(body)
        start = read_from(earlier)
        require_objects(items, "input", NAME, start=start)
        previous = body.get("previous_response_id")
        taken = () if earlier is None else earlier.conversation
        _require_outputs(items, start, None if previous else taken)
        conversation = list(taken)
        for item in items[start:]:
            _add_item(conversation, item)
        return Turn.of(
            body,
            system=_system(body),
            items=len(items),
            conversation=conversation,
            tools=_tools_offered(body),
            continues=str(previous) if previous else None,
        )

    def render(self, reply: JSON, usage: Usage, turn: Turn, *, step: int) -> WireResponse:
        if turn.stream:
            return WireResponse.sse(_events(reply, usage, turn, step))
        return WireResponse.json(_response(reply, usage, turn, step))

    def response_id(self, step: int, turn: Turn) -> str | None:
        """None when the request said ``"store": false``: the API keeps no such response, and
        refuses a request that continues it."""
        return None if turn.body.get("store") is False else response_id(step)

    def context_error(self, tokens: int, window: int) -> WireResponse:
        """The Responses API names no numbers in its refusal."""
        message = (
            "Your input exceeds the context window of this model. Please adjust your input and "
            "try again."
        )
        return openai_context_error(message, "input")


def _events(reply: JSON, usage: Usage, turn: Turn, step: int) -> list[tuple[str | None, Any]]:
    """The streamed response: created and in progress, each output item's events, completed;
    every event numbered in order."""
    opening = _response(None, usage, turn, step)
    events: list[JSON] = [
        {"type": "response.created", "response": opening},
        {"type": "response.in_progress", "response": opening},
    ]
    for index, item in enumerate(_output(reply, step, turn)):
        events += _item_events(item, index)
    events.append({"type": "response.completed", "response": _response(reply, usage, turn, step)})
    return [(e["type"], {**e, "sequence_number": n}) for n, e in enumerate(events)]


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


class ResponsesInputTokens:
    """``POST …/responses/input_tokens``: a Responses request, counted, its
    ``previous_response_id`` followed as the response it would create follows it."""

    __slots__ = ()

    name = "responses_input_tokens"
    path_suffix = "/responses/input_tokens"
    generating = RESPONSES

    def request(self, body: JSON) -> JSON:
        return body

    def render(self, tokens: int) -> WireResponse:
        """The SDK's `InputTokenCountResponse`, every field of it."""
        return WireResponse.json({"object": "response.input_tokens", "input_tokens": tokens})


RESPONSES_INPUT_TOKENS = ResponsesInputTokens()
