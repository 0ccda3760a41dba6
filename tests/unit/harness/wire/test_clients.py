"""httpx-based agents meet the wire through respx routes or an injected httpx transport; an
agent built this way runs unmodified, its tools included."""

from __future__ import annotations

import sys

import httpx
import pytest
import respx

import unsolvable
from unsolvable import Code, Outcome, Session, Stop, scenarios
from unsolvable.wire import TOOLS_URL, StrayRequest, Wire
from unsolvable.wire._clients import require_module

BASE = "https://api.openai.com/v1"


def httpx_agent(session: Session, client: httpx.Client | None = None) -> Stop:
    """A small agent written directly against Chat Completions with httpx, tools over REST."""
    post = client.post if client is not None else httpx.post
    messages: list[dict[str, object]] = [{"role": "user", "content": session.task}]
    results: list[str] = []
    for _ in range(4):
        body = {"model": "gpt-x", "messages": messages, "tools": session.openai_tools}
        message = post(f"{BASE}/chat/completions", json=body).json()["choices"][0]["message"]
        messages.append(message)
        for call in message.get("tool_calls") or ():
            name, arguments = call["function"]["name"], call["function"]["arguments"]
            result = post(f"{TOOLS_URL}/{name}", content=arguments).text
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
            results.append(result)
    return Stop(code=Code.BUDGET_STEPS, reason="four steps", partial=results)


def test_respx_routes_serve_an_httpx_agent_model_and_tools() -> None:
    def agent(session: Session) -> Stop:
        with Wire(session) as wire, wire.respx_router():
            return httpx_agent(session)

    record = unsolvable.run(agent, scenarios.get("constant-return/repeat"))
    assert record.outcome is Outcome.STOPPED and record.observed.steps == 4
    assert (record.observed.tool_calls, record.observed.transport_attempts) == (4, 4)


def test_an_injected_httpx_transport_needs_no_patching() -> None:
    def agent(session: Session) -> Stop:
        with Wire(session) as wire:
            return httpx_agent(session, wire.httpx_client())

    record = unsolvable.run(agent, scenarios.get("missing-permission/retry-403"))
    assert record.observed.refusals == {"denied": 4} and "reports:publish" in str(record.reported)


def test_mount_adds_the_wire_to_an_existing_respx_router(session: Session) -> None:
    with respx.mock(assert_all_called=False) as router:
        Wire(session).mount(router)
        reply = httpx.post(f"{BASE}/chat/completions", json={"model": "m", "messages": []})
        assert router.calls.call_count == 1
    assert reply.status_code == 200 and session.finish().steps == 1


def test_a_stray_httpx_request_under_respx_fails_the_run_loudly() -> None:
    def agent(session: Session) -> None:
        with Wire(session) as wire, wire.respx_router():
            httpx.get("https://example.com/health")

    record = unsolvable.run(agent, scenarios.get("constant-return/repeat"))
    assert record.outcome is Outcome.CRASHED
    assert "StrayRequest" in str(record.observed.error) and "example.com" in str(
        record.observed.error
    )


def test_a_missing_client_library_names_the_extra() -> None:
    with pytest.raises(unsolvable.AdapterError, match=r"pip install 'pytest-unsolvable\[nope\]'"):
        require_module("nope")


@pytest.mark.parametrize(
    ("client", "module", "extra"),
    [
        ("httpx_client", "httpx", "http"),
        ("httpx_async_client", "httpx", "http"),
        ("httpx2_client", "httpx2", "http"),
        ("httpx2_async_client", "httpx2", "http"),
        ("openai_client", "openai", "openai"),
        ("async_openai_client", "openai", "openai"),
        ("anthropic_client", "anthropic", "anthropic"),
        ("async_anthropic_client", "anthropic", "anthropic"),
        ("gemini_client", "google.genai", "gemini"),
    ],
)
def test_each_client_of_a_missing_library_names_the_extra(
    session: Session, monkeypatch: pytest.MonkeyPatch, client: str, module: str, extra: str
) -> None:
    """A newcomer who calls ``wire.openai_client()`` without the ``openai`` extra learns which
    extra to install, as ``wire.respx_router()`` says for respx, not a bare import error."""
    monkeypatch.setitem(sys.modules, module, None)  # what an uninstalled module imports as
    wire = Wire(session)
    with pytest.raises(
        unsolvable.AdapterError, match=rf"pip install 'pytest-unsolvable\[{extra}\]'"
    ):
        getattr(wire, client)()


def test_stray_request_is_not_an_exception_so_retry_loops_cannot_swallow_it() -> None:
    assert not issubclass(StrayRequest, Exception)
