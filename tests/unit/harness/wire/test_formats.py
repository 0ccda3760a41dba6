"""Each wire format reads a request into one conversation and renders the session's reply back.

Conformance to the vendors' own response models is checked where the SDKs are installed
(``tests/frameworks/openai`` and ``tests/frameworks/anthropic``); here, the translation itself.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.unit.harness.wire.conftest import render
from unsolvable import Session
from unsolvable._offered import OfferedTool
from unsolvable.wire import WireFormatError
from unsolvable.wire._anthropic import ANTHROPIC_MESSAGES
from unsolvable.wire._chat import CHAT_COMPLETIONS
from unsolvable.wire._exchange import WireResponse
from unsolvable.wire._gemini import GEMINI, GEMINI_STREAM
from unsolvable.wire._responses import RESPONSES
from unsolvable.wire._turn import WireFormat

REPLY = {
    "role": "assistant",
    "content": "Searching",
    "tool_calls": [
        {
            "id": "call_1_0",
            "type": "function",
            "function": {"name": "search", "arguments": '{"q": "x"}'},
        }
    ],
    "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
}
BODIES: dict[str, dict[str, object]] = {
    "chat_completions": {
        "model": "m",
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [{"type": "function", "function": {"name": "search"}}],
    },
    "responses": {"model": "m", "input": "hi", "tools": [{"type": "function", "name": "search"}]},
    "anthropic_messages": {
        "model": "m",
        "max_tokens": 9,
        "tools": [{"name": "search"}],
        "messages": [{"role": "user", "content": "hi"}],
    },
}
FORMATS = {f.name: f for f in (CHAT_COMPLETIONS, RESPONSES, ANTHROPIC_MESSAGES)}


def _events(body: bytes) -> list[dict[str, Any]]:
    lines = body.decode().splitlines()
    return [json.loads(line[6:]) for line in lines if line.startswith("data: {")]


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_every_format_reads_the_user_turn_and_the_tools_offered(name: str) -> None:
    turn = FORMATS[name].read(BODIES[name])
    assert turn.messages[-1] == {"role": "user", "content": "hi"} and _names(turn.tools) == (
        "search",
    )


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_tool_choice_none_offers_no_tools_so_the_model_gives_its_final_answer(name: str) -> None:
    choice = {"type": "none"} if name == "anthropic_messages" else "none"
    assert FORMATS[name].read({**BODIES[name], "tool_choice": choice}).tools == ()


CHAT_TOOL = {"type": "function", "function": {"name": "search", "parameters": {}}}
"""A tool as Chat Completions takes it (`Session.openai_tools`), its name one level down."""
RESPONSES_TOOL = {"type": "function", "name": "search", "parameters": {}}
"""A tool as the Responses API takes it, its name at the top."""


@pytest.mark.parametrize(
    ("name", "tool", "said", "param"),
    [
        ("responses", CHAT_TOOL, "Missing required parameter: 'tools[0].name'.", "tools[0].name"),
        ("anthropic_messages", CHAT_TOOL, "tools.0.name: Field required", None),
        (
            "chat_completions",
            RESPONSES_TOOL,
            "Missing required parameter: 'tools[0].function'.",
            "tools[0].function",
        ),
    ],
)
def test_a_tool_in_another_apis_shape_is_refused_where_its_api_refuses_it(
    name: str, tool: dict[str, object], said: str, param: str | None
) -> None:
    """An agent that hands `Session.openai_tools` to another API, or a Responses API tool to
    Chat Completions, is refused as in production, not answered with calls of tools it never
    named."""
    with pytest.raises(WireFormatError) as refused:
        FORMATS[name].read({**BODIES[name], "tools": [tool]})
    assert str(refused.value) == said and refused.value.param == param
    if param is not None:
        assert refused.value.code == "missing_required_parameter"


def _render(fmt: WireFormat, stream: bool) -> bytes:
    usage = {"stream_options": {"include_usage": True}} if stream else {}
    body = {**BODIES[fmt.name], "stream": stream, **usage}
    return render(fmt, REPLY, fmt.read(body), step=3).body


def test_chat_completions_carries_the_tool_call_and_usage() -> None:
    data = json.loads(_render(CHAT_COMPLETIONS, stream=False))
    choice = data["choices"][0]
    assert choice["finish_reason"] == "tool_calls" and data["usage"]["prompt_tokens"] == 11
    assert choice["message"]["tool_calls"][0]["function"]["arguments"] == '{"q": "x"}'


def test_chat_completions_streams_chunks_then_usage_then_done() -> None:
    body = _render(CHAT_COMPLETIONS, stream=True)
    chunks = _events(body)
    assert body.endswith(b"data: [DONE]\n\n") and chunks[-1]["usage"]["total_tokens"] == 18
    assert chunks[-2]["choices"][0]["finish_reason"] == "tool_calls"


def test_responses_output_has_a_message_and_a_function_call() -> None:
    data = json.loads(_render(RESPONSES, stream=False))
    kinds = [item["type"] for item in data["output"]]
    assert kinds == ["message", "function_call"] and data["usage"]["output_tokens"] == 7


def test_responses_stream_is_numbered_and_ends_with_the_completed_response() -> None:
    events = _events(_render(RESPONSES, stream=True))
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    assert events[-1]["type"] == "response.completed"
    assert events[-1]["response"]["output"][1]["call_id"] == "call_1_0"


def test_anthropic_message_uses_tool_use_blocks_and_stop_reason() -> None:
    data = json.loads(_render(ANTHROPIC_MESSAGES, stream=False))
    assert [b["type"] for b in data["content"]] == ["text", "tool_use"]
    assert data["stop_reason"] == "tool_use" and data["content"][1]["input"] == {"q": "x"}


def test_anthropic_stream_sends_input_json_deltas_and_final_usage() -> None:
    events = _events(_render(ANTHROPIC_MESSAGES, stream=True))
    kinds = [e["type"] for e in events]
    assert kinds[0] == "message_start" and kinds[-2:] == ["message_delta", "message_stop"]
    assert {"type": "input_json_delta", "partial_json": '{"q": "x"}'} in [
        e.get("delta") for e in events
    ]


def test_responses_history_merges_calls_into_the_assistant_turn() -> None:
    items = [
        {"role": "user", "content": [{"type": "input_text", "text": "hi"}]},
        {"type": "function_call", "call_id": "c1", "name": "search", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "[]"},
    ]
    turn = RESPONSES.read({"model": "m", "instructions": "be brief", "input": items})
    roles = [m["role"] for m in turn.messages]
    assert roles == ["system", "user", "assistant", "tool"]
    assert turn.messages[2]["tool_calls"][0]["id"] == "c1"


ITEMS = st.lists(
    st.one_of(
        st.builds(
            lambda role, text: {"role": role, "content": text},
            st.sampled_from(["user", "assistant", "developer", "system"]),
            st.text(max_size=3),
        ),
        st.builds(
            lambda n: {"type": "function_call", "call_id": f"c{n}", "name": "s", "arguments": "{}"},
            st.integers(0, 3),
        ),
        st.builds(
            lambda n: {"type": "function_call_output", "call_id": f"c{n}", "output": "[]"},
            st.integers(0, 3),
        ),
        st.just({"type": "reasoning"}),
    ),
    max_size=8,
)


@given(items=ITEMS, instructions=st.sampled_from(["", "be brief"]))
def test_responses_reading_an_input_leaves_it_as_sent_and_reads_alike_every_time(
    items: list[dict[str, Any]], instructions: str
) -> None:
    """Calls are merged into the assistant turn they belong to in messages of the reading's
    own, never in the items sent; an input whose calls and outputs do not pair is refused, the
    same way every time, and left as sent too."""
    body = {"model": "m", "instructions": instructions, "input": items}
    sent = json.loads(json.dumps(body))
    try:
        first = RESPONSES.read(body).messages
    except WireFormatError as refused:
        with pytest.raises(WireFormatError) as again:
            RESPONSES.read(body)
        assert str(again.value) == str(refused) and body == sent
        return
    assert body == sent and RESPONSES.read(body).messages == first


NAMESPACED = {
    "model": "m",
    "input": [
        {"role": "user", "content": "hi"},
        {"type": "function_call", "call_id": "c1", "namespace": "mcp__s", "name": "search"},
        {"type": "function_call_output", "call_id": "c1", "output": "[]"},
    ],
    "tools": [
        {"type": "function", "name": "exec_command"},
        {"type": "namespace", "name": "mcp__s", "tools": [{"type": "function", "name": "search"}]},
    ],
}
"""How the Codex CLI offers an MCP server's tools, and sends back a call it made to one."""


