"""An agent written directly against the current ``openai`` SDK runs unmodified against the fake
model on the wire: in-process (an injected httpx2 client), over the loopback server, and in a
child process configured only by environment variables."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

import pytest

pytest.importorskip("openai")

import openai

import unsolvable
from tests.frameworks._glue import CHILD_CEILINGS, child_agent
from tests.frameworks.openai.sdk_agent import run_agent
from unsolvable import Code, Outcome, Session, scenarios
from unsolvable.wire import FAKE_API_KEY, Wire

Agent = Callable[[Session], Mapping[str, Any]]


def in_process(api: str = "chat", stream: bool = False, **wire: Any) -> Agent:
    def agent(session: Session) -> Mapping[str, Any]:
        with Wire(session, **wire) as fake:
            client = fake.openai_client(_strict_response_validation=True)
            return run_agent(
                client,
                session.task,
                session.openai_tools,
                session.call_tool,
                api=api,
                stream=stream,
            )

    return agent


def over_loopback(session: Session) -> Mapping[str, Any]:
    with Wire(session) as wire, wire.serve() as server:
        client = openai.OpenAI(base_url=server.openai_base_url, api_key=FAKE_API_KEY)
        return run_agent(client, session.task, session.openai_tools, session.call_tool)


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
@pytest.mark.parametrize("api", ["chat", "responses"])
def test_the_sdk_agent_stops_on_a_repeated_search(api: str, stream: bool) -> None:
    record = unsolvable.run(
        in_process(api, stream), scenarios.get("constant-return/repeat"), strict=True
    )
    assert record.code is Code.NO_PROGRESS and record.verdict.passed
    assert (record.observed.steps, record.observed.transport_attempts) == (3, 3)


@pytest.mark.parametrize(
    ("name", "code", "steps"),
    [
        ("missing-permission/retry-403", Code.BLOCKED_INPUT, 1),
        ("contradictory-criteria/alternate", Code.NO_PROGRESS, 5),
    ],
)
def test_the_sdk_agent_on_the_other_families(name: str, code: Code, steps: int) -> None:
    record = unsolvable.run(in_process("responses"), scenarios.get(name), strict=True)
    assert (record.code, record.observed.steps) == (code, steps) and record.verdict.passed


def test_sdk_retries_are_transport_attempts_not_steps() -> None:
    agent = in_process(transient_failures=2)  # the client's default max_retries=2 absorbs them
    record = unsolvable.run(agent, scenarios.get("constant-return/repeat"))
    assert (record.observed.steps, record.observed.transport_attempts) == (3, 5)


def test_one_more_failure_than_the_sdk_retries_reaches_the_agent() -> None:
    record = unsolvable.run(
        in_process(transient_failures=3), scenarios.get("constant-return/repeat")
    )
    assert record.outcome is Outcome.CRASHED and "InternalServerError" in str(record.observed.error)
    assert (record.observed.steps, record.observed.transport_attempts) == (0, 3)


def test_the_async_client_runs_on_the_same_wire() -> None:
    async def ask(client: Any, session: Session) -> Any:
        return await client.chat.completions.create(
            model="gpt-5-mini",
            messages=[{"role": "user", "content": session.task}],
            tools=session.openai_tools,
        )

    def agent(session: Session) -> Mapping[str, Any]:
        with Wire(session) as wire:
            reply = asyncio.run(ask(wire.async_openai_client(), session))
        assert reply.choices[0].message.tool_calls
        return {"code": "NO_PROGRESS"}

    assert unsolvable.run(agent, scenarios.get("constant-return/repeat")).observed.steps == 1


def test_the_sdk_agent_runs_against_the_loopback_server() -> None:
    record = unsolvable.run(over_loopback, scenarios.get("constant-return/repeat"), strict=True)
    assert record.code is Code.NO_PROGRESS and record.observed.transport_attempts == 3


def test_the_unmodified_agent_runs_in_a_child_process() -> None:
    agent = child_agent("tests.frameworks.openai.sdk_agent", "responses")
    record = unsolvable.run(
        agent, scenarios.get("missing-permission/retry-403"), strict=True, ceilings=CHILD_CEILINGS
    )
    assert record.code is Code.BLOCKED_INPUT and record.verdict.passed
    assert (record.observed.steps, record.observed.refusals) == (1, {"denied": 1})


def test_a_request_to_a_real_host_fails_the_run_and_keeps_no_key() -> None:
    def agent(session: Session) -> Mapping[str, Any]:
        with Wire(session) as wire:
            client = openai.OpenAI(
                base_url="https://api.example.com/v1",
                api_key="sk-live-SECRET",
                http_client=wire.httpx2_client(),
            )
            return run_agent(client, session.task, session.openai_tools, session.call_tool)

    record = unsolvable.run(agent, scenarios.get("constant-return/repeat"))
    assert record.outcome is Outcome.CRASHED and "StrayRequest" in str(record.observed.error)
    assert "SECRET" not in record.to_json() and record.observed.transport_attempts == 0
