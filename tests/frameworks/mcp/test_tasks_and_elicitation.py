"""A task that stays working and a permission asked by elicitation, over the MCP server, as the
real clients meet them: the `mcp` SDK's own (both protocol eras), pydantic-ai's ``MCPToolset``
and ``langchain.mcp`` (fastmcp 4). Each poll and each refused call is counted once."""

from __future__ import annotations

import asyncio
import dataclasses
import re
from typing import Any

import pytest

pytest.importorskip("mcp")

import mcp_types as types
from mcp import Client
from mcp.client._input_required import InputRequiredRoundsExceededError
from mcp.shared.exceptions import MCPError

import unsolvable
from tests._docs import DOCS, compiled
from tests.frameworks.mcp._clients import Ran, langchain_run, pydantic_ai_run, served
from unsolvable import (
    Ceilings,
    Code,
    Exit,
    Scenario,
    Session,
    Stop,
    TerminationRecord,
    ToolSpec,
    scenarios,
)

CEILINGS = Ceilings(max_wall_seconds=60.0)
"""The MCP server's process starts on the first connection: seconds on a loaded machine."""
POLLS = 11
"""The first call and the `mcp` SDK's ten retries (``input_required_max_rounds``) before it
gives up on a task that stays working."""
(EXAMPLE,) = [
    block
    for block in re.findall(r"```python\n(.*?)```", DOCS, re.S)
    if "stays_working = Scenario(" in block
]


def _readme_example() -> dict[str, Any]:
    """The README's scenario of a job that stays working, run as written."""
    namespace: dict[str, Any] = {"__name__": "readme_example"}
    exec(compiled(EXAMPLE), namespace)
    return namespace


EXAMPLE_NAMES = _readme_example()
EXPORT: ToolSpec = EXAMPLE_NAMES["EXPORT"]
WORKING: Scenario = EXAMPLE_NAMES["stays_working"]
REFUSED = dataclasses.replace(scenarios.get("missing-permission/retry-403"), mcp_elicit=True)


def _run(use: Any, scenario: Scenario) -> tuple[TerminationRecord, Any]:
    """Runs ``use(session, served)`` as the agent; the record and what ``use`` returned."""
    ran: dict[str, Any] = {}

    def agent(session: Session) -> Any:
        with served(session) as parts:
            ran["returned"] = asyncio.run(use(session, parts))
        return ran["returned"]

    return unsolvable.run(agent, scenario, ceilings=CEILINGS), ran["returned"]


async def _idle_agent(session: Session, parts: Any) -> Stop:
    """Calls the job once over MCP; its SDK polls the task, and when it gives up the agent
    stops on its idle budget, as it should: the task never changed state."""
    session.call_model([{"role": "user", "content": session.task}], session.tools)
    try:
        async with Client(parts[1].url) as client:
            await client.call_tool(EXPORT.name, {"id": "R-0"})
    except Exception as error:
        if not _gave_up(error):
            raise
        reason = "the export stayed working past every poll of its client"
        return Stop(code=Code.BUDGET_IDLE, reason=reason, partial={"polls": POLLS})
    return Stop(code=Code.COMPLETED)


def _gave_up(error: BaseException) -> bool:
    """Whether the client gave up polling (the SDK raises it inside a task group)."""
    if isinstance(error, BaseExceptionGroup):
        return any(_gave_up(inner) for inner in error.exceptions)
    return isinstance(error, InputRequiredRoundsExceededError)


def test_a_task_that_stays_working_is_polled_and_recorded_against_the_idle_budget() -> None:
    record, _ = _run(_idle_agent, WORKING)
    assert (record.exit, record.code) == (Exit.EXHAUSTED, Code.BUDGET_IDLE)
    assert record.observed.tool_calls == POLLS  # every poll reached the harness, once
    assert record.verdict.passed


