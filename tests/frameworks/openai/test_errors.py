"""Every refusal the fake makes on OpenAI's paths carries the ``type`` and ``code`` the API
gives it, so the ``openai`` SDK raises the class it raises in production with the same
`APIError.type` and `.code`: a server error is ``server_error`` with no code, a malformed body
an ``invalid_request_error`` with no code, a wrong key an ``invalid_request_error`` whose code
is ``invalid_api_key`` — never the type repeated as the code."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("openai")

import openai

import unsolvable
from unsolvable import Code, Session, Stop, TerminationRecord, scenarios
from unsolvable.wire import Wire

MODEL = "gpt-5-mini"
ASK = [{"role": "user", "content": "hi"}]


def _caught(
    ask: Callable[[openai.OpenAI], Any],
    make: Callable[[Wire], openai.OpenAI],
    scenario: str = "constant-return/repeat",
    **wire: Any,
) -> tuple[openai.APIStatusError, TerminationRecord]:
    """What the SDK raised for ``ask(client)``, the client made by ``make(wire)``, and the
    record of the run of ``scenario``."""
    caught: list[openai.APIStatusError] = []

    def agent(session: Session) -> Stop:
        with Wire(session, **wire) as fake, pytest.raises(openai.APIStatusError) as refused:
            ask(make(fake))
        caught.append(refused.value)
        return Stop(code=Code.ERROR_FATAL, reason=str(refused.value))

    record = unsolvable.run(agent, scenarios.get(scenario))
    return caught[0], record


def _in_process(wire: Wire) -> openai.OpenAI:
    return wire.openai_client()


def _chat(client: openai.OpenAI) -> Any:
    return client.chat.completions.create(model=MODEL, messages=ASK)  # type: ignore[arg-type]


def _responses(client: openai.OpenAI) -> Any:
    return client.responses.create(model=MODEL, input="hi")


@pytest.mark.parametrize("ask", [_chat, _responses], ids=["chat", "responses"])
def test_a_server_error_past_the_retries_is_a_server_error_with_no_code(
    ask: Callable[[openai.OpenAI], Any],
) -> None:
    error, record = _caught(ask, _in_process, transient_failures=3)
    assert isinstance(error, openai.InternalServerError) and error.status_code == 503
    assert (error.type, error.code, error.param) == ("server_error", None, None)
    assert (record.observed.steps, record.observed.transport_attempts) == (0, 3)


def _chat_malformed(client: openai.OpenAI) -> Any:
    return client.chat.completions.create(
        model=MODEL,
        messages=ASK,  # type: ignore[arg-type]
        extra_body={"messages": "not a list"},
    )


def _responses_malformed(client: openai.OpenAI) -> Any:
    return client.responses.create(model=MODEL, input="hi", extra_body={"input": 7})


@pytest.mark.parametrize("ask", [_chat_malformed, _responses_malformed], ids=["chat", "responses"])
def test_a_malformed_body_is_an_invalid_request_error_with_no_code(
    ask: Callable[[openai.OpenAI], Any],
) -> None:
    error, record = _caught(ask, _in_process)
    assert isinstance(error, openai.BadRequestError)
    assert (error.type, error.code) == ("invalid_request_error", None)
    assert (record.observed.steps, record.observed.transport_attempts) == (0, 1), "no retry"


def test_a_request_without_the_runs_key_is_an_authentication_error_invalid_api_key() -> None:
    def outsider(wire: Wire) -> openai.OpenAI:
        server = wire.serve()
        base = server.openai_base_url.replace(server.key, "0" * len(server.key))
        return openai.OpenAI(base_url=base, api_key="sk-wrong", max_retries=0)

    error, record = _caught(_chat, outsider)
    assert isinstance(error, openai.AuthenticationError)
    assert (error.type, error.code) == ("invalid_request_error", "invalid_api_key")
    assert record.observed.transport_attempts == 0


@pytest.mark.parametrize("store", [False, None], ids=["not-stored", "never-served"])
def test_continuing_a_response_the_api_does_not_hold_is_previous_response_not_found(
    store: bool | None,
) -> None:
    """A response made with ``store=False`` is kept nowhere, as one never served: a request that
    continues it is refused as the API refuses it, not answered from the wire's memory."""

    def ask(client: openai.OpenAI) -> Any:
        first = client.responses.create(model=MODEL, input="hi", store=False)
        previous = first.id if store is False else "resp_elsewhere"
        return client.responses.create(model=MODEL, input="again", previous_response_id=previous)

    error, record = _caught(ask, _in_process)
    assert isinstance(error, openai.BadRequestError)
    assert (error.type, error.param, error.code) == (
        "invalid_request_error",
        "previous_response_id",
        "previous_response_not_found",
    )
    assert isinstance(error.body, dict)
    assert str(error.body["message"]).startswith("Previous response with id 'resp_")
    assert (record.observed.steps, record.observed.transport_attempts) == (1, 2), "no retry"


