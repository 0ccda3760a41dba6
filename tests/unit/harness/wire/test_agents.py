"""Sub-agents on the wire: a client bound to an agent name counts its model calls as that agent's
steps, whichever face binds it (an SDK client, an httpx transport, a base-URL path from another
process), and a contradictory or malformed binding is refused saying so."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from unsolvable import AdapterError, Session
from unsolvable.wire import TOOLS_URL, Wire
from unsolvable.wire._agents import agent_url, split_agent

ASK = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 64}
USER: Any = [{"role": "user", "content": "hi"}]
GEMINI_ASK = {"role": "user", "parts": [{"text": "hi"}]}


def test_a_path_names_its_agent_in_its_first_two_segments() -> None:
    assert split_agent("/agents/worker-1/v1/chat/completions") == (
        "worker-1",
        "/v1/chat/completions",
    )
    assert split_agent("/agents/w") == ("w", "/")
    assert split_agent("/v1/agents/w/x") == (None, "/v1/agents/w/x")
    assert split_agent("/agents/no%20name/v1") == (None, "/agents/no%20name/v1")


def test_an_agent_url_puts_the_name_before_the_path_and_keeps_a_binding_it_agrees_with() -> None:
    assert agent_url("https://api.openai.com/v1", "w-1") == "https://api.openai.com/agents/w-1/v1"
    assert agent_url("https://api.anthropic.com", "w-1") == "https://api.anthropic.com/agents/w-1"
    assert agent_url("http://h/agents/w-1/v1?a=1", "w-1") == "http://h/agents/w-1/v1?a=1"
    with pytest.raises(ValueError, match="names agent 'w-2', but its client is bound to 'w-1'"):
        agent_url("http://h/agents/w-2/v1", "w-1")


@pytest.mark.parametrize("name", ["", "worker 1", "a/b", "-lead", "x" * 65, 3])
def test_a_name_that_is_not_one_path_segment_is_refused_when_the_client_is_built(
    session: Session, name: Any
) -> None:
    with pytest.raises(AdapterError, match="cannot name an agent on the wire"):
        Wire(session).httpx2_client(agent=name)


def _openai(wire: Wire, agent: str) -> None:
    wire.openai_client(agent=agent).chat.completions.create(model="m", messages=USER)


def _async_openai(wire: Wire, agent: str) -> None:
    create = wire.async_openai_client(agent=agent).chat.completions.create
    asyncio.run(create(model="m", messages=USER))


def _anthropic(wire: Wire, agent: str) -> None:
    wire.anthropic_client(agent=agent).messages.create(model="m", messages=USER, max_tokens=64)


def _async_anthropic(wire: Wire, agent: str) -> None:
    create = wire.async_anthropic_client(agent=agent).messages.create
    asyncio.run(create(model="m", messages=USER, max_tokens=64))


def _httpx(wire: Wire, agent: str) -> None:
    wire.httpx_client(agent=agent).post("https://api.openai.com/v1/chat/completions", json=ASK)


@pytest.mark.parametrize("ask", [_openai, _async_openai, _anthropic, _async_anthropic, _httpx])
def test_each_client_bound_to_an_agent_makes_that_agents_steps(session: Session, ask: Any) -> None:
    with Wire(session) as wire:
        for agent in ("lead", "worker-1", "worker-1"):
            ask(wire, agent)
        wire.openai_client().chat.completions.create(model="m", messages=USER)
    assert session.finish().steps_by_agent == {"lead": 1, "main": 1, "worker-1": 2}


def test_a_bound_sdk_client_keeps_its_agent_with_an_http_client_of_its_own(
    session: Session,
) -> None:
    with Wire(session) as wire:
        client = wire.openai_client(agent="worker-1", http_client=wire.httpx2_client())
        client.chat.completions.create(model="m", messages=USER)
    assert str(client.base_url) == "https://api.openai.com/agents/worker-1/v1/"
    assert session.finish().steps_by_agent == {"worker-1": 1}


def test_a_client_bound_twice_to_different_agents_is_refused(session: Session) -> None:
    with pytest.raises(AdapterError, match="names agent 'a', but its client is bound to 'b'"):
        Wire(session).openai_client(agent="b", base_url="https://api.openai.com/agents/a/v1")
    with Wire(session) as wire:
        client = wire.httpx2_client(agent="b")
        reply = client.post("https://api.openai.com/agents/a/v1/chat/completions", json=ASK)
    assert (reply.status_code, reply.headers["x-should-retry"]) == (400, "false")
    assert "bound to 'b'" in reply.json()["error"]["message"] and session.finish().steps == 0


def test_an_agents_tool_calls_feed_that_agents_next_model_call(session: Session) -> None:
    with Wire(session) as wire:
        worker = wire.httpx_client(agent="worker-1")
        worker.post(f"{TOOLS_URL}/search_invoices", json={"customer": "ACME-0"})
        wire.openai_client().chat.completions.create(model="m", messages=USER)
        assert session._setup.model.last_request.results == ()  # type: ignore[attr-defined]
        worker.post("https://api.openai.com/v1/chat/completions", json=ASK)
        request = session._setup.model.last_request  # type: ignore[attr-defined]
    assert (request.agent, len(request.results), request.agent_step) == ("worker-1", 1, 1)


def test_a_process_names_its_agent_by_the_servers_agents_url(session: Session) -> None:
    with Wire(session) as wire, wire.serve() as server:
        agents = server.environ()["UNSOLVABLE_AGENTS_URL"]
        assert agents == f"{server.base_url}/agents"
        for agent in ("lead", "worker-1"):
            httpx.post(f"{agents}/{agent}/v1/chat/completions", json=ASK).raise_for_status()
            httpx.post(f"{agents}/{agent}/v1/messages", json=ASK).raise_for_status()
            gemini = f"{agents}/{agent}/v1beta/models/gemini-x:generateContent"
            httpx.post(gemini, json={"contents": [GEMINI_ASK]}).raise_for_status()
        reply = httpx.post(f"{agents}/worker-1/tools/search_invoices", json={"customer": "A"})
    assert reply.status_code == 200
    observed = session.finish()
    assert (observed.steps_by_agent, observed.tool_calls) == ({"lead": 3, "worker-1": 3}, 1)
