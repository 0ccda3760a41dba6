"""The scenario's tools over MCP, used by real clients — the `mcp` SDK's own (both protocol
eras), raw 2025-era JSON-RPC, the OpenAI Agents SDK, ``langchain.mcp`` and pydantic-ai — over
stdio and Streamable HTTP: each call is counted and judged as ``session.call_tool`` would be, and
each failed-call encoding (`McpErrors`) lands in each client as it does in production."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import subprocess
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

import pytest

pytest.importorskip("mcp")

import httpx
from mcp import Client, MCPError, StdioServerParameters
from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT

import unsolvable
from tests import _builders as builders
from tests.frameworks.mcp._clients import (
    Ran,
    Served,
    agents_sdk_run,
    langchain_run,
    pydantic_ai_run,
    served,
    stdio,
)
from unsolvable import (
    Call,
    Ceilings,
    Claim,
    McpErrors,
    Session,
    TerminationRecord,
    Until,
    scenarios,
)
from unsolvable.mcp._calls import TOOL_ERROR
from unsolvable.wire._agents import agent_url

REFUSED = "missing-permission/retry-403"
CEILINGS = Ceilings(max_wall_seconds=60.0)
"""The MCP server's process starts on the first connection: seconds on a loaded machine."""
Use = Callable[[Session, Served], Awaitable[Ran]]


def run_with(
    use: Use, name: str = REFUSED, errors: str = "result"
) -> tuple[TerminationRecord, Ran]:
    """Runs ``use`` as the agent on the scenario served over MCP; the record and what it saw."""
    ran: Ran = {}

    def agent(session: Session) -> None:
        with served(session) as parts:
            try:
                ran.update(asyncio.run(use(session, parts)))
            except Exception as error:  # what escapes the client's own run
                ran.update(how=f"raised {type(error).__name__}", last=str(error))

    scenario = dataclasses.replace(scenarios.get(name), mcp_errors=McpErrors(errors))
    return unsolvable.run(agent, scenario, ceilings=CEILINGS), ran


def _sdk_target(transport: str, parts: Served) -> str | StdioServerParameters:
    if transport == "http":
        return parts[1].url
    command, args = stdio()
    return StdioServerParameters(command=command, args=args, env=parts[2])


@pytest.mark.parametrize("transport", ["http", "stdio"])
@pytest.mark.parametrize(("mode", "version"), [("auto", "2026-07-28"), ("legacy", "2025-11-25")])
def test_the_mcp_sdk_client_negotiates_each_era_and_each_call_is_counted(
    transport: str, mode: str, version: str
) -> None:
    async def use(session: Session, parts: Served) -> Ran:
        async with Client(_sdk_target(transport, parts), mode=mode) as client:
            call = ("publish_report", {"report_id": "R-0"})
            results = [await client.call_tool(*call) for _ in range(3)]
            return {"version": client.protocol_version, "results": results}

    record, ran = run_with(use)
    assert ran["version"] == version
    assert [r.is_error for r in ran["results"]] == [True, True, True]
    assert "reports:publish" in ran["results"][0].content[0].text
    assert record.observed.tool_calls == 3


FAILURES = [  # a refusal as text, a refusal raised by the tool, a dependency that is down
    ("missing-permission/retry-403", "publish_report", 403),
    ("missing-permission/retry-raises", "publish_report", 403),
    ("dependency-unavailable/retry", "fetch_exchange_rates", 503),
]


@pytest.mark.parametrize(("name", "tool", "status"), FAILURES)
@pytest.mark.parametrize("errors", ["result", "protocol"])
def test_each_failed_call_has_an_explicit_encoding(
    name: str, tool: str, status: int, errors: str
) -> None:
    async def use(session: Session, parts: Served) -> Ran:
        async with Client(parts[1].url) as client:
            try:
                result = await client.call_tool(tool, {"report_id": "R-0"})
            except MCPError as error:
                return {"code": error.code, "status": error.data["status"], "text": error.message}
            text = result.content[0].text
            return {"code": None, "is_error": result.is_error, "text": text}

    record, ran = run_with(use, name, errors)
    assert f"{status}" in ran["text"] and record.observed.tool_calls == 1
    if errors == "result":
        assert (ran["code"], ran["is_error"]) == (None, True)
    else:
        assert (ran["code"], ran["status"]) == (TOOL_ERROR, status)


