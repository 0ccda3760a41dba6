"""A failure the fake makes on Anthropic's path is the one the API makes: a request it cannot
take for the moment is a 529 ``overloaded_error`` (Anthropic answers no 503), so the
``anthropic`` SDK retries it as in production and, past its retries, raises its own
`OverloadedError`; a message of a role the API does not take is its final 400."""

from __future__ import annotations

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
