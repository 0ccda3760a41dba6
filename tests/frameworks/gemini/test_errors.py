"""Every refusal the fake makes on the Gemini paths is in Google's shape, ``{"error": {"code",
"message", "status"}}``, so the ``google-genai`` SDK raises its own `ClientError` or
`ServerError` with the code and status a real refusal gives: a request over the context window
(the API's "input token count" message), a malformed body, an injected outage, and the loopback
server's refusal of a request without the run's key."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import httpx
import pytest

pytest.importorskip("google.genai")

from google import genai
from google.genai import errors, types

import unsolvable
from tests.unit.harness.wire.conftest import start
from unsolvable import Code, Session, Stop, scenarios
from unsolvable.wire import FAKE_API_KEY, Wire

PROMPT = "x" * 12_000
"""About 3,000 tokens: over the 1,500-token window of context-overflow's scenarios."""
MODEL = "gemini-2.5-flash"


def _caught(stream: bool, scenario: str, ask: Callable[[Any, bool], Any], **wire: Any) -> Any:
    """What the SDK raised for ``ask(client, stream)`` in a run of ``scenario``, and the
    run's record."""
    caught: list[errors.APIError] = []

    def agent(session: Session) -> Stop:
        with Wire(session, **wire) as fake, pytest.raises(errors.APIError) as refused:
            ask(fake.gemini_client(), stream)
        caught.append(refused.value)
        return Stop(code=Code.ERROR_FATAL, reason=str(refused.value))

    record = unsolvable.run(agent, scenarios.get(scenario))
    return caught[0], record


def _generate(config: Any = None, contents: Any = "hi") -> Callable[[Any, bool], Any]:
    def ask(client: genai.Client, stream: bool) -> Any:
        if stream:
            return list(
                client.models.generate_content_stream(model=MODEL, contents=contents, config=config)
            )
        return client.models.generate_content(model=MODEL, contents=contents, config=config)

    return ask


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_a_request_over_the_window_is_a_client_error_invalid_argument(stream: bool) -> None:
    error, record = _caught(
        stream, "context-overflow/irreducible-document", _generate(contents=PROMPT)
    )
    assert isinstance(error, errors.ClientError)
    assert (error.code, error.status) == (400, "INVALID_ARGUMENT")
    assert re.fullmatch(
        r"The input token count \(\d{4}\) exceeds the maximum number of tokens allowed "
        r"\(1500\)\.",
        str(error.message),
    )
    assert (record.observed.steps, record.observed.transport_attempts) == (1, 1), "no retry"


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_a_malformed_body_is_a_client_error_invalid_argument(stream: bool) -> None:
    malformed = types.GenerateContentConfig(
        http_options=types.HttpOptions(extra_body={"contents": "not a list"})
    )
    error, record = _caught(stream, "constant-return/repeat", _generate(malformed))
    assert isinstance(error, errors.ClientError)
    assert (error.code, error.status) == (400, "INVALID_ARGUMENT")
    assert "'contents'" in str(error.message) and record.observed.steps == 0


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_several_candidates_asked_for_are_a_client_error_naming_the_count(stream: bool) -> None:
    """Asked for ``candidate_count=2``, the fake answered one candidate, whose tokens the record
    counted for the two the API would bill."""
    several = types.GenerateContentConfig(candidate_count=2)
    error, record = _caught(stream, "constant-return/repeat", _generate(several))
    assert isinstance(error, errors.ClientError)
    assert (error.code, error.status) == (400, "INVALID_ARGUMENT")
    assert "generationConfig.candidateCount=2" in str(error.message)
    assert (record.observed.steps, record.observed.transport_attempts) == (0, 1)


@pytest.mark.parametrize("role", ["assistant", "system", "function"])
@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_a_content_of_another_role_than_user_or_model_is_a_client_error(
    stream: bool, role: str
) -> None:
    """An OpenAI habit carried over (``assistant`` for the model's turn, a ``system`` turn, a
    ``function`` turn for results) is refused as the API refuses it, not read as the user's."""
    contents = [
        types.Content(role="user", parts=[types.Part(text="hi")]),
        types.Content(role=role, parts=[types.Part(text="noted")]),
        types.Content(role="user", parts=[types.Part(text="go on")]),
    ]
    error, record = _caught(stream, "constant-return/repeat", _generate(contents=contents))
    assert isinstance(error, errors.ClientError)
    assert (error.code, error.status, error.message) == (
        400,
        "INVALID_ARGUMENT",
        "Please use a valid role: user, model.",
    )
    assert (record.observed.steps, record.observed.transport_attempts) == (0, 1), "no retry"


def _call(name: str) -> types.Part:
    return types.Part(function_call=types.FunctionCall(name=name, args={}))


def _response(name: str) -> types.Part:
    return types.Part(function_response=types.FunctionResponse(name=name, response={"ok": 1}))


@pytest.mark.parametrize(
    ("turns", "message"),
    [
        (
            [
                types.Content(role="model", parts=[_call("lookup_supplier"), _call("delegate")]),
                types.Content(role="user", parts=[_response("lookup_supplier")]),
            ],
            "Please ensure that the number of function response parts is equal to the number "
            "of function call parts of the function call turn.",
        ),
        (
            [types.Content(role="user", parts=[_response("lookup_supplier")])],
            "Please ensure that function response turn comes immediately after a function "
            "call turn.",
        ),
    ],
    ids=["a-result-dropped", "a-result-for-no-call"],
)
def test_function_calls_and_responses_that_do_not_pair_are_a_client_error(
    turns: list[types.Content], message: str
) -> None:
    """Production refuses a conversation whose function calls and responses do not pair, so an
    agent that drops one of a turn's results, or answers no call, is refused on the wire too."""
    contents = [types.Content(role="user", parts=[types.Part(text="audit")]), *turns]
    error, record = _caught(False, "fan-out/four-workers", _generate(contents=contents))
    assert isinstance(error, errors.ClientError)
    assert (error.code, error.status, error.message) == (400, "INVALID_ARGUMENT", message)
    assert (record.observed.steps, record.observed.transport_attempts) == (0, 1), "no retry"


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_an_outage_is_a_server_error_unavailable(stream: bool) -> None:
    error, record = _caught(stream, "constant-return/repeat", _generate(), transient_failures=1)
    assert isinstance(error, errors.ServerError)
    assert (error.code, error.status) == (503, "UNAVAILABLE")
    assert (record.observed.steps, record.observed.transport_attempts) == (0, 1)


@pytest.mark.parametrize("method", ["generateContent", "streamGenerateContent?alt=sse"])
def test_a_request_without_the_runs_key_is_a_client_error_unauthenticated(method: str) -> None:
    session = start()
    with Wire(session) as wire, wire.serve() as server:
        base = server.base_url.rsplit("/", 1)[0]  # the server's address, without the key
        answer = httpx.post(f"{base}/v1beta/models/{MODEL}:{method}", json={"contents": []})
        client = genai.Client(api_key=FAKE_API_KEY, http_options={"base_url": base})
        with pytest.raises(errors.ClientError) as refused:
            client.models.generate_content(model=MODEL, contents="hi")
        assert server.refused == 2
    assert answer.status_code == 401 and answer.json()["error"]["status"] == "UNAUTHENTICATED"
    assert (refused.value.code, refused.value.status) == (401, "UNAUTHENTICATED")
    assert session.finish().transport_attempts == 0
