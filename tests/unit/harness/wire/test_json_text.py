"""Every format writes its bodies, streamed and not, from a template (`unsolvable.wire._json_text`):
the bytes must be the ones `sorted_json` gives for the body as a dict, written here as the APIs
document it, whatever the reply and the request hold."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from tests.unit.harness.wire.conftest import render
from unsolvable._json import sorted_json
from unsolvable.adapters.kit import reply_usage
from unsolvable.wire._anthropic import ANTHROPIC_MESSAGES
from unsolvable.wire._chat import CHAT_COMPLETIONS
from unsolvable.wire._exchange import encode_sse
from unsolvable.wire._json_text import SHARED_MEMO, shared, value
from unsolvable.wire._responses import RESPONSES, _item_events, _output, response_id
from unsolvable.wire._turn import CREATED, Turn, arguments_of, tool_calls_of

TEXT = st.text(max_size=12)
"""Any characters: quotes, backslashes, control characters and non-ASCII ones included."""
SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | TEXT
JSON_VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=6,
)
CALLS = st.lists(
    st.builds(
        lambda identity, name, arguments: {
            "id": identity,
            "type": "function",
            "function": {"name": name, "arguments": sorted_json(arguments)},
        },
        TEXT,
        TEXT,
        st.dictionaries(TEXT, JSON_VALUES, max_size=3),
    ),
    max_size=3,
)
REPLIES = st.builds(
    lambda content, calls, prompt, completion: {
        "role": "assistant",
        "content": content,
        **({"tool_calls": calls} if calls else {}),
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    },
    st.none() | TEXT,
    CALLS,
    st.integers(0, 10**6),
    st.integers(0, 10**6),
)
STEPS = st.integers(1, 10**5)


def _tool_call(call: dict[str, Any]) -> dict[str, Any]:
    function = {"name": call["function"]["name"], "arguments": arguments_of(call)}
    return {"id": call["id"], "type": "function", "function": function}


def _chunks(reply: dict[str, Any], turn: Turn, step: int) -> bytes:
    """The streamed completion as the API documents its chunks: each a dict."""
    head = {
        "id": f"chatcmpl-unsolvable-{step}",
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": turn.model,
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> tuple[None, dict[str, Any]]:
        choice = {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
        return None, {**head, "choices": [choice]}

    events: list[tuple[None, Any]] = [chunk({"role": "assistant", "content": ""})]
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
        events.append((None, {**head, "choices": [], "usage": reply_usage(reply).to_openai()}))
    return encode_sse([*events, (None, "[DONE]")]).encode()


def _completion(reply: dict[str, Any], turn: Turn, step: int) -> dict[str, Any]:
    calls = [_tool_call(c) for c in tool_calls_of(reply)]
    message: dict[str, Any] = {"role": "assistant", "content": reply.get("content")}
    message["refusal"] = None
    if calls:
        message["tool_calls"] = calls
    finish = "tool_calls" if calls else "stop"
    return {
        "id": f"chatcmpl-unsolvable-{step}",
        "object": "chat.completion",
        "created": CREATED,
        "model": turn.model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": reply_usage(reply).to_openai(),
    }


def _message(reply: dict[str, Any], turn: Turn, step: int) -> dict[str, Any]:
    """The Anthropic message as the API documents it."""
    blocks: list[dict[str, Any]] = []
    if reply.get("content"):
        blocks.append({"type": "text", "text": reply["content"]})
    for call in tool_calls_of(reply):
        function = call["function"]
        use = {"type": "tool_use", "id": call["id"], "name": function["name"]}
        blocks.append({**use, "input": json.loads(function["arguments"])})
    usage = reply_usage(reply)
    return {
        "id": f"msg_unsolvable_{step}",
        "type": "message",
        "role": "assistant",
        "model": turn.model,
        "content": blocks,
        "stop_reason": "tool_use" if tool_calls_of(reply) else "end_turn",
        "stop_sequence": None,
        "usage": {
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        },
    }


def _message_events(reply: dict[str, Any], turn: Turn, step: int) -> bytes:
    """The streamed Anthropic message as the API documents its events: each a dict."""
    message = _message(reply, turn, step)
    opening = {**message, "content": [], "stop_reason": None}
    opening["usage"] = {**message["usage"], "output_tokens": 0}
    events: list[dict[str, Any]] = [{"type": "message_start", "message": opening}]
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
    return encode_sse((e["type"], e) for e in events).encode()


def _response(reply: dict[str, Any] | None, turn: Turn, step: int) -> dict[str, Any]:
    body = turn.body
    usage = None
    if reply is not None:
        counts = reply_usage(reply)
        usage = {
            "input_tokens": counts.input_tokens,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": counts.output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": counts.input_tokens + counts.output_tokens,
        }
    return {
        "id": response_id(step),
        "object": "response",
        "created_at": CREATED,
        "status": "completed" if reply is not None else "in_progress",
        "model": turn.model,
        "output": [] if reply is None else _output(reply, step, turn),
        "usage": usage,
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


def _response_events(reply: dict[str, Any], turn: Turn, step: int) -> bytes:
    opening = _response(None, turn, step)
    events = [
        {"type": "response.created", "response": opening},
        {"type": "response.in_progress", "response": opening},
    ]
    for index, item in enumerate(_output(reply, step, turn)):
        events += _item_events(item, index)
    events.append({"type": "response.completed", "response": _response(reply, turn, step)})
    return encode_sse(
        (e["type"], {**e, "sequence_number": n}) for n, e in enumerate(events)
    ).encode()


@given(reply=REPLIES, model=TEXT, step=STEPS)
def test_a_chat_completion_is_written_as_its_dict_with_sorted_keys(
    reply: dict[str, Any], model: str, step: int
) -> None:
    turn = CHAT_COMPLETIONS.read({"model": model, "messages": []})
    written = render(CHAT_COMPLETIONS, reply, turn, step=step).body
    assert written == sorted_json(_completion(reply, turn, step)).encode()


@given(reply=REPLIES, model=TEXT, step=STEPS, usage=st.booleans())
def test_a_streamed_chat_completion_is_written_as_its_chunks_with_sorted_keys(
    reply: dict[str, Any], model: str, step: int, usage: bool
) -> None:
    options = {"stream_options": {"include_usage": True}} if usage else {}
    turn = CHAT_COMPLETIONS.read({"model": model, "messages": [], "stream": True, **options})
    written = render(CHAT_COMPLETIONS, reply, turn, step=step).body
    assert written == _chunks(reply, turn, step)


@given(reply=REPLIES, model=TEXT, step=STEPS)
def test_an_anthropic_message_is_written_as_its_dict_with_sorted_keys(
    reply: dict[str, Any], model: str, step: int
) -> None:
    turn = ANTHROPIC_MESSAGES.read({"model": model, "max_tokens": 9, "messages": []})
    written = render(ANTHROPIC_MESSAGES, reply, turn, step=step).body
    assert written == sorted_json(_message(reply, turn, step)).encode()


@given(reply=REPLIES, model=TEXT, step=STEPS)
def test_a_streamed_anthropic_message_is_written_as_its_events_with_sorted_keys(
    reply: dict[str, Any], model: str, step: int
) -> None:
    body = {"model": model, "max_tokens": 9, "messages": [], "stream": True}
    turn = ANTHROPIC_MESSAGES.read(body)
    written = render(ANTHROPIC_MESSAGES, reply, turn, step=step).body
    assert written == _message_events(reply, turn, step)


OPTIONAL = st.none() | SCALARS
RESPONSES_BODIES = st.fixed_dictionaries(
    {"model": TEXT, "input": st.just([])},
    optional={
        "instructions": st.none() | TEXT,
        "tools": st.lists(
            st.fixed_dictionaries({"type": st.just("function"), "name": TEXT})
            | st.fixed_dictionaries(
                {
                    "type": st.just("namespace"),
                    "name": st.text(min_size=1, max_size=6),
                    "tools": st.lists(st.fixed_dictionaries({"name": TEXT}), max_size=2),
                }
            ),
            max_size=3,
        ),
        "tool_choice": st.none() | st.sampled_from(["auto", "required"]) | JSON_VALUES,
        "parallel_tool_calls": st.booleans() | st.none(),
        "previous_response_id": OPTIONAL,
        "metadata": st.none() | st.dictionaries(TEXT, TEXT, max_size=2),
        "temperature": OPTIONAL,
        "top_p": OPTIONAL,
        "max_output_tokens": OPTIONAL,
    },
)


NAMESPACED_CALL = {
    "role": "assistant",
    "content": None,
    "tool_calls": [{"id": "c", "type": "function", "function": {"name": "s", "arguments": "{}"}}],
    "usage": {"prompt_tokens": 1, "completion_tokens": 1},
}


@given(reply=REPLIES, body=RESPONSES_BODIES, step=STEPS, namespaced=st.booleans())
@example(
    reply=NAMESPACED_CALL,
    body={
        "model": "m",
        "input": [],
        "tools": [{"type": "namespace", "name": "ns", "tools": [{"name": "f"}]}],
    },
    step=1,
    namespaced=True,
)
def test_a_responses_response_and_its_stream_are_written_as_their_dicts_with_sorted_keys(
    reply: dict[str, Any], body: dict[str, Any], step: int, namespaced: bool
) -> None:
    turn = RESPONSES.read(body)
    functions = [
        f"{tool['name']}__{inner['name']}"
        for tool in body.get("tools") or ()
        if tool["type"] == "namespace"
        for inner in tool["tools"]
    ]
    if namespaced and functions:  # a call to a namespaced function is written back split
        for call, name in zip(reply.get("tool_calls") or (), functions, strict=False):
            call["function"]["name"] = name
    written = render(RESPONSES, reply, turn, step=step).body
    assert written == sorted_json(_response(reply, turn, step)).encode()
    streamed = render(RESPONSES, reply, RESPONSES.read({**body, "stream": True}), step=step).body
    assert streamed == _response_events(reply, turn, step)


def test_a_shared_value_is_written_once_per_object_and_never_taken_for_an_equal_one() -> None:
    tools = [{"name": "search", "strict": True}]
    assert shared(tools) == sorted_json(tools) and shared(tools) is shared(tools)
    equal = [{"name": "search", "strict": 1}]  # == tools, but written otherwise
    assert shared(equal) == value(equal) != shared(tools)


def test_the_shared_memo_is_bounded() -> None:
    from unsolvable.wire import _json_text

    values = [[n] for n in range(3 * SHARED_MEMO)]
    assert [shared(v) for v in values] == [f"[{n}]" for n in range(3 * SHARED_MEMO)]
    assert len(_json_text._shared) <= SHARED_MEMO
