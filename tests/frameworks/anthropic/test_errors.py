"""A failure the fake makes on Anthropic's path is the one the API makes: a request it cannot
take for the moment is a 529 ``overloaded_error`` (Anthropic answers no 503), so the
``anthropic`` SDK retries it as in production and, past its retries, raises its own
`OverloadedError`; a message of a role the API does not take is its final 400."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("anthropic")

import anthropic

import unsolvable
from unsolvable import Code, Session, Stop, scenarios
from unsolvable.wire import Wire


def test_an_overload_past_the_retries_is_an_overloaded_error() -> None:
    caught: list[anthropic.APIStatusError] = []

    def agent(session: Session) -> Stop:
        with Wire(session, transient_failures=3) as fake:
            client = fake.anthropic_client()
            with pytest.raises(anthropic.APIStatusError) as refused:
                client.messages.create(
                    model="claude-sonnet-5",
                    max_tokens=64,
                    messages=[{"role": "user", "content": "hi"}],
                )
        caught.append(refused.value)
        return Stop(code=Code.ERROR_FATAL, reason=str(refused.value))

    record = unsolvable.run(agent, scenarios.get("constant-return/repeat"))
    error = caught[0]
    assert isinstance(error, anthropic.OverloadedError) and error.status_code == 529
    assert isinstance(error.body, dict) and error.body["type"] == "error"
    assert error.body["error"]["type"] == "overloaded_error"
    assert (record.observed.steps, record.observed.transport_attempts) == (0, 3)


@pytest.mark.parametrize("role", ["tool", "developer"])
def test_a_message_of_a_role_the_api_does_not_take_is_refused(role: str) -> None:
    """A Chat Completions habit carried over — a tool's result, or the developer's prompt, as
    a message of its own role — is refused as the API refuses it, not read as the user's turn
    (the API takes ``user``, ``assistant`` and ``system`` messages)."""
    caught: list[anthropic.APIStatusError] = []

    def agent(session: Session) -> Stop:
        with Wire(session) as fake:
            client = fake.anthropic_client()
            with pytest.raises(anthropic.APIStatusError) as refused:
                client.messages.create(
                    model="claude-sonnet-5",
                    max_tokens=64,
                    messages=[
                        {"role": "user", "content": "hi"},
                        {"role": role, "content": "be brief"},  # type: ignore[misc, list-item]
                    ],
                )
        caught.append(refused.value)
        return Stop(code=Code.ERROR_FATAL, reason=str(refused.value))

    record = unsolvable.run(agent, scenarios.get("constant-return/repeat"))
    error = caught[0]
    assert isinstance(error, anthropic.BadRequestError) and isinstance(error.body, dict)
    assert error.body["error"]["type"] == "invalid_request_error"
    assert "role" in error.body["error"]["message"]
    assert (record.observed.steps, record.observed.transport_attempts) == (0, 1), "no retry"


@pytest.mark.parametrize(
    ("keep", "message"),
    [
        (1, "messages.1: `tool_use` ids were found without `tool_result` blocks"),
        (5, "messages.2: unexpected `tool_use_id` found in `tool_result` blocks"),
    ],
    ids=["a-result-dropped", "a-result-for-no-call"],
)
def test_a_tool_use_left_unanswered_or_a_result_for_no_call_is_refused(
    keep: int, message: str
) -> None:
    """Production refuses a conversation whose ``tool_use`` and ``tool_result`` blocks do not
    pair, so an agent that answers only the first of the fan-out supervisor's four calls (or
    answers a call it was not asked) is refused on the wire too, not answered."""
    caught: list[anthropic.APIStatusError] = []
    tools: Any = [{"name": "delegate", "input_schema": {"type": "object"}}]

    def agent(session: Session) -> Stop:
        with Wire(session) as fake:
            client = fake.anthropic_client()
            messages: list[Any] = [{"role": "user", "content": "audit"}]
            reply = client.messages.create(
                model="claude-sonnet-5", max_tokens=4096, messages=messages, tools=tools
            )
            uses = [block for block in reply.content if block.type == "tool_use"]
            answered = [*(use.id for use in uses), "toolu_elsewhere"][:keep]
            results = [
                {"type": "tool_result", "tool_use_id": use, "content": "{}"} for use in answered
            ]
            messages += [
                {"role": "assistant", "content": reply.model_dump(exclude_none=True)["content"]},
                {"role": "user", "content": results},
            ]
            with pytest.raises(anthropic.APIStatusError) as refused:
                client.messages.create(
                    model="claude-sonnet-5", max_tokens=4096, messages=messages, tools=tools
                )
        caught.append(refused.value)
        return Stop(code=Code.ERROR_FATAL, reason=str(refused.value))

    record = unsolvable.run(agent, scenarios.get("fan-out/four-workers"))
    error = caught[0]
    assert isinstance(error, anthropic.BadRequestError) and isinstance(error.body, dict)
    assert error.body["error"]["type"] == "invalid_request_error"
    assert str(error.body["error"]["message"]).startswith(message)
    assert (record.observed.steps, record.observed.transport_attempts) == (1, 2), "no retry"
