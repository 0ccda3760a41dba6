"""The providers' token-counting calls are answered, each with the input tokens the step it
counts would report: through each SDK's own counting call, beside the generating call it counts,
on a fresh conversation and on one grown by a tool call and its result. A count is no step: the
record of a run that counts is the record of the run that does not."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from google.genai import types

import unsolvable
from tests.unit.harness.wire.conftest import start
from unsolvable import CeilingHit, Session, Stop, TerminationRecord, scenarios
from unsolvable._errors import SessionClosed
from unsolvable._session import end_at_ceiling
from unsolvable.wire import (
    ANTHROPIC_BASE_URL,
    GEMINI_BASE_URL,
    OPENAI_BASE_URL,
    StrayRequest,
    ToolNames,
    Wire,
)

SYSTEM = "You are a careful agent. Stop when the task cannot be done."
GEMINI_MODEL = "gemini-2.5-flash"
GEMINI_PATH = f"{GEMINI_BASE_URL}/v1beta/models/{GEMINI_MODEL}"
RESULT = '{"invoices": []}'
"""What each tool call of the grown conversations answered."""


def _anthropic_request(session: Session) -> dict[str, Any]:
    tools = [
        {"name": s.name, "description": s.description, "input_schema": s.parameters}
        for s in session.tools
    ]
    user = {"role": "user", "content": session.task}
    return {"model": "claude-sonnet-4-5", "system": SYSTEM, "tools": tools, "messages": [user]}


def _anthropic_grown(request: dict[str, Any], reply: Any) -> None:
    """``request`` grown by ``reply`` and a result to each of its tool calls."""
    calls = [block for block in reply.content if block.type == "tool_use"]
    assert calls, "the scripted model calls a tool while tools are offered"
    uses = [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.input} for c in calls]
    results = [{"type": "tool_result", "tool_use_id": c.id, "content": RESULT} for c in calls]
    request["messages"] += [
        {"role": "assistant", "content": uses},
        {"role": "user", "content": results},
    ]


@pytest.mark.parametrize("beta", [False, True], ids=["messages", "beta-messages"])
def test_an_anthropic_count_is_the_usage_of_the_message_it_counts(
    session: Session, beta: bool
) -> None:
    with Wire(session) as wire:
        client = wire.anthropic_client()
        messages: Any = client.beta.messages if beta else client.messages
        # The SDK's beta client sends a beta header; its 0.x releases put ``?beta=true`` in the
        # path as well, which is read the same.
        query = {"extra_query": {"beta": "true"}} if beta else {}
        request = _anthropic_request(session)
        for _ in ("fresh", "grown"):
            counted = messages.count_tokens(**request, **query).input_tokens
            reply = messages.create(max_tokens=1024, **request, **query)
            assert counted == reply.usage.input_tokens
            _anthropic_grown(request, reply)
    assert [a.kind for a in wire.attempts] == ["count", "model"] * 2
    beta_query = [a.url.endswith("?beta=redacted") for a in wire.attempts if a.kind == "count"]
    assert beta_query == [beta, beta]


def test_a_count_reads_the_tools_in_the_agents_spelling(session: Session) -> None:
    """An agent that names the tools with a prefix (Claude Code's MCP tools) is counted the
    tokens of the scenario's tools it offers, as its steps are."""
    prefix = "mcp__unsolvable__"
    with Wire(session, tool_names=ToolNames(prefix=prefix)) as wire:
        messages = wire.anthropic_client().messages
        request = _anthropic_request(session)
        request["tools"] = [{**tool, "name": prefix + tool["name"]} for tool in request["tools"]]
        for _ in ("fresh", "grown"):
            counted = messages.count_tokens(**request).input_tokens
            reply = messages.create(max_tokens=1024, **request)
            assert counted == reply.usage.input_tokens
            _anthropic_grown(request, reply)


def _responses_request(session: Session) -> dict[str, Any]:
    tools = [
        {
            "type": "function",
            "name": s.name,
            "description": s.description,
            "parameters": s.parameters,
        }
        for s in session.tools
    ]
    user = {"role": "user", "content": session.task}
    return {"model": "gpt-5", "instructions": SYSTEM, "tools": tools, "input": [user]}


def _responses_added(reply: Any) -> list[dict[str, Any]]:
    """``reply``'s function calls and a result to each, as the next request's input items."""
    calls = [item for item in reply.output if item.type == "function_call"]
    assert calls, "the scripted model calls a tool while tools are offered"
    made = [
        {"type": "function_call", "call_id": c.call_id, "name": c.name, "arguments": c.arguments}
        for c in calls
    ]
    outputs = [
        {"type": "function_call_output", "call_id": c.call_id, "output": RESULT} for c in calls
    ]
    return [*made, *outputs]


def test_a_responses_count_is_the_usage_of_the_response_it_counts(session: Session) -> None:
    with Wire(session) as wire:
        client = wire.openai_client()
        request = _responses_request(session)
        for _ in ("fresh", "grown"):
            counted = client.responses.input_tokens.count(**request)
            reply = client.responses.create(**request)
            assert (counted.object, counted.input_tokens) == (
                "response.input_tokens",
                reply.usage.input_tokens if reply.usage else None,
            )
            request["input"] += _responses_added(reply)
        continued = {**request, "previous_response_id": reply.id, "input": _responses_added(reply)}
        counted = client.responses.input_tokens.count(**continued)
        reply = client.responses.create(**continued)
        assert reply.usage is not None and counted.input_tokens == reply.usage.input_tokens


def _gemini_grown(contents: list[Any], reply: types.GenerateContentResponse) -> None:
    """``contents`` grown by ``reply``'s turn and a response to each of its function calls."""
    calls = reply.function_calls or []
    assert calls and reply.candidates and reply.candidates[0].content
    contents.append(reply.candidates[0].content)
    responses = [
        types.Part(
            function_response=types.FunctionResponse(
                id=call.id, name=call.name, response={"output": RESULT}
            )
        )
        for call in calls
    ]
    contents.append(types.Content(role="user", parts=responses))


def _tools_config(session: Session) -> types.GenerateContentConfig:
    declarations = [
        types.FunctionDeclaration(
            name=s.name, description=s.description, parameters_json_schema=s.parameters
        )
        for s in session.tools
    ]
    return types.GenerateContentConfig(
        system_instruction=SYSTEM, tools=[types.Tool(function_declarations=declarations)]
    )


@pytest.mark.parametrize("aio", [False, True], ids=["sync", "async"])
def test_a_gemini_sdk_count_is_the_usage_of_the_contents_it_counts(
    session: Session, aio: bool
) -> None:
    """google-genai sends the contents alone (it refuses a system instruction or tools to the
    Gemini API's count), so the content generated from the same contents is what it counts."""
    with Wire(session) as wire:
        client = wire.gemini_client()
        contents: list[Any] = [types.Content(role="user", parts=[types.Part(text=session.task)])]
        # The conversation grows by a call the scripted model makes only when tools are offered.
        _gemini_grown(
            contents,
            client.models.generate_content(
                model=GEMINI_MODEL, contents=contents, config=_tools_config(session)
            ),
        )
        for grown in (contents[:1], contents):
            if aio:
                counted = asyncio.run(
                    client.aio.models.count_tokens(model=GEMINI_MODEL, contents=grown)
                )
            else:
                counted = client.models.count_tokens(model=GEMINI_MODEL, contents=grown)
            reply = client.models.generate_content(model=GEMINI_MODEL, contents=grown)
            assert reply.usage_metadata is not None
            assert counted.total_tokens == reply.usage_metadata.prompt_token_count


def test_a_gemini_count_of_a_whole_request_counts_its_system_instruction_and_tools(
    session: Session,
) -> None:
    """The REST API's other form of a count, ``generateContentRequest``, carries everything the
    request it counts sends."""
    declarations = [
        {"name": s.name, "description": s.description, "parametersJsonSchema": s.parameters}
        for s in session.tools
    ]
    request: dict[str, Any] = {
        "model": f"models/{GEMINI_MODEL}",
        "systemInstruction": {"parts": [{"text": SYSTEM}]},
        "tools": [{"functionDeclarations": declarations}],
        "contents": [{"role": "user", "parts": [{"text": session.task}]}],
    }
    with Wire(session) as wire:
        client = wire.httpx2_client()
        for _ in ("fresh", "grown"):
            counted = client.post(
                f"{GEMINI_PATH}:countTokens", json={"generateContentRequest": request}
            )
            reply = client.post(f"{GEMINI_PATH}:generateContent", json=request)
            assert counted.status_code == reply.status_code == 200
            answer = types.CountTokensResponse.model_validate(counted.json())
            usage = reply.json()["usageMetadata"]["promptTokenCount"]
            assert answer.total_tokens == usage and counted.json()["totalTokens"] == usage
            parts = reply.json()["candidates"][0]["content"]["parts"]
            request["contents"] += [
                {"role": "model", "parts": parts},
                {
                    "role": "user",
                    "parts": [
                        {"functionResponse": {"id": c["id"], "name": c["name"], "response": {}}}
                        for c in (p["functionCall"] for p in parts if "functionCall" in p)
                    ],
                },
            ]


@pytest.mark.parametrize(
    "body",
    [
        {"contents": [], "generateContentRequest": {"contents": []}},
        {"generateContentRequest": [{"role": "user", "parts": [{"text": "hi"}]}]},
    ],
    ids=["both-forms", "not-an-object"],
)
def test_a_gemini_count_takes_one_form_of_its_request(session: Session, body: Any) -> None:
    counted = Wire(session).httpx2_client().post(f"{GEMINI_PATH}:countTokens", json=body)
    assert counted.status_code == 400 and counted.json()["error"]["status"] == "INVALID_ARGUMENT"
    assert "either 'contents' or a 'generateContentRequest'" in counted.json()["error"]["message"]


REFUSED = {
    "anthropic an invalid role": (
        f"{ANTHROPIC_BASE_URL}/v1/messages",
        f"{ANTHROPIC_BASE_URL}/v1/messages/count_tokens",
        {"model": "m", "max_tokens": 1, "messages": [{"role": "tool", "content": "x"}]},
    ),
    "anthropic an unanswered tool call": (
        f"{ANTHROPIC_BASE_URL}/v1/messages",
        f"{ANTHROPIC_BASE_URL}/v1/messages/count_tokens",
        {
            "model": "m",
            "max_tokens": 1,
            "messages": [
                {"role": "user", "content": "hi"},
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "t1", "name": "n", "input": {}}],
                },
                {"role": "user", "content": "and?"},
            ],
        },
    ),
    "responses a result to no call": (
        f"{OPENAI_BASE_URL}/responses",
        f"{OPENAI_BASE_URL}/responses/input_tokens",
        {
            "model": "m",
            "input": [{"type": "function_call_output", "call_id": "c1", "output": "x"}],
        },
    ),
    "responses a response never served": (
        f"{OPENAI_BASE_URL}/responses",
        f"{OPENAI_BASE_URL}/responses/input_tokens",
        {"model": "m", "input": "hi", "previous_response_id": "resp_never"},
    ),
    "gemini an invalid role": (
        f"{GEMINI_PATH}:generateContent",
        f"{GEMINI_PATH}:countTokens",
        {"contents": [{"role": "assistant", "parts": [{"text": "x"}]}]},
    ),
    "anthropic a malformed body": (
        f"{ANTHROPIC_BASE_URL}/v1/messages",
        f"{ANTHROPIC_BASE_URL}/v1/messages/count_tokens",
        "{not json",
    ),
    "gemini a member of another type": (
        f"{GEMINI_PATH}:generateContent",
        f"{GEMINI_PATH}:countTokens",
        {"contents": [{"role": "model", "parts": [{"functionCall": "x"}]}]},
    ),
}