def test_stream_options_without_a_stream_is_refused_as_the_api_refuses_it() -> None:
    def ask(client: openai.OpenAI) -> Any:
        return client.chat.completions.create(
            model=MODEL,
            messages=ASK,  # type: ignore[arg-type]
            stream_options={"include_usage": True},
        )

    error, record = _caught(ask, _in_process)
    assert isinstance(error, openai.BadRequestError)
    assert (error.type, error.param, error.code) == (
        "invalid_request_error",
        "stream_options",
        None,
    )
    assert (record.observed.steps, record.observed.transport_attempts) == (0, 1), "no retry"


def _dropping(keep: int) -> Callable[[openai.OpenAI], Any]:
    """An agent that answers only the first ``keep`` of the four calls of the fan-out
    supervisor's first reply (``keep`` 5: a call it was not asked as well) and asks again."""

    def ask(client: openai.OpenAI) -> Any:
        messages: list[Any] = [{"role": "user", "content": "audit"}]
        tools: Any = [{"type": "function", "function": {"name": "delegate", "parameters": {}}}]
        reply = client.chat.completions.create(model=MODEL, messages=messages, tools=tools)
        message = reply.choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        calls = message.tool_calls or []
        answered = [*(c.id for c in calls), "call_elsewhere"][:keep]
        messages += [{"role": "tool", "tool_call_id": c, "content": "{}"} for c in answered]
        return client.chat.completions.create(model=MODEL, messages=messages, tools=tools)

    return ask


@pytest.mark.parametrize(
    ("keep", "message"),
    [
        (1, "An assistant message with 'tool_calls' must be followed by tool messages"),
        (5, "Invalid parameter: messages with role 'tool' must be a response"),
    ],
    ids=["a-result-dropped", "a-result-for-no-call"],
)
def test_a_tool_call_left_unanswered_or_a_result_for_no_call_is_refused(
    keep: int, message: str
) -> None:
    """Production refuses a conversation whose tool calls and results do not pair, so an agent
    that drops a result (or answers a call it was not asked) is refused on the wire too, not
    answered."""
    error, record = _caught(_dropping(keep), _in_process, "fan-out/four-workers")
    assert isinstance(error, openai.BadRequestError) and isinstance(error.body, dict)
    assert str(error.body["message"]).startswith(message)
    assert (error.type, error.code) == ("invalid_request_error", None)
    assert str(error.param).startswith("messages.[") and str(error.param).endswith("].role")
    assert (record.observed.steps, record.observed.transport_attempts) == (1, 2), "no retry"


