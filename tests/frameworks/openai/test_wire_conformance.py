"""Every body and every streamed event the fake writes in OpenAI's formats validates against the
``openai`` SDK's own response models (the SDK itself parses leniently, so this is stricter)."""

from __future__ import annotations

import json
import typing

import pytest

pytest.importorskip("openai")

from openai.types.chat import ChatCompletion, ChatCompletionChunk
from openai.types.responses import Response, ResponseStreamEvent

from tests.unit.harness.wire.conftest import render, start
from unsolvable import Session
from unsolvable.wire._chat import CHAT_COMPLETIONS
from unsolvable.wire._responses import RESPONSES

EVENT_MODELS = {
    typing.get_args(model.model_fields["type"].annotation)[0]: model
    for model in typing.get_args(typing.get_args(ResponseStreamEvent)[0])
}
"""Responses stream event models by their ``type`` literal."""


def _replies() -> list[dict[str, object]]:
    """A reply with text and a tool call, and a final answer (no tools offered)."""
    session: Session = start()
    ask = [{"role": "user", "content": "hi"}]
    return [session.call_model(ask, session.tools), session.call_model(ask, ())]


def _data(body: bytes) -> list[dict[str, object]]:
    lines = body.decode().splitlines()
    return [json.loads(line[6:]) for line in lines if line.startswith("data: {")]


@pytest.mark.parametrize("reply", _replies(), ids=["tool-call", "final-answer"])
def test_chat_completions_validate(reply: dict[str, object]) -> None:
    body = {"model": "m", "messages": []}
    ChatCompletion.model_validate_json(
        render(CHAT_COMPLETIONS, reply, CHAT_COMPLETIONS.read(body), step=1).body
    )
    streamed = {**body, "stream": True, "stream_options": {"include_usage": True}}
    chunks = render(CHAT_COMPLETIONS, reply, CHAT_COMPLETIONS.read(streamed), step=1)
    for chunk in _data(chunks.body):
        ChatCompletionChunk.model_validate(chunk)


@pytest.mark.parametrize("reply", _replies(), ids=["tool-call", "final-answer"])
def test_responses_validate(reply: dict[str, object]) -> None:
    body = {
        "model": "m",
        "input": "hi",
        "tools": [
            {"type": "function", "name": "search_invoices", "parameters": {}, "strict": False}
        ],
    }
    Response.model_validate_json(render(RESPONSES, reply, RESPONSES.read(body), step=1).body)
    events = render(RESPONSES, reply, RESPONSES.read({**body, "stream": True}), step=1)
    for event in _data(events.body):
        EVENT_MODELS[event["type"]].model_validate(event)