@pytest.mark.parametrize("case", REFUSED)
def test_a_count_is_refused_as_the_request_it_counts_is(case: str) -> None:
    generating, counting, body = REFUSED[case]
    session = start()
    client = Wire(session).httpx2_client()
    sent = {"content": body} if isinstance(body, str) else {"json": body}
    refused = client.post(generating, **sent)
    counted = client.post(counting, **sent)
    assert refused.status_code == 400, refused.text
    assert (counted.status_code, counted.json()) == (refused.status_code, refused.json())
    assert counted.headers["x-should-retry"] == "false"
    assert session.finish().steps == 0


def test_a_sub_agents_count_is_answered_on_its_prefixed_path(session: Session) -> None:
    with Wire(session) as wire:
        messages = wire.anthropic_client(agent="worker-1").messages
        request = _anthropic_request(session)
        counted = messages.count_tokens(**request).input_tokens
        reply = messages.create(max_tokens=1024, **request)
    assert counted == reply.usage.input_tokens
    assert [(a.kind, a.route, a.status) for a in wire.attempts] == [
        ("count", "anthropic_count_tokens", 200),
        ("model", "anthropic_messages", 200),
    ]
    assert "/agents/worker-1/v1/messages/count_tokens" in wire.attempts[0].url
    assert session.finish().steps_by_agent == {"worker-1": 1}