async def _raised(target: str | StdioServerParameters) -> Ran:
    """The code of the `MCPError` the `mcp` SDK's `Client` raises calling a refused tool at
    ``target``, found inside the task groups the client's own errors come wrapped in."""
    try:
        async with Client(target) as client:
            await client.call_tool("publish_report", {"report_id": "R-0"})
    except Exception as error:
        leaf: BaseException = error
        while isinstance(leaf, BaseExceptionGroup) and len(leaf.exceptions) == 1:
            leaf = leaf.exceptions[0]
        return {"code": leaf.code if isinstance(leaf, MCPError) else repr(leaf)}
    return {"code": None}


def test_a_protocol_error_is_not_the_clients_own_connection_closed() -> None:
    """The client raises `MCPError` both for the harness's encoding of a failed call and for a
    server that hung up mid-call (its own ``CONNECTION_CLOSED``, which the OpenAI Agents SDK
    retries in a new session): only the code tells the two apart."""
    _, failed = run_with(lambda _, parts: _raised(parts[1].url), errors="protocol")
    _, hung_up = run_with(lambda _, parts: _raised(_sdk_target("stdio", parts)), errors="transport")
    assert hung_up["code"] == CONNECTION_CLOSED, "the client's own error, for comparison"
    assert failed["code"] not in {hung_up["code"], REQUEST_TIMEOUT}


def test_a_request_without_the_runs_key_is_not_the_clients_own_timeout_or_close() -> None:
    """Refused for want of the key, the client raises the harness's code, not one of its own."""

    async def unkeyed(session: Session, parts: Served) -> Ran:
        return await _raised(parts[1].url.replace(f"/{parts[1].key}/", "/"))

    _, refused = run_with(unkeyed)
    assert isinstance(refused["code"], int)
    assert refused["code"] not in {CONNECTION_CLOSED, REQUEST_TIMEOUT}


def _observed(record: TerminationRecord) -> dict[str, Any]:
    keep = ("tool_calls", "refusals", "max_repeated_action", "distinct_world_states")
    return {key: getattr(record.observed, key) for key in keep}


@pytest.mark.parametrize("name", [REFUSED, "constant-return/repeat"])
def test_calls_over_mcp_are_observed_exactly_as_session_call_tool(name: str) -> None:
    tool, arguments = scenarios.get(name).build(0).toolbox.specs[0].name, {"query": "x"}

    def direct(session: Session) -> None:
        for _ in range(3):
            session.call_tool(tool, arguments)

    async def use(session: Session, parts: Served) -> Ran:
        async with Client(parts[1].url) as client:
            for _ in range(3):
                await client.call_tool(tool, arguments)
        return {}

    over_mcp, _ = run_with(use, name)
    assert _observed(over_mcp) == _observed(unsolvable.run(direct, scenarios.get(name)))


@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2025-06-18"])
def test_a_2025_era_client_is_answered_in_its_own_protocol_version(version: str) -> None:
    """What a client of those years sends, by hand: initialize, then a call in its session."""

    async def use(session: Session, parts: Served) -> Ran:
        accept = {"accept": "application/json, text/event-stream"}
        async with httpx.AsyncClient(headers=accept) as http:
            hello = {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "c", "version": "1"},
            }
            init = await http.post(parts[1].url, json=_rpc("initialize", hello, 1))
            headers = {"mcp-session-id": init.headers["mcp-session-id"]}
            headers["mcp-protocol-version"] = version
            await http.post(parts[1].url, json=_rpc("notifications/initialized"), headers=headers)
            call = {"name": "publish_report", "arguments": {"report_id": "R-0"}}
            answer = await http.post(
                parts[1].url, json=_rpc("tools/call", call, 2), headers=headers
            )
        return {"version": init.json()["result"]["protocolVersion"], "result": answer.json()}

    record, ran = run_with(use)
    assert ran["version"] == version
    assert ran["result"]["result"]["isError"] is True
    assert record.observed.tool_calls == 1


