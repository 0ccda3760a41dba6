"""An agent written directly against the ``google-genai`` SDK runs unmodified against the fake
model on the wire: in-process (injected httpx2 clients), over the loopback server, and in a
child process configured only by environment variables; its tokens are what ``usageMetadata``
said."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Mapping
from typing import Any

import pytest

pytest.importorskip("google.genai")

from google import genai
from google.genai import types

import unsolvable
from tests.frameworks._glue import CHILD_CEILINGS, ROOT, child_agent
from tests.frameworks.gemini.sdk_agent import MODEL, run_agent
from unsolvable import Code, Outcome, Session, scenarios
from unsolvable.adapters.process import ProcessAdapter
from unsolvable.wire import FAKE_API_KEY, Wire

Agent = Callable[[Session], Mapping[str, Any]]


def in_process(usages: list[Any], stream: bool = False, **wire: Any) -> Agent:
    def agent(session: Session) -> Mapping[str, Any]:
        with Wire(session, **wire) as fake:
            client = fake.gemini_client()
            return run_agent(
                client,
                session.task,
                session.openai_tools,
                session.call_tool,
                stream=stream,
                usages=usages,
            )

    return agent


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
@pytest.mark.parametrize(
    ("name", "code", "steps"),
    [
        ("constant-return/repeat", Code.NO_PROGRESS, 3),
        ("missing-permission/retry-403", Code.BLOCKED_INPUT, 1),
        ("contradictory-criteria/alternate", Code.NO_PROGRESS, 5),
        ("constant-return/ambiguous-found-late", Code.COMPLETED, 4),
    ],
)
def test_the_sdk_agent_stops_right_and_is_charged_what_usage_metadata_said(
    name: str, code: Code, steps: int, stream: bool
) -> None:
    usages: list[types.GenerateContentResponseUsageMetadata] = []
    record = unsolvable.run(in_process(usages, stream), scenarios.get(name), strict=True)
    assert (record.code, record.observed.steps) == (code, steps) and record.verdict.passed
    said = (
        sum(u.prompt_token_count or 0 for u in usages),
        sum(u.candidates_token_count or 0 for u in usages),
    )
    assert said == (record.observed.input_tokens, record.observed.output_tokens)
    totals = [(u.prompt_token_count or 0) + (u.candidates_token_count or 0) for u in usages]
    assert [u.total_token_count for u in usages] == totals


RETRY: types.HttpOptionsDict = {
    "retry_options": {"attempts": 3, "initial_delay": 0.0, "max_delay": 0.0},
    "base_url": "https://model.unsolvable.test",  # never resolves, were the wire bypassed
}


@pytest.mark.parametrize(
    "retry", [RETRY, types.HttpOptions.model_validate(RETRY)], ids=["dict", "HttpOptions"]
)
def test_sdk_retries_when_asked_are_transport_attempts_not_steps(
    retry: types.HttpOptionsOrDict,
) -> None:
    """The SDK retries nothing by default; given retry options, each retry is an attempt. The
    options come as the SDK takes them, a dict or an ``HttpOptions``, whose unset fields the
    wire's client does not take for settings."""

    def agent(session: Session) -> Mapping[str, Any]:
        with Wire(session, transient_failures=2) as fake:
            client = fake.gemini_client(http_options=retry)
            return run_agent(client, session.task, session.openai_tools, session.call_tool)

    record = unsolvable.run(agent, scenarios.get("constant-return/repeat"))
    assert (record.observed.steps, record.observed.transport_attempts) == (3, 5)


def test_the_async_client_runs_on_the_same_wire() -> None:
    async def ask(client: genai.Client, session: Session) -> types.GenerateContentResponse:
        return await client.aio.models.generate_content(model=MODEL, contents=session.task)

    def agent(session: Session) -> Mapping[str, Any]:
        with Wire(session) as wire:
            reply = asyncio.run(ask(wire.gemini_client(), session))
        assert reply.function_calls is None and reply.text  # no tools offered: a final answer
        return {"code": "NO_PROGRESS"}

    assert unsolvable.run(agent, scenarios.get("constant-return/repeat")).observed.steps == 1


def test_the_sdk_agent_runs_against_the_loopback_server() -> None:
    def agent(session: Session) -> Mapping[str, Any]:
        with Wire(session) as wire, wire.serve() as server:
            options = types.HttpOptions(base_url=server.gemini_base_url)
            client = genai.Client(api_key=FAKE_API_KEY, http_options=options)
            return run_agent(
                client, session.task, session.openai_tools, session.call_tool, stream=True
            )

    record = unsolvable.run(agent, scenarios.get("constant-return/repeat"), strict=True)
    assert record.code is Code.NO_PROGRESS and record.observed.transport_attempts == 3


def test_the_unmodified_agent_runs_in_a_child_process() -> None:
    agent = child_agent("tests.frameworks.gemini.sdk_agent")
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
            options = types.HttpOptions(
                base_url="https://llm.example.com", httpx_client=wire.httpx2_client()
            )
            client = genai.Client(api_key="AIza-SECRET", http_options=options)
            return run_agent(client, session.task, session.openai_tools, session.call_tool)

    record = unsolvable.run(agent, scenarios.get("constant-return/repeat"))
    assert record.outcome is Outcome.CRASHED and "llm.example.com" in str(record.observed.error)
    assert "SECRET" not in record.to_json()


def test_automatic_function_calling_runs_the_python_tools_until_its_call_limit() -> None:
    """The SDK's default with Python callables as tools: it calls them itself until it has made
    ``maximum_remote_calls`` (10) model calls, then hands back the last reply, its call
    unanswered: ten steps, nine tool calls, and no stop of its own."""
    answers: list[types.GenerateContentResponse] = []

    def agent(session: Session) -> Mapping[str, Any]:
        def search_invoices(query: str, customer: str, offset: int) -> str:
            """Search the customer's invoices."""
            return session.call_tool(
                "search_invoices", {"query": query, "customer": customer, "offset": offset}
            )

        with Wire(session) as wire:
            config = types.GenerateContentConfig(tools=[search_invoices])
            answers.append(
                wire.gemini_client().models.generate_content(
                    model=MODEL, contents=session.task, config=config
                )
            )
        return {"code": "COMPLETED", "reason": "the SDK returned"}

    record = unsolvable.run(agent, scenarios.get("constant-return/repeat"))
    assert (record.observed.steps, record.observed.tool_calls) == (10, 9)
    assert answers[0].function_calls and record.code is Code.COMPLETED


def test_the_exec_face_hands_the_unmodified_agent_the_gemini_base_url_and_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``exec:`` gives ``GOOGLE_GEMINI_BASE_URL`` and ``GEMINI_API_KEY``, which ``genai.Client()``
    reads when built with no arguments."""
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    agent = ProcessAdapter(
        [sys.executable, "-m", "tests.frameworks.gemini.sdk_agent", "{task}", "{tools}"]
    )
    record = unsolvable.run(
        agent, scenarios.get("constant-return/repeat"), strict=True, ceilings=CHILD_CEILINGS
    )
    assert record.code is Code.NO_PROGRESS and record.observed.steps == 3