def _dropping_outputs(keep: int) -> Callable[[openai.OpenAI], Any]:
    """`_dropping` on the Responses API: the agent sends its input whole again, the reply's
    items and the outputs of the first ``keep`` calls (and one for a call it was not asked)."""

    def ask(client: openai.OpenAI) -> Any:
        items: list[Any] = [{"role": "user", "content": "audit"}]
        tools: Any = [{"type": "function", "name": "delegate", "parameters": {}, "strict": False}]
        reply = client.responses.create(model=MODEL, input=items, tools=tools)
        calls = [item.call_id for item in reply.output if item.type == "function_call"]
        items += [item.model_dump(exclude_none=True) for item in reply.output]
        answered = [*calls, "call_elsewhere"][:keep]
        items += [{"type": "function_call_output", "call_id": c, "output": "{}"} for c in answered]
        return client.responses.create(model=MODEL, input=items, tools=tools)

    return ask


@pytest.mark.parametrize(
    ("keep", "message"),
    [
        (1, "No tool output found for function call call_1_1."),
        (5, "No tool call found for function call output with call_id call_elsewhere."),
    ],
    ids=["a-result-dropped", "a-result-for-no-call"],
)
def test_a_function_call_left_unanswered_or_an_output_for_no_call_is_refused(
    keep: int, message: str
) -> None:
    error, record = _caught(_dropping_outputs(keep), _in_process, "fan-out/four-workers")
    assert isinstance(error, openai.BadRequestError) and isinstance(error.body, dict)
    assert error.body["message"] == message
    assert (error.type, error.param, error.code) == ("invalid_request_error", "input", None)
    assert (record.observed.steps, record.observed.transport_attempts) == (1, 2), "no retry"


def _continuing(keep: int) -> Callable[[openai.OpenAI], Any]:
    """`_dropping_outputs` continuing the stored response by its id, as the Agents SDK does
    when given ``previous_response_id``: only the outputs are sent."""

    def ask(client: openai.OpenAI) -> Any:
        tools: Any = [{"type": "function", "name": "delegate", "parameters": {}, "strict": False}]
        reply = client.responses.create(model=MODEL, input="audit", tools=tools)
        calls = [item.call_id for item in reply.output if item.type == "function_call"]
        answered = [*calls, "call_elsewhere"][:keep]
        outputs: Any = [
            {"type": "function_call_output", "call_id": c, "output": "{}"} for c in answered
        ]
        return client.responses.create(
            model=MODEL, input=outputs, tools=tools, previous_response_id=reply.id
        )

    return ask


@pytest.mark.parametrize(
    ("keep", "message"),
    [
        (1, "No tool output found for function call call_1_1."),
        (5, "No tool call found for function call output with call_id call_elsewhere."),
    ],
    ids=["a-result-dropped", "a-result-for-no-call"],
)
def test_continuing_a_response_without_all_its_outputs_is_refused(keep: int, message: str) -> None:
    """The API refuses to continue a response whose calls the request leaves unanswered (the
    Agents SDK's "No tool output found" with ``previous_response_id``), and the wire too."""
    error, record = _caught(_continuing(keep), _in_process, "fan-out/four-workers")
    assert isinstance(error, openai.BadRequestError) and isinstance(error.body, dict)
    assert error.body["message"] == message
    assert (error.type, error.param, error.code) == ("invalid_request_error", "input", None)
    assert (record.observed.steps, record.observed.transport_attempts) == (1, 2), "no retry"


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_several_choices_asked_for_are_refused_naming_n(stream: bool) -> None:
    """Asked for ``n=3``, the fake answered one choice, whose tokens the record counted: an agent
    reading ``choices[1]`` failed on the fake's answer, and one voting among them was recorded at
    a third of the output it pays for."""

    def ask(client: openai.OpenAI) -> Any:
        return client.chat.completions.create(
            model=MODEL,
            messages=ASK,  # type: ignore[arg-type]
            n=3,
            stream=stream,
        )

    error, record = _caught(ask, _in_process)
    assert isinstance(error, openai.BadRequestError)
    assert (error.type, error.param) == ("invalid_request_error", "n")
    assert "n=3 asks for 3 answers" in error.message
    assert (record.observed.steps, record.observed.transport_attempts) == (0, 1), "no retry"