def _rpc(method: str, params: dict[str, Any] | None = None, id: int | None = None) -> Ran:
    message: Ran = {"jsonrpc": "2.0", "method": method, "params": params or {}}
    return message if id is None else {**message, "id": id}


@pytest.mark.parametrize(
    ("errors", "seen"),
    [("result", "reports:publish"), ("protocol", "An error occurred while running the tool")],
)
@pytest.mark.parametrize("transport", ["http", "stdio"])
def test_an_agents_sdk_agent_on_mcp_goes_on_to_max_turns_counted_call_for_call(
    transport: str, errors: str, seen: str
) -> None:
    record, ran = run_with(lambda _, parts: agents_sdk_run(transport, parts), errors=errors)
    assert (ran["how"], record.observed.steps) == ("MaxTurnsExceeded", 10)
    assert ran["calls"] == record.observed.tool_calls == 10
    assert seen in ran["last"]


@pytest.mark.parametrize(
    ("transport", "errors", "how", "calls"),
    [
        ("http", "transport", "MaxTurnsExceeded", 10),  # a 502 is "an error occurred", again
        ("stdio", "transport", "raised MCPError", 1),  # the server's exit escapes the run
    ],
)
def test_a_transport_failure_lands_in_the_agents_sdk_as_measured(
    transport: str, errors: str, how: str, calls: int
) -> None:
    record, ran = run_with(lambda _, parts: agents_sdk_run(transport, parts), errors=errors)
    assert (ran["how"], record.observed.tool_calls) == (how, calls)


@pytest.mark.parametrize("transport", ["http", "stdio"])
def test_langchain_mcp_turns_an_error_result_into_a_tool_message_and_goes_on(
    transport: str,
) -> None:
    record, ran = run_with(lambda session, parts: langchain_run(session, transport, parts))
    assert ran["how"] == "GraphRecursionError"
    assert (record.observed.steps, record.observed.tool_calls) == (11, 10)


@pytest.mark.parametrize("errors", ["protocol", "transport"])
def test_langchain_mcp_ends_the_run_on_a_protocol_or_transport_error(errors: str) -> None:
    record, ran = run_with(lambda s, parts: langchain_run(s, "http", parts), errors=errors)
    assert (ran["how"], record.observed.steps, record.observed.tool_calls) == ("MCPError", 1, 1)


@pytest.mark.parametrize(
    ("transport", "errors", "calls"),
    [
        ("http", "result", 2),
        ("stdio", "result", 2),
        ("http", "protocol", 2),
        ("stdio", "transport", 1),
    ],
)
def test_pydantic_ai_retries_a_failed_mcp_call_once_then_ends_the_run(
    transport: str, errors: str, calls: int
) -> None:
    record, ran = run_with(lambda s, parts: pydantic_ai_run(s, transport, parts), errors=errors)
    assert ran["how"] == "UnexpectedModelBehavior" and "exceeded max retries" in ran["last"]
    assert (record.observed.steps, record.observed.tool_calls) == (2, calls)


