"""The wire routes each request to the model, a tool or nowhere — and counts attempts apart from
steps. Driven through an ``httpx2`` client over the wire's mock transport."""

from __future__ import annotations

import contextlib
import dataclasses
import json

import pytest

from tests.unit.harness.wire.conftest import start
from unsolvable import (
    CeilingHit,
    Ceilings,
    Session,
    ToolResult,
    scenarios,
)
from unsolvable._errors import SessionClosed
from unsolvable.fake_tools import Tool, ToolRouter
from unsolvable.wire import TOOLS_URL, HarnessFailure, StrayRequest, Wire

CHAT = "https://api.openai.com/v1/chat/completions"
ASK = {
    "model": "m",
    "messages": [{"role": "user", "content": "hi"}],
    "tools": [{"type": "function", "function": {"name": "search_invoices"}}],
}


def test_a_model_request_is_one_step_and_one_transport_attempt(session: Session) -> None:
    response = Wire(session).httpx2_client().post(CHAT, json=ASK)
    assert response.status_code == 200 and response.json()["choices"][0]["message"]["tool_calls"]
    observed = session.finish()
    assert (observed.steps, observed.transport_attempts) == (1, 1)


def test_transient_failures_are_attempts_not_steps(session: Session) -> None:
    client = Wire(session, transient_failures=2).httpx2_client()
    statuses = [client.post(CHAT, json=ASK).status_code for _ in range(3)]
    assert statuses == [503, 503, 200]
    assert (session.finish().steps, session.finish().transport_attempts) == (1, 3)


def test_an_injected_failure_asks_for_a_fast_retry(session: Session) -> None:
    response = Wire(session, transient_failures=1).httpx2_client().post(CHAT, json=ASK)
    assert (
        response.headers["retry-after-ms"] == "1" and response.headers["x-should-retry"] == "true"
    )


def test_a_body_that_is_not_the_format_is_a_final_400(session: Session) -> None:
    response = Wire(session).httpx2_client().post(CHAT, json={"model": "m"})
    assert response.status_code == 400 and response.headers["x-should-retry"] == "false"
    message = response.json()["error"]["message"]
    assert message.startswith("unsolvable: the OpenAI Chat Completions request needs 'messages'")
    assert session.finish().steps == 0
    assert session.finish().transport_attempts == 1


def test_every_request_is_one_transport_attempt_whatever_it_is_answered() -> None:
    """Failed on purpose, refused, answered, and past the step ceiling: four attempts."""
    session = start(max_steps=1)
    client = Wire(session, transient_failures=1).httpx2_client()
    statuses = [client.post(CHAT, json=ASK).status_code]
    statuses.append(client.post(CHAT, content=b"{not json").status_code)
    statuses.append(client.post(CHAT, json=ASK).status_code)
    with pytest.raises(CeilingHit):
        client.post(CHAT, json=ASK)
    observed = session.finish()
    assert (statuses, observed.steps, observed.transport_attempts) == ([503, 400, 200], 1, 4)


def test_a_request_after_the_run_is_refused_and_not_counted(session: Session) -> None:
    client = Wire(session).httpx2_client()
    session.finish()
    with pytest.raises(SessionClosed):
        client.post(CHAT, json=ASK)
    assert session.finish().transport_attempts == 0


def test_a_tool_answers_over_http_with_its_result(session: Session) -> None:
    url = f"{TOOLS_URL}/search_invoices"
    response = Wire(session).httpx2_client().post(url, json={"customer": "ACME-0"})
    assert response.status_code == 200 and response.json()["results"] == []
    assert session.finish().tool_calls == 1


def test_a_refused_tool_answers_403_naming_the_permission() -> None:
    session = start("missing-permission/retry-403")
    response = Wire(session).httpx2_client().post(f"{TOOLS_URL}/publish_report", json={})
    assert response.status_code == 403 and "reports:publish" in response.text
    assert session.finish().refusals == {"denied": 1}


