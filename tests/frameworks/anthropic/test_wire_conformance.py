"""Every body and streamed event the fake writes as Anthropic Messages validates against the
``anthropic`` SDK's own models."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("anthropic")

from anthropic.types import Message, RawMessageStreamEvent
from pydantic import TypeAdapter

from tests.unit.harness.wire.conftest import render, start
from unsolvable.wire._anthropic import ANTHROPIC_MESSAGES

EVENTS = TypeAdapter(RawMessageStreamEvent)


def _replies() -> list[dict[str, object]]:
    session = start()
    ask = [{"role": "user", "content": "hi"}]
    return [session.call_model(ask, session.tools), session.call_model(ask, ())]


@pytest.mark.parametrize("reply", _replies(), ids=["tool-call", "final-answer"])
def test_messages_and_their_stream_validate(reply: dict[str, object]) -> None:
    body = {"model": "m", "max_tokens": 9, "messages": [{"role": "user", "content": "hi"}]}
    Message.model_validate_json(
        render(ANTHROPIC_MESSAGES, reply, ANTHROPIC_MESSAGES.read(body), step=1).body
    )
    events = render(
        ANTHROPIC_MESSAGES, reply, ANTHROPIC_MESSAGES.read({**body, "stream": True}), step=1
    ).body.decode()
    for line in events.splitlines():
        if line.startswith("data: "):
            EVENTS.validate_python(json.loads(line[6:]))