def test_the_server_started_by_hand_prints_its_url_and_serves() -> None:
    """``python -m unsolvable.mcp --http --port 0``, as the module's docstring says to start it."""

    async def use(session: Session, parts: Served) -> Ran:
        command, args = stdio()
        env = {**os.environ, **parts[2]}
        argv = [command, *args, "--http", "--port", "0"]
        with subprocess.Popen(argv, env=env, stdout=subprocess.PIPE) as server:
            try:  # a server that never prints its URL is killed too, at the run's wall ceiling
                assert server.stdout is not None
                url = server.stdout.readline().decode().strip()
                async with Client(url) as client:
                    result = await client.call_tool("publish_report", {"report_id": "R-0"})
            finally:
                server.kill()
        return {"url": url, "is_error": result.is_error}

    record, ran = run_with(use)
    assert ran["url"].startswith("http://127.0.0.1:") and ran["url"].endswith("/mcp")
    assert ran["is_error"] is True and record.observed.tool_calls == 1


def _notices() -> Until:
    """Claims as soon as an agent's model call is handed a search result, each agent searching
    until it is: whose call is handed it shows whose tool call it was. Stateful, so one per run."""
    return Until(call=Call(name="search"), marker='"results"', then=Claim())


@pytest.mark.parametrize("transport", ["http", "stdio"])
@pytest.mark.parametrize("named", [True, False], ids=["agent-path", "no-agent"])
def test_a_sub_agents_calls_over_mcp_are_its_own_when_its_path_names_it(
    transport: str, named: bool
) -> None:
    """A client of ``…/agents/worker-1/mcp`` (over stdio: of the server started with the tools
    URL ``…/agents/worker-1/tools``) calls for ``worker-1``: its result goes to that agent's next
    model call, not to ``main``'s, as a call through the wire's own agent paths does."""
    seen: dict[str, Any] = {}

    def agent(session: Session) -> None:
        with served(session) as (wire, mcp, environ):
            bound = {
                **environ,
                "UNSOLVABLE_TOOLS_URL": agent_url(environ["UNSOLVABLE_TOOLS_URL"], "worker-1"),
            }
            if transport == "http":
                target: Any = agent_url(mcp.url, "worker-1") if named else mcp.url
            else:
                command, args = stdio()
                target = StdioServerParameters(
                    command=command, args=args, env=bound if named else environ
                )

            async def use() -> None:
                async with Client(target) as client:
                    await client.call_tool("search", {})

            asyncio.run(use())
            ask = [{"role": "user", "content": session.task}]
            for name in ("main", "worker-1"):
                seen[name] = "tool_calls" in session.call_model(ask, session.tools, agent=name)
            seen["urls"] = [a.url for a in wire.attempts if a.kind == "tool"]

    unsolvable.run(agent, builders.scenario(script=_notices()), ceilings=CEILINGS)
    assert seen["main"] is named, "main is handed the result only when no agent is named"
    assert seen["worker-1"] is not named, "worker-1 is handed it only when its path names it"
    path = "/agents/worker-1/tools/search" if named else "/tools/search"
    assert [urlsplit(url).path for url in seen["urls"]] == [path]


@pytest.mark.parametrize("named", [False, True], ids=["mcp", "agent-path"])
def test_a_client_given_the_url_with_a_trailing_slash_is_served(named: bool) -> None:
    """A client configured with ``…/mcp/`` (a hand-written config, a base URL joined with a
    slash) was redirected to ``http://127.0.0.1:<port>/mcp``, a URL without the run's key, and
    then refused as if it had never had it ("this run's key is missing"); an agent's path
    (``…/agents/worker-1/mcp/``) was not found at all."""

    async def use(session: Session, parts: Served) -> Ran:
        url = agent_url(parts[1].url, "worker-1") if named else parts[1].url
        async with Client(f"{url}/") as client:
            result = await client.call_tool("publish_report", {"report_id": "R-0"})
        return {"is_error": result.is_error, "urls": [a.url for a in parts[0].attempts]}

    record, ran = run_with(use)
    assert "how" not in ran, ran.get("last")
    assert ran["is_error"] is True and record.observed.tool_calls == 1
    assert ("/agents/worker-1/tools/" in ran["urls"][0]) is named