def test_responses_namespace_tools_and_past_calls_are_read_by_their_qualified_names() -> None:
    turn = RESPONSES.read(NAMESPACED)
    assert _names(turn.tools) == ("exec_command", "mcp__s__search")
    assert turn.messages[1]["tool_calls"][0]["function"]["name"] == "mcp__s__search"


@pytest.mark.parametrize("stream", [False, True])
def test_responses_a_call_to_a_qualified_name_is_written_with_its_namespace(stream: bool) -> None:
    reply = {
        **REPLY,
        "tool_calls": [
            {
                **REPLY["tool_calls"][0],
                "function": {  # type: ignore[index]
                    "name": "mcp__s__search",
                    "arguments": "{}",
                },
            }
        ],
    }
    turn = RESPONSES.read({**NAMESPACED, "stream": stream})
    body = render(RESPONSES, reply, turn, step=3).body
    output = _events(body)[-1]["response"]["output"] if stream else json.loads(body)["output"]
    assert (output[1]["namespace"], output[1]["name"]) == ("mcp__s", "search")


def test_responses_a_call_outside_any_namespace_carries_none() -> None:
    turn = RESPONSES.read(NAMESPACED)
    assert "namespace" not in json.loads(render(RESPONSES, REPLY, turn, step=3).body)["output"][1]