def test_a_tool_that_raises_permission_denied_is_a_403_too() -> None:
    session = start("missing-permission/retry-raises")
    response = Wire(session).httpx_client().post(f"{TOOLS_URL}/publish_report", json={})
    assert response.status_code == 403 and "portal:write" in response.json()["error"]["message"]


def test_an_unavailable_dependency_answers_503_on_every_call() -> None:
    session = start("dependency-unavailable/retry")
    tool = next(spec.name for spec in session.tools if spec.name != "check_completion")
    client = Wire(session).httpx2_client()
    statuses = {client.post(f"{TOOLS_URL}/{tool}", json={}).status_code for _ in range(3)}
    assert statuses == {503}


def test_a_tool_body_that_is_not_a_json_object_is_a_400_not_a_call(session: Session) -> None:
    response = Wire(session).httpx2_client().post(f"{TOOLS_URL}/search_invoices", content=b"[1]")
    assert response.status_code == 400 and session.finish().tool_calls == 0


def test_routed_urls_reach_tools_with_query_arguments(session: Session) -> None:
    wire = Wire(session, tool_routes={"https://billing.example/api/search": "search_invoices"})
    wire.httpx2_client().get("https://billing.example/api/search?customer=ACME-0")
    assert wire.attempts[-1].route == "search_invoices" and session.finish().tool_calls == 1


def test_a_routed_url_written_with_credentials_or_capitals_is_the_same_route(
    session: Session,
) -> None:
    wire = Wire(session, tool_routes={"https://user:pw@Billing.Example/api/search/": "search"})
    wire.httpx2_client().get("https://billing.example/api/search?customer=ACME-0")
    assert wire.attempts[-1].route == "search" and session.finish().tool_calls == 1


def test_a_stray_request_fails_loudly_without_the_key(session: Session) -> None:
    client = Wire(session).httpx2_client(headers={"authorization": "Bearer sk-live-SECRET"})
    with pytest.raises(
        StrayRequest, match=r"api\.example\.com/v1/x\?key=redacted matched no fake route"
    ) as info:
        client.post("https://api.example.com/v1/x?key=sk-live-SECRET", json=ASK)
    assert "SECRET" not in str(info.value) and session.finish().transport_attempts == 0


def test_a_swallowed_stray_is_raised_again_when_the_wire_closes(session: Session) -> None:
    swallowing = contextlib.suppress(BaseException)  # an agent that swallows everything
    with pytest.raises(StrayRequest, match="1 request"), Wire(session) as wire, swallowing:
        wire.httpx2_client().get("https://telemetry.example.com/ping")
    assert [a.kind for a in wire.attempts] == ["stray"] and "SECRET" not in str(wire.attempts)


def _failing_tool_session() -> Session:
    """A session whose scenario's tool has a bug: it raises whatever it is asked."""

    def broken(world: object, arguments: object) -> ToolResult:
        raise ZeroDivisionError("division by zero in the tool")

    scenario = scenarios.get("constant-return/repeat")
    setup = scenario.build(0)
    spec = setup.toolbox.specs[0]
    toolbox = ToolRouter(setup.world, [Tool(spec=spec, handler=broken)])
    return Session(
        scenario, dataclasses.replace(setup, toolbox=toolbox), seed=0, ceilings=Ceilings()
    )


def test_a_tool_that_raises_is_a_500_and_the_wire_closes_on_a_harness_failure() -> None:
    """The agent is answered 500 and may swallow it: the run is not its to be judged, so the
    wire raises when it closes, from the tool's own error."""
    session = _failing_tool_session()
    name = session.tools[0].name
    swallowing = contextlib.suppress(BaseException)  # an agent that swallows everything
    statuses = []
    failed = pytest.raises(HarnessFailure, match="failed to answer 1 request")
    with failed as raised, Wire(session) as wire, swallowing:
        statuses.append(wire.httpx2_client().post(f"{TOOLS_URL}/{name}", json={}).status_code)
    assert statuses == [500]
    assert f"POST {TOOLS_URL}/{name}: ZeroDivisionError" in str(raised.value)
    assert isinstance(raised.value.__cause__, ZeroDivisionError)


