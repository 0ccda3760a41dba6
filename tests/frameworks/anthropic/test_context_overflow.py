"""A request over the scenario's context window, refused on the wire the way Anthropic refuses
it: the ``anthropic`` SDK raises `anthropic.BadRequestError` (400, ``invalid_request_error``,
"prompt is too long: N tokens > M maximum"), streamed or not, and the body is the SDK's own
`ErrorResponse`."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("anthropic")

import anthropic
from anthropic.types.shared import ErrorResponse

import unsolvable
from unsolvable import Code, Session, Stop, scenarios
from unsolvable.wire import Wire

PROMPT = "x" * 12_000
"""About 3,000 tokens: over the 1,500-token window of context-overflow's scenarios."""


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_messages_raises_bad_request_prompt_is_too_long(stream: bool) -> None:
    caught: list[anthropic.BadRequestError] = []

    def agent(session: Session) -> Stop:
        with Wire(session) as wire:
            client = wire.anthropic_client(_strict_response_validation=True)
            messages = [{"role": "user", "content": PROMPT}]
            with pytest.raises(anthropic.BadRequestError) as refused:
                reply = client.messages.create(  # type: ignore[call-overload]
                    model="m", max_tokens=64, messages=messages, stream=stream
                )
                list(reply) if stream else reply
        caught.append(refused.value)
        return Stop(code=Code.ERROR_FATAL, reason=str(refused.value))

    record = unsolvable.run(agent, scenarios.get("context-overflow/irreducible-document"))
    assert (record.observed.steps, record.observed.transport_attempts) == (1, 1), "no retry"
    error = caught[0]
    assert error.status_code == 400
    body = ErrorResponse.model_validate(error.body, strict=True)
    assert (body.type, body.error.type) == ("error", "invalid_request_error")
    assert re.fullmatch(r"prompt is too long: \d{4} tokens > 1500 maximum", body.error.message)
