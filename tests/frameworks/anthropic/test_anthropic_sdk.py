"""An agent written directly against the current ``anthropic`` SDK runs unmodified against the
fake model on the wire: in-process (an injected httpx2 client), over the loopback server, and in
a child process configured only by environment variables."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

import pytest

pytest.importorskip("anthropic")

import anthropic

import unsolvable
from tests.frameworks._glue import CHILD_CEILINGS, child_agent
from tests.frameworks.anthropic.sdk_agent import run_agent
from unsolvable import Code, Outcome, Session, scenarios
from unsolvable.wire import FAKE_API_KEY, Wire

Agent = Callable[[Session], Mapping[str, Any]]


def in_process(stream: bool = False, **wire: Any) -> Agent:
    def agent(session: Session) -> Mapping[str, Any]:
        with Wire(session, **wire) as fake:
            client = fake.anthropic_client(_strict_response_validation=True)
            return run_agent(
                client, session.task, session.openai_tools, session.call_tool, stream=stream
            )

    return agent


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
@pytest.mark.parametrize(
    ("name", "code", "steps"),
    [
        ("constant-return/repeat", Code.NO_PROGRESS, 3),
        ("missing-permission/retry-403", Code.BLOCKED_INPUT, 1),
        ("contradictory-criteria/alternate", Code.NO_PROGRESS, 5),
    ],
)
def test_the_sdk_agent_stops_right_on_each_family(
    name: str, code: Code, steps: int, stream: bool
) -> None:
    record = unsolvable.run(in_process(stream), scenarios.get(name), strict=True)
    assert (record.code, record.observed.steps) == (code, steps) and record.verdict.passed


def test_sdk_retries_are_transport_attempts_not_steps() -> None:
    record = unsolvable.run(
        in_process(transient_failures=2), scenarios.get("constant-return/repeat")
    )
    assert (record.observed.steps, record.observed.transport_attempts) == (3, 5)


def test_the_async_client_runs_on_the_same_wire() -> None:
    async def ask(client: Any, session: Session) -> Any:
        return await client.messages.create(
            model="claude-sonnet-5",
            max_tokens=64,
            messages=[{"role": "user", "content": session.task}],
        )

    def agent(session: Session) -> Mapping[str, Any]:
        with Wire(session) as wire:
            reply = asyncio.run(ask(wire.async_anthropic_client(), session))
        assert reply.stop_reason == "end_turn"  # no tools offered: the model's final answer
        return {"code": "NO_PROGRESS"}

    assert unsolvable.run(agent, scenarios.get("constant-return/repeat")).observed.steps == 1


def test_the_sdk_agent_runs_against_the_loopback_server() -> None:
    def agent(session: Session) -> Mapping[str, Any]:
        with Wire(session) as wire, wire.serve() as server:
            client = anthropic.Anthropic(base_url=server.anthropic_base_url, api_key=FAKE_API_KEY)
            return run_agent(client, session.task, session.openai_tools, session.call_tool)

    record = unsolvable.run(agent, scenarios.get("constant-return/repeat"), strict=True)
    assert record.code is Code.NO_PROGRESS and record.observed.transport_attempts == 3


def test_the_unmodified_agent_runs_in_a_child_process() -> None:
    agent = child_agent("tests.frameworks.anthropic.sdk_agent")
    record = unsolvable.run(
        agent,
        scenarios.get("contradictory-criteria/alternate"),
        strict=True,
        ceilings=CHILD_CEILINGS,
    )
    assert record.code is Code.NO_PROGRESS and record.observed.steps == 5


def test_a_request_to_a_real_host_fails_the_run_and_keeps_no_key() -> None:
    def agent(session: Session) -> Mapping[str, Any]:
        with Wire(session) as wire:
            client = anthropic.Anthropic(
                base_url="https://llm.example.com",
                api_key="sk-ant-SECRET",
                http_client=wire.httpx2_client(),
            )
            return run_agent(client, session.task, session.openai_tools, session.call_tool)

    record = unsolvable.run(agent, scenarios.get("constant-return/repeat"))
    assert record.outcome is Outcome.CRASHED and "llm.example.com" in str(record.observed.error)
    assert "SECRET" not in record.to_json()