def test_chat_completions_has_no_count_and_other_calls_stay_strays(session: Session) -> None:
    client = Wire(session).httpx2_client()
    for url in (
        f"{OPENAI_BASE_URL}/chat/completions/input_tokens",
        f"{OPENAI_BASE_URL}/models",
    ):
        with pytest.raises(StrayRequest, match="matched no fake route"):
            client.post(url, json={"model": "m", "messages": []})


def test_a_count_is_no_transport_attempt_and_takes_no_injected_failure(session: Session) -> None:
    wire = Wire(session, transient_failures=1)
    client = wire.httpx2_client()
    request = {**_anthropic_request(session), "max_tokens": 1024}
    counted = client.post(f"{ANTHROPIC_BASE_URL}/v1/messages/count_tokens", json=request)
    failed = client.post(f"{ANTHROPIC_BASE_URL}/v1/messages", json=request)
    assert (counted.status_code, failed.status_code) == (200, 529)
    assert session.finish().transport_attempts == 1


def test_a_count_after_the_agent_returned_is_a_late_call_refused(session: Session) -> None:
    wire = Wire(session)
    messages = wire.anthropic_client(max_retries=0).messages
    session.returned()
    with pytest.raises(SessionClosed):
        messages.count_tokens(**_anthropic_request(session))
    assert session.late_call == "a token count by main"
    assert [(a.kind, a.status) for a in wire.attempts] == [("count", 0)]