def test_anthropic_history_turns_tool_results_into_tool_messages() -> None:
    messages = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "search", "input": {"q": 1}}],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "t1",
                    "content": [{"type": "text", "text": "[]"}],
                }
            ],
        },
    ]
    turn = ANTHROPIC_MESSAGES.read(
        {"model": "m", "max_tokens": 9, "system": "be brief", "messages": messages}
    )
    assert [m["role"] for m in turn.messages] == ["system", "user", "assistant", "tool"]
    assert turn.messages[3] == {"role": "tool", "tool_call_id": "t1", "content": "[]"}


def test_an_anthropic_message_of_a_role_and_a_text_reads_as_itself() -> None:
    """It is a Chat Completions message already; an empty one is dropped and one of blocks
    converted."""
    user = {"role": "user", "content": "hi"}
    said = {"role": "assistant", "content": "on it"}
    blocks = {"role": "user", "content": [{"type": "text", "text": "more"}]}
    empty = {"role": "user", "content": ""}
    body = {"model": "m", "max_tokens": 9, "messages": [user, said, empty, blocks]}
    messages = ANTHROPIC_MESSAGES.read(body).messages
    assert messages == [user, said, {**blocks, "content": "more"}]


def test_a_final_answer_has_no_tool_call_in_any_format(session: Session) -> None:
    reply = session.call_model([{"role": "user", "content": "hi"}], ())
    for fmt in FORMATS.values():
        text = render(fmt, reply, fmt.read(BODIES[fmt.name]), step=1).body.decode()
        assert "tool_use" not in text and "function_call" not in text and "I have completed" in text


