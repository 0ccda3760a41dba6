"""`ToolNames`: an agent that spells the scenario's tools with a prefix (Claude Code's
``mcp__<server>__``) is offered, answered and recorded in the scenario's names."""

from __future__ import annotations

from typing import Any

import unsolvable
from tests import _builders as b
from unsolvable import Ceilings
from unsolvable.wire import OPENAI_BASE_URL, ToolNames, Wire

PREFIX = "mcp__unsolvable__"
TOOL = {"name": f"{PREFIX}search", "description": "finds nothing", "input_schema": {}}


def _session() -> unsolvable.Session:
    scenario = b.scenario(step_bound=50)
    return unsolvable.Session(scenario, scenario.build(0), seed=0, ceilings=Ceilings())


def test_calls_go_out_prefixed_and_come_back_in_the_scenarios_names() -> None:
    session = _session()
    with Wire(session, tool_names=ToolNames(prefix=PREFIX)) as wire:
        client = wire.anthropic_client()
        messages: list[dict[str, object]] = [{"role": "user", "content": "go"}]
        for _ in range(2):
            reply = client.messages.create(model="m", max_tokens=9, messages=messages, tools=[TOOL])
            use = next(block for block in reply.content if block.type == "tool_use")
            assert use.name == f"{PREFIX}search"
            result = session.call_tool("search", use.input)
            messages += [
                {"role": "assistant", "content": [use.model_dump()]},
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": use.id, "content": result}],
                },
            ]
    observed = session.finish()
    assert [call.name for step in observed.tail for call in step.calls] == ["search", "search"]
    assert observed.overhead_tokens > 0  # the offered tool was recognised as the scenario's


def test_without_the_option_a_prefixed_tool_is_not_the_scenarios() -> None:
    session = _session()
    with Wire(session) as wire:
        wire.anthropic_client().messages.create(
            model="m", max_tokens=9, messages=[{"role": "user", "content": "go"}], tools=[TOOL]
        )
    assert session.finish().overhead_tokens == 0  # nothing it offered is a scenario tool


def test_each_request_is_answered_in_the_spelling_its_offered_tools_use() -> None:
    """One face for agents that spell the tools differently (Claude Code's ``mcp__unsolvable__``,
    Gemini CLI's ``mcp_unsolvable_``): the reply's call is in the request's own spelling."""
    names = ToolNames(prefix=PREFIX, others=("mcp_unsolvable_",))
    for spelt in (PREFIX, "mcp_unsolvable_"):
        session = _session()
        with Wire(session, tool_names=names) as wire:
            tool = {**TOOL, "name": f"{spelt}search"}
            reply = wire.anthropic_client().messages.create(
                model="m", max_tokens=9, messages=[{"role": "user", "content": "go"}], tools=[tool]
            )
        assert [block.name for block in reply.content if block.type == "tool_use"] == [
            f"{spelt}search"
        ]
        assert session.finish().overhead_tokens > 0, spelt


def test_a_request_offering_no_tools_reads_earlier_calls_in_either_spelling() -> None:
    """A side request (a summary, a check) offers no tools but holds the calls made so far."""
    names = ToolNames(prefix=PREFIX, others=("mcp_unsolvable_",)).spelling(())
    history: list[dict[str, Any]] = [
        {"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": n}}]}
        for n in (f"{PREFIX}search", "mcp_unsolvable_search", "search")
    ]
    messages, tools = names.read(history, ())
    assert [m["tool_calls"][0]["function"]["name"] for m in messages] == ["search"] * 3
    assert tools == () and names.outbound("search") == f"{PREFIX}search"


def test_a_tool_call_of_the_wrong_shape_is_a_final_400_not_a_harness_failure() -> None:
    """A past call without its function, read in the scenario's names: the agent's error."""
    session = _session()
    call = {"id": "call_1", "type": "function"}
    ask = {"model": "m", "messages": [{"role": "user", "content": "go"},
           {"role": "assistant", "content": None, "tool_calls": [call]},
           {"role": "tool", "tool_call_id": "call_1", "content": "{}"}]}  # fmt: skip
    with Wire(session, tool_names=ToolNames(prefix=PREFIX)) as wire:
        response = wire.httpx2_client().post(f"{OPENAI_BASE_URL}/chat/completions", json=ask)
    assert response.status_code == 400 and "not in the shape its API takes" in response.text
    assert response.headers["x-should-retry"] == "false"