def test_a_count_past_a_ceiling_raises_it(session: Session) -> None:
    end_at_ceiling(session, "wall_seconds")
    with pytest.raises(CeilingHit):
        Wire(session).anthropic_client().messages.count_tokens(**_anthropic_request(session))


STEPS = 3


def _on_anthropic(session: Session, wire: Wire, count: bool) -> list[int]:
    """Three steps on Anthropic's API, each counted first or not; their input tokens."""
    messages, request, usages = wire.anthropic_client().messages, _anthropic_request(session), []
    for _ in range(STEPS):
        if count:
            messages.count_tokens(**request)
        reply = messages.create(max_tokens=1024, **request)
        usages.append(reply.usage.input_tokens)
        _anthropic_grown(request, reply)
    return usages


def _on_responses(session: Session, wire: Wire, count: bool) -> list[int]:
    """Three steps on the Responses API, each continuing the last response by its id."""
    responses, request, usages = wire.openai_client().responses, _responses_request(session), []
    for _ in range(STEPS):
        if count:
            responses.input_tokens.count(**request)
        reply = responses.create(**request)
        assert reply.usage is not None
        usages.append(reply.usage.input_tokens)
        request = {**request, "previous_response_id": reply.id, "input": _responses_added(reply)}
    return usages


AGENTS = {"anthropic": _on_anthropic, "responses": _on_responses}


def _run(api: str, count: bool) -> tuple[TerminationRecord, list[int]]:
    usages: list[int] = []

    def agent(session: Session) -> Stop:
        with Wire(session) as wire:
            usages.extend(AGENTS[api](session, wire, count))
        return Stop(code="NO_PROGRESS", reason="the same answer three times")

    return unsolvable.run(agent, scenarios.get("constant-return/repeat")), usages


@pytest.mark.parametrize("api", sorted(AGENTS))
def test_a_count_between_calls_changes_no_usage_and_nothing_in_the_record(api: str) -> None:
    (counting, counting_usages), (plain, plain_usages) = _run(api, True), _run(api, False)
    assert counting.observed.steps == STEPS and counting.outcome == plain.outcome
    assert counting_usages == plain_usages
    assert json.dumps(counting.to_dict(), sort_keys=True) == json.dumps(
        plain.to_dict(), sort_keys=True
    )