GEMINI_BODY: dict[str, Any] = {
    "systemInstruction": {"parts": [{"text": "be brief"}]},
    "contents": [
        {"role": "user", "parts": [{"text": "hi"}]},
        {
            "role": "model",
            "parts": [
                {"text": "thinking", "thought": True},
                {"functionCall": {"name": "search", "args": {"q": "x"}}},
            ],
        },
        {"role": "user", "parts": [{"functionResponse": {"name": "search", "response": {}}}]},
    ],
    "tools": [{"functionDeclarations": [{"name": "search"}]}],
}
"""A conversation as the ``google-genai`` SDK sends it: no ids on the call or its response."""
GEMINI_PATH = "/v1beta/models/gemini-2.5-flash:generateContent"


def test_gemini_reads_the_system_instruction_calls_and_responses_paired_by_position() -> None:
    turn = GEMINI.read(GEMINI_BODY, url=GEMINI_PATH)
    assert [m["role"] for m in turn.messages] == ["system", "user", "assistant", "tool"]
    call = turn.messages[2]["tool_calls"][0]
    assert turn.messages[2]["content"] is None, "a thought is not the model's text"
    assert turn.messages[3]["tool_call_id"] == call["id"] and _names(turn.tools) == ("search",)
    assert (turn.model, turn.stream) == ("gemini-2.5-flash", False)


def test_gemini_function_calling_mode_none_offers_no_tools() -> None:
    body = {**GEMINI_BODY, "toolConfig": {"functionCallingConfig": {"mode": "NONE"}}}
    assert GEMINI.read(body).tools == ()


def test_gemini_answers_parts_with_the_finish_reason_and_usage_metadata() -> None:
    data = json.loads(render(GEMINI, REPLY, GEMINI.read(GEMINI_BODY, url=GEMINI_PATH), step=3).body)
    candidate = data["candidates"][0]
    assert candidate["content"]["parts"][1]["functionCall"] == {
        "id": "call_1_0",
        "name": "search",
        "args": {"q": "x"},
    }
    assert (candidate["finishReason"], data["modelVersion"]) == ("STOP", "gemini-2.5-flash")
    usage = {"promptTokenCount": 11, "candidatesTokenCount": 7, "totalTokenCount": 18}
    assert data["usageMetadata"] == usage


def _gemini_stream(query: str) -> WireResponse:
    return render(
        GEMINI_STREAM, REPLY, GEMINI_STREAM.read(GEMINI_BODY, url=f"{GEMINI_PATH}{query}"), step=3
    )


def test_gemini_streams_a_part_per_chunk_the_last_with_the_finish_reason_and_usage() -> None:
    streamed = _gemini_stream("?alt=sse")
    assert dict(streamed.headers)["content-type"].startswith("text/event-stream")
    chunks = _events(streamed.body)
    assert [len(c["candidates"][0]["content"]["parts"]) for c in chunks] == [1, 1]
    assert [c["candidates"][0].get("finishReason") for c in chunks] == [None, "STOP"]
    assert chunks[-1]["usageMetadata"]["totalTokenCount"] == 18


def test_gemini_streams_one_json_array_of_the_chunks_unless_asked_for_sse() -> None:
    array = _gemini_stream("")
    assert dict(array.headers)["content-type"].startswith("application/json")
    assert json.loads(array.body) == _events(_gemini_stream("?alt=sse").body)


@pytest.mark.parametrize(
    ("status", "name"),
    [
        (400, "INVALID_ARGUMENT"),
        (401, "UNAUTHENTICATED"),
        (404, "NOT_FOUND"),
        (429, "RESOURCE_EXHAUSTED"),
        (503, "UNAVAILABLE"),
    ],
)
def test_gemini_errors_are_in_googles_shape(status: int, name: str) -> None:
    body = json.loads(GEMINI.error(status, "why").body)
    assert body == {"error": {"code": status, "message": "why", "status": name}}


def _names(tools: tuple[OfferedTool, ...]) -> tuple[str, ...]:
    """The names of the tools a turn offers (each is also charged as it was sent)."""
    return tuple(tool.name for tool in tools)