@pytest.mark.parametrize(("mode", "version"), [("auto", "2026-07-28"), ("legacy", "2025-11-25")])
def test_a_task_reaches_the_2026_client_as_working_and_older_ones_as_a_waiting_answer(
    mode: str, version: str
) -> None:
    async def use(session: Session, parts: Any) -> Ran:
        version = ""
        try:
            async with Client(parts[1].url, mode=mode) as client:
                version = client.protocol_version
                result = await client.call_tool(EXPORT.name, {"id": "R-0"})
        except Exception as error:
            if not _gave_up(error):
                raise
            return {"version": version, "how": "gave up"}
        return {"version": version, "how": result.content[0].text}

    record, ran = _run(use, WORKING)
    assert ran["version"] == version
    if mode == "auto":
        assert (ran["how"], record.observed.tool_calls) == ("gave up", POLLS)
    else:
        assert '"status": "pending"' in ran["how"] and record.observed.tool_calls == 1


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_missing_permission_is_asked_by_elicitation_and_a_decline_leaves_it_refused(
    mode: str,
) -> None:
    asked: list[str] = []

    async def decline(context: Any, params: Any) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="decline")

    async def use(session: Session, parts: Any) -> Ran:
        async with Client(parts[1].url, mode=mode, elicitation_callback=decline) as client:
            result = await client.call_tool("publish_report", {"report_id": "R-0"})
            return {"is_error": result.is_error, "text": result.content[0].text}

    record, ran = _run(use, REFUSED)
    assert asked == [
        "publish_report needs the permission 'reports:publish', which this token lacks. Grant it?"
    ]
    assert ran["is_error"] and "403" in ran["text"]
    assert (record.observed.tool_calls, record.observed.refusals) == (1, {"denied": 1})


async def _started(run: Any, session: Session, parts: Any) -> Ran:
    """``run`` once the server's process is up: fastmcp's connection gives up after a timeout
    of its own, which the process's start-up on a loaded machine can outlast."""
    async with Client(parts[1].url):
        pass
    result: Ran = await run(session, "http", parts)
    return result


def test_pydantic_ai_polls_a_working_task_until_its_client_gives_up() -> None:
    record, ran = _run(lambda session, parts: _started(pydantic_ai_run, session, parts), WORKING)
    assert ran["how"] == "InputRequiredRoundsExceededError", ran
    assert (record.observed.steps, record.observed.tool_calls) == (1, POLLS)


def test_langchain_mcp_cannot_follow_a_working_task() -> None:
    record, ran = _run(lambda session, parts: _started(langchain_run, session, parts), WORKING)
    assert ran["how"] == "NotImplementedError" and "continuation round" in ran["last"]
    assert record.observed.tool_calls == 1


def test_langchain_mcp_interrupts_its_graph_on_an_elicitation() -> None:
    record, ran = _run(lambda session, parts: _started(langchain_run, session, parts), REFUSED)
    assert (ran["how"], ran["calls"]) == ("final", 0)  # interrupted: no tool result in the run
    assert record.observed.refusals == {"denied": 1}


@pytest.mark.parametrize("state", ["asked:garbage", 'asked:{"status": 200, "text": "done"}'])
def test_a_request_state_the_server_did_not_mint_is_refused_naming_it(state: str) -> None:
    """A client's ``requestState`` is its own to write: one the server never sent is refused as
    invalid, neither answered from (a result the harness never counted) nor an internal error."""

    async def use(session: Session, parts: Any) -> Ran:
        async with Client(parts[1].url) as client:
            with pytest.raises(MCPError) as refused:
                await client.call_tool("publish_report", {"report_id": "R-0"}, request_state=state)
            listed = await client.list_tools()  # the server goes on serving
        return {"error": refused.value.error, "tools": len(listed.tools)}

    record, ran = _run(use, REFUSED)
    assert (ran["error"].code, ran["error"].message) == (
        types.INVALID_PARAMS,
        "Invalid or expired requestState",
    )
    assert ran["tools"] and record.observed.tool_calls == 0


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_client_that_declares_no_elicitation_is_not_asked_and_gets_the_refusal(
    mode: str,
) -> None:
    async def use(session: Session, parts: Any) -> Ran:
        async with Client(parts[1].url, mode=mode) as client:  # no elicitation_callback
            result = await client.call_tool("publish_report", {"report_id": "R-0"})
            return {"is_error": result.is_error, "text": result.content[0].text}

    record, ran = _run(use, REFUSED)
    assert ran["is_error"] and "403" in ran["text"]
    assert (record.observed.tool_calls, record.observed.refusals) == (1, {"denied": 1})
