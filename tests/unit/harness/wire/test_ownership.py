"""Nothing a scenario's model does to what it is handed reaches the agent, the wire or the count:
a model that tries to change every object of every request it gets is refused each time, and
sees the next request exactly as the agent sent it, charged what counting it from scratch
gives."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

import httpx2
import pytest

import unsolvable
from tests import _builders as b
from unsolvable import JSON, Ceilings, ModelRequest, ModelResponse, ToolCall
from unsolvable._model import estimate_tokens
from unsolvable.wire import Wire
from unsolvable.wire._anthropic import ANTHROPIC_MESSAGES
from unsolvable.wire._chat import CHAT_COMPLETIONS
from unsolvable.wire._gemini import GEMINI
from unsolvable.wire._responses import RESPONSES
from unsolvable.wire._turn import WireFormat

TOOLS = estimate_tokens([b.SEARCH.to_openai()])


CHANGES: dict[type, list[Callable[[Any], object]]] = {
    dict: [
        lambda d: d.__setitem__("vandalised", True),
        lambda d: d.update(vandalised=True),
        lambda d: d.setdefault("vandalised", True),
        lambda d: d.clear(),
        lambda d: d.popitem(),
    ],
    list: [
        lambda items: items.append("vandalised"),
        lambda items: items.extend(["vandalised"]),
        lambda items: items.insert(0, "vandalised"),
        lambda items: items.clear(),
        lambda items: items.reverse(),
    ],
}


def _vandalise(value: Any) -> None:
    """Tries every change on every dict and list in ``value``; each one must be refused."""
    for kind, changes in CHANGES.items():
        if isinstance(value, kind):
            for change in changes:
                with pytest.raises(TypeError, match="cannot be changed"):
                    change(value)
    members = value.values() if isinstance(value, dict) else value
    if isinstance(value, dict | list):
        for member in members:
            _vandalise(member)


class Vandal:
    """A model that keeps what it was asked (a copy), then tries to change all of it."""

    name = "vandal"

    def __init__(self) -> None:
        self.seen: list[list[JSON]] = []

    def respond(self, request: ModelRequest) -> ModelResponse:
        self.seen.append(json.loads(json.dumps(request.messages)))
        for message in request.messages:
            _vandalise(message)
        with pytest.raises(dataclasses.FrozenInstanceError):
            request.messages = ()  # type: ignore[misc]
        call = ToolCall(id=f"call_{request.step}_0", name="search", arguments={"q": "x"})
        return ModelResponse(content="Looking", tool_calls=(call,))


def _session(model: Vandal) -> unsolvable.Session:
    scenario = b.scenario(step_bound=50)
    setup = dataclasses.replace(scenario.build(0), model=model)
    return unsolvable.Session(scenario, setup, seed=0, ceilings=Ceilings())


def test_the_model_cannot_change_the_agents_own_messages() -> None:
    model = Vandal()
    session = _session(model)
    messages = [{"role": "user", "content": "go", "parts": [{"text": "a"}]}]
    sent = json.loads(json.dumps(messages))
    for _ in range(3):
        usage = session.call_model(messages, ["search"])["usage"]
        assert messages == sent and model.seen[-1] == sent
        assert usage["prompt_tokens"] == estimate_tokens(sent) + TOOLS
        messages.append({"role": "tool", "content": "nothing"})
        sent.append({"role": "tool", "content": "nothing"})


URLS = {
    "chat_completions": "https://api.openai.com/v1/chat/completions",
    "responses": "https://api.openai.com/v1/responses",
    "anthropic_messages": "https://api.anthropic.com/v1/messages",
}
KEYS = {"chat_completions": "messages", "responses": "input", "anthropic_messages": "messages"}


FORMATS = [CHAT_COMPLETIONS, RESPONSES, ANTHROPIC_MESSAGES]


@pytest.mark.parametrize("fmt", FORMATS, ids=[fmt.name for fmt in FORMATS])
def test_every_request_on_the_wire_is_read_as_sent_whatever_the_model_did(
    fmt: WireFormat,
) -> None:
    model = Vandal()
    session = _session(model)
    client = Wire(session).httpx2_client()
    conversation: list[JSON] = [{"role": "user", "content": "find the invoice"}]
    tools = [{"type": "function", "name": "search", "function": {"name": "search"}}]
    for step in range(4):
        body = {"model": "m", "max_tokens": 9, "tools": tools, KEYS[fmt.name]: conversation}
        reply = client.post(URLS[fmt.name], json=body)
        expected = fmt.read(json.loads(json.dumps(body))).messages
        assert model.seen[-1] == expected
        # the tool is charged as it was sent, its one entry
        assert _input_tokens(fmt, reply) == estimate_tokens([*expected, *tools])
        conversation = [*conversation, {"role": "user", "content": f"again {step}"}]


def test_a_continued_response_is_read_as_first_sent_whatever_the_model_did() -> None:
    model = Vandal()
    session = _session(model)
    client = Wire(session).httpx2_client()
    first = client.post(URLS["responses"], json={"model": "m", "input": "find the invoice"})
    said = {
        "role": "assistant",
        "content": "Looking",
        "tool_calls": [ToolCall(id="call_1_0", name="search", arguments={"q": "x"}).to_openai()],
    }
    output = {"type": "function_call_output", "call_id": "call_1_0", "output": "[]"}
    result = {"role": "tool", "tool_call_id": "call_1_0", "content": "[]"}
    then = {"role": "user", "content": "again"}
    body = {"model": "m", "input": [output, then], "previous_response_id": first.json()["id"]}
    for _ in range(2):  # the stored response is read again after the model had it
        client.post(URLS["responses"], json=body)
        seen = [{"role": "user", "content": "find the invoice"}, said, result, then]
        assert model.seen[-1] == seen


def _input_tokens(fmt: WireFormat, reply: httpx2.Response) -> int:
    usage = reply.json()["usage"]
    return int(usage["prompt_tokens" if fmt is CHAT_COMPLETIONS else "input_tokens"])


def test_every_gemini_request_is_read_as_sent_whatever_the_model_did() -> None:
    model = Vandal()
    session = _session(model)
    client = Wire(session).httpx2_client()
    url = "https://generativelanguage.googleapis.com/v1beta/models/m:generateContent"
    contents: list[JSON] = [{"role": "user", "parts": [{"text": "find the invoice"}]}]
    tools = [{"functionDeclarations": [{"name": "search"}]}]
    for step in range(4):
        body = {"contents": contents, "tools": tools}
        reply = client.post(url, json=body)
        expected = GEMINI.read(json.loads(json.dumps(body))).messages
        assert model.seen[-1] == expected
        sent = reply.json()["usageMetadata"]["promptTokenCount"]
        assert sent == estimate_tokens([*expected, *tools[0]["functionDeclarations"]])
        contents = [*contents, {"role": "user", "parts": [{"text": f"again {step}"}]}]
