"""Every body and streamed chunk the fake writes for the Gemini API validates against the
``google-genai`` SDK's own response model, and reads back as the reply: its text, its function
calls (id, name, arguments), its finish reason and its usage."""

from __future__ import annotations

import json
import re

import pytest

pytest.importorskip("google.genai")

from google.genai import types

from tests.unit.harness.wire.conftest import render, start
from unsolvable.wire import FAKE_API_KEY, GEMINI_BASE_URL, Wire
from unsolvable.wire._gemini import GEMINI, GEMINI_STREAM

BODY = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
PATH = "/v1beta/models/gemini-2.5-flash:generateContent"


def _replies() -> list[dict[str, object]]:
    session = start()
    ask = [{"role": "user", "content": "hi"}]
    return [session.call_model(ask, session.tools), session.call_model(ask, ())]


@pytest.mark.parametrize("reply", _replies(), ids=["tool-call", "final-answer"])
def test_responses_and_their_chunks_validate_and_read_back(reply: dict[str, object]) -> None:
    whole = types.GenerateContentResponse.model_validate(
        json.loads(render(GEMINI, reply, GEMINI.read(BODY, url=PATH), step=1).body)
    )
    calls = [
        (c["id"], c["function"]["name"], json.loads(c["function"]["arguments"]))  # type: ignore[index]
        for c in reply.get("tool_calls") or ()  # type: ignore[attr-defined]
    ]
    assert [(c.id, c.name, c.args) for c in whole.function_calls or ()] == calls
    assert whole.candidates and whole.candidates[0].finish_reason == types.FinishReason.STOP
    usage = reply["usage"]
    assert whole.usage_metadata is not None
    assert (
        whole.usage_metadata.prompt_token_count,
        whole.usage_metadata.candidates_token_count,
    ) == (
        usage["prompt_tokens"],  # type: ignore[index]
        usage["completion_tokens"],  # type: ignore[index]
    )
    turn = GEMINI_STREAM.read(BODY, url=f"{PATH}?alt=sse")
    streamed = render(GEMINI_STREAM, reply, turn, step=1).body
    chunks = [
        types.GenerateContentResponse.model_validate(json.loads(line[6:]))
        for line in streamed.decode().splitlines()
        if line.startswith("data: ")
    ]
    parts = [p for c in chunks for p in c.candidates[0].content.parts]  # type: ignore[index, union-attr]
    assert parts == [p for p in whole.candidates[0].content.parts]  # type: ignore[union-attr]
    assert chunks[-1].usage_metadata == whole.usage_metadata


@pytest.mark.parametrize("alt", [False, True], ids=["json-array", "sse"])
def test_a_rest_stream_is_one_json_array_unless_it_asks_for_sse(alt: bool) -> None:
    """A client of the REST API that does not ask for ``alt=sse`` reads the stream as the API
    sends it then: one JSON array, each item a chunk the SDK's model reads."""
    url = f"{GEMINI_BASE_URL}/v1beta/models/gemini-2.5-flash:streamGenerateContent"
    with Wire(start()) as fake, fake.httpx_client() as http:
        answer = http.post(
            url,
            params={"alt": "sse"} if alt else {},
            json={**BODY, "tools": [{"functionDeclarations": [{"name": "search_invoices"}]}]},
            headers={"x-goog-api-key": FAKE_API_KEY},
        )
    assert answer.status_code == 200, answer.text
    if alt:
        assert answer.headers["content-type"].startswith("text/event-stream")
        items = [json.loads(line[6:]) for line in answer.text.splitlines() if line[:6] == "data: "]
    else:
        assert answer.headers["content-type"].startswith("application/json")
        items = answer.json()
    chunks = [types.GenerateContentResponse.model_validate(item) for item in items]
    calls = [call.name for chunk in chunks for call in chunk.function_calls or ()]
    assert calls == ["search_invoices"]
    assert chunks[-1].candidates and chunks[-1].candidates[0].finish_reason == "STOP"


def _snake_cased(data: object) -> object:
    """``data`` with every member named as the API's proto names it (``system_instruction``),
    as Google's REST examples write a request; the values kept."""
    if isinstance(data, dict):
        return {
            re.sub(r"([A-Z])", r"_\1", key).lower(): _snake_cased(value)
            for key, value in data.items()
        }
    if isinstance(data, list):
        return [_snake_cased(item) for item in data]
    return data


def _asked(body: dict[str, object]) -> tuple[object, int]:
    """The API's answer to a REST client's ``body``, and the input tokens the session
    counted for it."""
    session = start()
    url = f"{GEMINI_BASE_URL}/v1beta/models/gemini-2.5-flash:generateContent"
    with Wire(session) as fake, fake.httpx_client() as http:
        answer = http.post(url, json=body, headers={"x-goog-api-key": FAKE_API_KEY})
    assert answer.status_code == 200, answer.text
    return answer.json(), session.finish().input_tokens


@pytest.mark.parametrize("mode", ["AUTO", "NONE"])
def test_a_request_in_the_apis_proto_names_is_read_as_in_the_sdks(mode: str) -> None:
    """The API reads ``system_instruction``, ``function_declarations``, ``tool_config``,
    ``function_call`` and ``function_response`` as their camelCase names: a REST client that
    spells them so (Google's curl examples do) is offered its tools, told its instructions and
    shown its calls' results, as the SDK's camelCase request is."""
    body = {
        "systemInstruction": {"parts": [{"text": "You audit invoices."}]},
        "contents": [
            {**BODY["contents"][0]},
            {"role": "model", "parts": [{"functionCall": {"name": "search_invoices", "args": {}}}]},
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"name": "search_invoices", "response": {"found": 0}}}
                ],
            },
        ],
        "tools": [{"functionDeclarations": [{"name": "search_invoices"}]}],
        "toolConfig": {"functionCallingConfig": {"mode": mode}},
    }
    camel, camel_tokens = _asked(body)
    snake, snake_tokens = _asked(_snake_cased(body))  # type: ignore[arg-type]
    assert (snake, snake_tokens) == (camel, camel_tokens)
    reply = types.GenerateContentResponse.model_validate(snake)
    assert bool(reply.function_calls) is (mode == "AUTO")