def test_an_unknown_tool_on_the_tools_host_is_a_stray_too_naming_the_scenarios_tools(
    session: Session,
) -> None:
    """Not a request that would have left the harness: one that names no tool of the scenario,
    said so where the agent sees it and where the record does."""
    with (
        pytest.raises(StrayRequest) as closed,
        Wire(session) as wire,
        pytest.raises(StrayRequest) as raised,
    ):
        wire.httpx2_client().post(f"{TOOLS_URL}/delete_everything", json={})
    for said in (str(raised.value), str(closed.value)):
        assert "no tool 'delete_everything'" in said and "search_invoices" in said
        assert "would have left the harness" not in said


def test_an_endpoint_the_fake_model_does_not_serve_is_a_stray_that_says_so(
    session: Session,
) -> None:
    """An SDK's other call (``models.list``) on the API's own host: the client is pointed at the
    fake already, so the agent is told the endpoint has no fake, not to point the client at it,
    where it sees the stray and where the record does."""
    with (
        pytest.raises(StrayRequest) as closed,
        Wire(session) as wire,
        pytest.raises(StrayRequest) as raised,
    ):
        wire.httpx2_client().get("https://api.openai.com/v1/models")
    for said in (str(raised.value), str(closed.value)):
        assert "no such endpoint" in said and "models.list" in said
        assert "left the harness" not in said and "point the client" not in said.lower()
    assert str(wire.stray[0]) == (
        "GET https://api.openai.com/v1/models -> refused (stray no fake endpoint)"
    )


def test_a_stray_to_another_host_renders_without_a_route(session: Session) -> None:
    with contextlib.suppress(BaseException), Wire(session) as wire:
        wire.httpx2_client().get("https://telemetry.example.com/ping")
    assert str(wire.stray[0]) == "GET https://telemetry.example.com/ping -> refused (stray)"


def test_a_harness_ceiling_ends_the_caller_through_the_transport() -> None:
    session = start(max_steps=1)
    wire = Wire(session)
    client = wire.httpx2_client()
    client.post(CHAT, json=ASK)
    with pytest.raises(CeilingHit):
        client.post(CHAT, json=ASK)
    # The ended request is an attempt in the wire's log as in the record's count.
    assert [a.status for a in wire.attempts] == [200, 0]
    assert session.finish().transport_attempts == 2


def test_attempts_render_as_one_line_each(session: Session) -> None:
    wire = Wire(session)
    wire.httpx2_client().post(CHAT, json=ASK)
    assert str(wire.attempts[0]) == f"POST {CHAT} -> 200 (model chat_completions)"
    assert json.loads(wire.httpx2_client().post(CHAT, json=ASK).text)["id"].endswith("-2")


RESPONSES_URL = "https://api.openai.com/v1/responses"


def _continue(session: Session, chained: bool) -> int:
    """Two Responses API turns, the second sending only its new item; the input tokens used."""
    client = Wire(session).httpx2_client()
    first = client.post(RESPONSES_URL, json={"model": "m", "input": "find the invoice"}).json()
    follow_up: dict[str, object] = {"model": "m", "input": [{"role": "user", "content": "again"}]}
    if chained:
        follow_up["previous_response_id"] = first["id"]
    assert client.post(RESPONSES_URL, json=follow_up).status_code == 200
    return session.finish().input_tokens


def test_the_sessions_openai_tools_sent_to_the_responses_api_are_a_final_400(
    session: Session,
) -> None:
    body = {"model": "m", "input": "hi", "tools": session.openai_tools}
    response = Wire(session).httpx2_client().post(RESPONSES_URL, json=body)
    assert response.status_code == 400 and response.headers["x-should-retry"] == "false"
    assert response.json()["error"]["param"] == "tools[0].name"
    observed = session.finish()
    assert (observed.steps, observed.transport_attempts) == (0, 1)


