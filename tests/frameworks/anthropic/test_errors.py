"""A failure the fake makes on Anthropic's path is the one the API makes: a request it cannot
take for the moment is a 529 ``overloaded_error`` (Anthropic answers no 503), so the
``anthropic`` SDK retries it as in production and, past its retries, raises its own
`OverloadedError`; a message of a role the API does not take, a system message out of the
place it takes one, a request without ``max_tokens`` and a call's result given twice are its
final 400."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("anthropic")

import anthropic
from anthropic.types import Message

import unsolvable
from tests.unit.harness.wire.conftest import start
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
    ("answer", "message"),
    [
        (lambda ids: ids[:1], "messages.1: `tool_use` ids were found without `tool_result` blocks"),
        (
            lambda ids: [*ids, "toolu_elsewhere"],
            "messages.2: unexpected `tool_use_id` found in `tool_result` blocks",
        ),
        (lambda ids: [*ids, ids[0]], "each tool_use must have a single result. Found multiple"),
    ],
    ids=["a-result-dropped", "a-result-for-no-call", "a-result-twice"],
)
def test_a_tool_use_left_unanswered_or_a_result_for_no_call_is_refused(
    answer: Callable[[list[str]], list[str]], message: str
) -> None:
    """Production refuses a conversation whose ``tool_use`` and ``tool_result`` blocks do not
    pair, so an agent that answers only the first of the fan-out supervisor's four calls (or
    answers a call it was not asked, or one call twice) is refused on the wire too, not
    answered."""
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
            answered = answer([use.id for use in uses])
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


def _refusal(**request: Any) -> tuple[anthropic.APIStatusError, Any]:
    """The API error the SDK raises when one Messages ``request`` on a fresh run is refused, and
    the run's record. It is posted as given: ``messages.create`` cannot leave out
    ``max_tokens``, from which it computes its timeout."""
    caught: list[anthropic.APIStatusError] = []

    def agent(session: Session) -> Stop:
        with Wire(session) as fake, pytest.raises(anthropic.APIStatusError) as refused:
            body = {"model": "claude-sonnet-5", **request}
            fake.anthropic_client().post("/v1/messages", body=body, cast_to=Message)
        caught.append(refused.value)
        return Stop(code=Code.ERROR_FATAL, reason=str(refused.value))

    record = unsolvable.run(agent, scenarios.get("constant-return/repeat"))
    return caught[0], record


def test_a_request_without_max_tokens_is_refused() -> None:
    """The API requires ``max_tokens``; an agent that leaves it out, as Chat Completions lets
    it, is refused in production, so it is refused here rather than answered."""
    error, record = _refusal(messages=[{"role": "user", "content": "hi"}])
    assert isinstance(error, anthropic.BadRequestError) and isinstance(error.body, dict)
    assert error.body["error"] == {
        "type": "invalid_request_error",
        "message": "max_tokens: Field required",
    }
    assert (record.observed.steps, record.observed.transport_attempts) == (0, 1), "no retry"


USER = {"role": "user", "content": "hi"}
ASSISTANT = {"role": "assistant", "content": "on it"}
SYSTEM = {"role": "system", "content": "be brief"}


@pytest.mark.parametrize(
    ("messages", "message"),
    [
        ([SYSTEM, USER], "messages.0: role 'system' must follow a 'user' message"),
        ([USER, ASSISTANT, SYSTEM], "messages.2: role 'system' must follow a 'user' message"),
        ([USER, SYSTEM, USER], "messages.1: role 'system' must be followed by an 'assistant'"),
    ],
    ids=["first", "after-the-assistant", "before-a-user"],
)
def test_a_system_message_out_of_its_place_is_refused(messages: list[Any], message: str) -> None:
    """A mid-conversation system message is taken where the API takes it (after a user turn,
    before the assistant's), and refused as the API refuses it anywhere else: a system prompt
    as the first message, Chat Completions' habit, belongs in ``system``."""
    error, record = _refusal(max_tokens=64, messages=messages)
    assert isinstance(error, anthropic.BadRequestError) and isinstance(error.body, dict)
    assert error.body["error"]["type"] == "invalid_request_error"
    assert str(error.body["error"]["message"]).startswith(message)
    assert (record.observed.steps, record.observed.transport_attempts) == (0, 1), "no retry"


@pytest.mark.parametrize(
    "messages",
    [
        [USER, SYSTEM],
        [USER, SYSTEM, ASSISTANT, USER],
        [USER, SYSTEM, {"role": "system", "content": []}, ASSISTANT, USER, SYSTEM],
    ],
    ids=["last", "before-the-assistant", "a-section"],
)
def test_a_system_message_in_its_place_is_answered(messages: list[Any]) -> None:
    """Where Claude Code and pydantic-ai put one: after the user's turn, last or before the
    assistant's, alone or with others (an effort-only entry, no content, among them)."""
    with Wire(start()) as fake:
        reply = fake.anthropic_client().messages.create(
            model="claude-sonnet-5", max_tokens=64, messages=messages
        )
    assert reply.type == "message"
    assert [(a.kind, a.status) for a in fake.attempts] == [("model", 200)]
