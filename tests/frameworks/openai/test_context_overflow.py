"""A request over the scenario's context window, refused on the wire the way OpenAI refuses it:
the ``openai`` SDK raises `openai.BadRequestError` with the code ``context_length_exceeded`` on
Chat Completions and on the Responses API, streamed or not, and the body is the SDK's own
`ErrorObject`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("openai")

import openai
from openai.types.shared import ErrorObject

import unsolvable
from unsolvable import Code, Session, Stop, scenarios
from unsolvable.wire import Wire

PROMPT = "x" * 12_000
"""About 3,000 tokens: over the 1,500-token window of context-overflow's scenarios."""
WINDOW = scenarios.get("context-overflow/irreducible-document")


def _refused(call: Callable[[openai.OpenAI], Any]) -> openai.BadRequestError:
    caught: list[openai.BadRequestError] = []

    def agent(session: Session) -> Stop:
        with Wire(session) as wire, pytest.raises(openai.BadRequestError) as refused:
            call(wire.openai_client(_strict_response_validation=True))
        caught.append(refused.value)
        return Stop(code=Code.ERROR_FATAL, reason=str(refused.value))

    record = unsolvable.run(agent, WINDOW)
    assert (record.observed.steps, record.observed.transport_attempts) == (1, 1), "no retry"
    assert record.observed.refusals == {"context_window": 1}
    return caught[0]


def _chat(stream: bool) -> Callable[[openai.OpenAI], Any]:
    def call(client: openai.OpenAI) -> Any:
        messages = [{"role": "user", "content": PROMPT}]
        reply = client.chat.completions.create(model="m", messages=messages, stream=stream)  # type: ignore[call-overload]
        return list(reply) if stream else reply

    return call


def _responses(stream: bool) -> Callable[[openai.OpenAI], Any]:
    def call(client: openai.OpenAI) -> Any:
        reply = client.responses.create(model="m", input=PROMPT, stream=stream)  # type: ignore[call-overload]
        return list(reply) if stream else reply

    return call


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_chat_completions_raises_bad_request_context_length_exceeded(stream: bool) -> None:
    error = _refused(_chat(stream))
    assert (error.status_code, error.code, error.param) == (
        400,
        "context_length_exceeded",
        "messages",
    )
    assert error.message.startswith("Error code: 400 - ")
    body = ErrorObject.model_validate(error.body, strict=True)
    assert body.type == "invalid_request_error"
    assert body.message.startswith("This model's maximum context length is 1500 tokens. However, ")
    assert body.message.endswith(" tokens. Please reduce the length of the messages.")


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_the_responses_api_raises_bad_request_context_length_exceeded(stream: bool) -> None:
    error = _refused(_responses(stream))
    assert (error.status_code, error.code, error.param) == (400, "context_length_exceeded", "input")
    body = ErrorObject.model_validate(error.body, strict=True)
    assert body.message == (
        "Your input exceeds the context window of this model. Please adjust your input and try "
        "again."
    )