def test_previous_response_id_shows_the_model_the_whole_conversation() -> None:
    assert _continue(start(), chained=True) > _continue(start(), chained=False)


def test_an_unknown_previous_response_id_is_a_400(session: Session) -> None:
    body = {"model": "m", "input": "hi", "previous_response_id": "resp_elsewhere"}
    response = Wire(session).httpx2_client().post(RESPONSES_URL, json=body)
    assert response.status_code == 400 and "resp_elsewhere" in response.text


@pytest.mark.parametrize(
    ("url", "key", "extra"),
    [
        (CHAT, "messages", {}),
        ("https://api.openai.com/v1/responses", "input", {}),
        ("https://api.anthropic.com/v1/messages", "messages", {"max_tokens": 9}),
    ],
)
@pytest.mark.parametrize("bad", ["hi", 1, None, ["a list"]])
def test_a_conversation_item_that_is_not_an_object_is_a_final_400_naming_it(
    session: Session, url: str, key: str, extra: dict[str, object], bad: object
) -> None:
    """The first call's conversation and a later one that adds the bad item alike: a client
    reading the wire's error sees which item, where the formats once raised from inside."""
    client = Wire(session).httpx2_client()
    good = {"role": "user", "content": "hi"}
    assert client.post(url, json={"model": "m", key: [good], **extra}).status_code == 200
    for conversation in ([bad], [good, bad]):
        response = client.post(url, json={"model": "m", key: conversation, **extra})
        assert response.status_code == 400 and response.headers["x-should-retry"] == "false"
        message = response.json()["error"]["message"]
        assert f"{key!r} must hold JSON objects" in message
        assert f"at index {len(conversation) - 1}" in message
    assert session.finish().steps == 1


def test_a_responses_input_that_is_neither_text_nor_a_list_is_a_final_400(
    session: Session,
) -> None:
    url = "https://api.openai.com/v1/responses"
    response = Wire(session).httpx2_client().post(url, json={"model": "m", "input": {"a": 1}})
    message = response.json()["error"]["message"]
    assert response.status_code == 400 and "'input' must be text or a list" in message


ANTHROPIC = "https://api.anthropic.com/v1/messages"
GEMINI = "https://generativelanguage.googleapis.com/v1beta/models/g:generateContent"
HI = [{"role": "user", "content": "hi"}]
PARTS = [{"role": "user", "parts": [{"text": "hi"}]}]


@pytest.mark.parametrize(
    ("url", "body"),
    [
        (ANTHROPIC, {"max_tokens": 9, "messages": [{"role": "user", "content": ["hi"]}]}),
        (ANTHROPIC, {"max_tokens": 9, "messages": [{"role": "user", "content": 5}]}),
        (ANTHROPIC, {"max_tokens": 9, "messages": HI, "tools": ["search_invoices"]}),
        (ANTHROPIC, {"max_tokens": 9, "messages": HI, "tool_choice": "none"}),
        ("https://api.openai.com/v1/responses", {"input": "hi", "tools": ["search_invoices"]}),
        (GEMINI, {"contents": PARTS, "toolConfig": 5}),
        (GEMINI, {"contents": [{"role": "model", "parts": [{"functionCall": "x"}]}]}),
        (CHAT, {"messages": HI, "stream": True, "stream_options": "usage"}),
    ],
)
def test_a_member_of_the_wrong_type_is_a_final_400_in_the_formats_shape(
    session: Session, url: str, body: dict[str, object]
) -> None:
    """As its API answers such a body: a 400 the SDK raises, never a harness error from inside
    the format, and an attempt the wire keeps, not a step."""
    wire = Wire(session)
    response = wire.httpx2_client().post(url, json={"model": "m", **body})
    assert response.status_code == 400 and response.headers["x-should-retry"] == "false"
    assert "not in the shape" in response.json()["error"]["message"]
    assert [attempt.status for attempt in wire.attempts] == [400]
    assert (session.finish().steps, session.finish().transport_attempts) == (0, 1)
