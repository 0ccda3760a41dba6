"""`OpenAIAgentsAdapter(mcp=True)`: the scenario's tools reach a real Agents SDK agent over MCP,
through the SDK's own ``MCPServerStreamableHttp`` and the harness's MCP server in its own
process, and every call is counted and judged as a function tool's is."""

from __future__ import annotations

import pytest

pytest.importorskip("agents")
pytest.importorskip("mcp")

from typing import Any

from agents import Agent
from agents.mcp import MCPServerStdio

import unsolvable
import unsolvable.mcp
from tests import _builders as builders
from tests.frameworks._glue import reported
from unsolvable import AdapterError, Call, Claim, Code, Exit, Until, scenarios
from unsolvable._run import ceilings_for
from unsolvable.adapters.openai_agents import MCP_WALL_SECONDS, AgentBindings, OpenAIAgentsAdapter

BILLING = Agent(name="billing", instructions="Do the task with the tools you have.")
NOWHERE = MCPServerStdio(params={"command": "/nonexistent/their-real-mcp-server"})
"""An agent's own MCP server, which the harness must never start: it would fail the run."""


@pytest.mark.parametrize(
    "name",
    ["constant-return/repeat", "missing-permission/retry-403", "contradictory-criteria/alternate"],
)
def test_its_tools_over_mcp_are_counted_and_judged_as_function_tools_are(name: str) -> None:
    over_mcp, direct = (
        unsolvable.run(OpenAIAgentsAdapter(BILLING, mcp=mcp), scenarios.get(name))
        for mcp in (True, False)
    )
    assert (over_mcp.exit, over_mcp.code) == (Exit.EXHAUSTED, Code.BUDGET_STEPS)
    assert reported(over_mcp).partial["tool_results"] == 10
    for record in (over_mcp, direct):
        observed = record.observed
        assert (observed.steps, observed.tool_calls, observed.transport_attempts) == (10, 10, 10)
    assert over_mcp.verdict.passed == direct.verdict.passed
    assert over_mcp.observed.first_stagnant_step == direct.observed.first_stagnant_step


def test_the_same_run_over_mcp_gives_the_same_record() -> None:
    first, again = (
        unsolvable.run(
            OpenAIAgentsAdapter(BILLING, mcp=True), scenarios.get("constant-return/repeat")
        )
        for _ in range(2)
    )
    assert first.to_json() == again.to_json()


@pytest.mark.parametrize("mcp", [True, False], ids=["over-mcp", "function-tools"])
def test_an_agents_own_mcp_servers_are_never_started(mcp: bool) -> None:
    agent = BILLING.clone(mcp_servers=[NOWHERE])
    record = unsolvable.run(
        OpenAIAgentsAdapter(agent, mcp=mcp), scenarios.get("constant-return/repeat")
    )
    assert record.observed.error is None
    assert (record.code, record.observed.steps) == (Code.BUDGET_STEPS, 10)


def test_its_wall_ceiling_leaves_room_for_the_servers_start() -> None:
    assert ceilings_for(OpenAIAgentsAdapter(BILLING, mcp=True)).max_wall_seconds == (
        MCP_WALL_SECONDS
    )
    assert ceilings_for(OpenAIAgentsAdapter(BILLING)).max_wall_seconds == 10.0


def _auditor(bind: AgentBindings) -> Agent[Any]:
    """One agent, ``auditor``, whatever the mode: its tools as functions, or over MCP."""
    return Agent(
        name="auditor",
        instructions="Do the task with the tools you have.",
        model=bind.model("auditor"),
        tools=[*bind.tools("auditor")],
        mcp_servers=bind.mcp_servers("auditor"),
    )


def test_per_agent_each_agents_calls_over_mcp_are_its_own() -> None:
    """The script claims once a model call is handed a search result: the auditor's call is
    handed its own, so the run ends at its second step. Were its MCP calls ``main``'s, it would
    search on to ``max_turns``."""
    records = {
        mcp: unsolvable.run(
            OpenAIAgentsAdapter(_auditor, per_agent=True, mcp=mcp, max_turns=6),
            builders.scenario(
                script=Until(call=Call(name="search"), marker='"results"', then=Claim())
            ),
        )
        for mcp in (True, False)
    }
    for record in records.values():
        assert record.observed.steps_by_agent == {"auditor": 2}
        assert (record.code, record.observed.tool_calls) == (Code.COMPLETED, 1)
    assert records[True].observed.tool_calls == records[False].observed.tool_calls


def test_per_agent_an_mcp_server_for_a_name_no_url_can_carry_is_refused() -> None:
    def build(bind: AgentBindings) -> Agent[Any]:
        return Agent(name="lead", model=bind.model("main"), mcp_servers=bind.mcp_servers("a b"))

    record = unsolvable.run(
        OpenAIAgentsAdapter(build, per_agent=True, mcp=True),
        scenarios.get("constant-return/repeat"),
    )
    assert "cannot name an agent" in str(record.observed.error)


def test_without_the_mcp_package_it_says_which_extra_before_the_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(unsolvable.mcp, "is_available", lambda: False, raising=False)
    with pytest.raises(AdapterError, match=r"pip install 'pytest-unsolvable\[mcp\]'"):
        unsolvable.run(
            OpenAIAgentsAdapter(BILLING, mcp=True), scenarios.get("constant-return/repeat")
        )


def test_a_builder_is_handed_no_function_tools_and_gets_them_over_mcp() -> None:
    handed: list[object] = []

    def build(tools: list[object]) -> Agent:
        handed.append(tools)
        return BILLING

    record = unsolvable.run(
        OpenAIAgentsAdapter(build, mcp=True), scenarios.get("constant-return/repeat")
    )
    assert handed == [[]]
    assert (record.observed.steps, record.observed.tool_calls) == (10, 10)


@pytest.mark.parametrize("mcp", [True, False], ids=["over-mcp", "function-tools"])
def test_per_agent_the_tools_come_one_way_only(mcp: bool) -> None:
    handed: dict[str, int] = {}

    def build(bind: AgentBindings) -> Agent[Any]:
        handed.update(tools=len(bind.tools("auditor")), servers=len(bind.mcp_servers("auditor")))
        return _auditor(bind)

    unsolvable.run(
        OpenAIAgentsAdapter(build, per_agent=True, mcp=mcp, max_turns=1),
        scenarios.get("constant-return/repeat"),
    )
    assert handed == ({"tools": 0, "servers": 1} if mcp else {"tools": 4, "servers": 0})
