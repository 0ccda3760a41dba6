"""Tool-call ids never repeat in a run, on every face, through a script's change of phase:
the Agents SDK aborts a run whose model reuses an id, and other frameworks match a
result to its call by id."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import unsolvable
from tests.frameworks._families import ROOMY
from tests.frameworks._glue import recording, tool_call_ids
from unsolvable import Code, Outcome, Session, Stop
from unsolvable.wire import Wire

PHASED = ["poll-until-ready/pending-3", "slow-dependency/fails-2"]
"""Scripts that wait, then save, then claim: three phases, each counting its steps from 1."""


def _langgraph() -> Any:
    pytest.importorskip("langchain")
    from langchain.agents import create_agent

    from unsolvable.adapters.langgraph import LangGraphAdapter

    return LangGraphAdapter(create_agent)


def _openai_agents(api: str, *, streamed: bool = False) -> Callable[[], Any]:
    def make() -> Any:
        pytest.importorskip("agents")
        from agents import Agent

        from unsolvable.adapters.openai_agents import OpenAIAgentsAdapter

        agent = Agent(name="exporter", instructions="Do the task.")
        return OpenAIAgentsAdapter(agent, api=api, streamed=streamed)

    return make


def _pydantic_ai() -> Any:
    pytest.importorskip("pydantic_ai")
    from pydantic_ai import Agent

    from unsolvable.adapters.pydantic_ai import PydanticAIAdapter

    return PydanticAIAdapter(Agent(instructions="Do the task."))


def _smolagents() -> Any:
    pytest.importorskip("smolagents")
    from smolagents import LogLevel, ToolCallingAgent

    from unsolvable.adapters.smolagents import SmolagentsAdapter

    return SmolagentsAdapter(
        lambda model, tools: ToolCallingAgent(
            tools=tools, model=model, verbosity_level=LogLevel.OFF
        )
    )


ADAPTERS = {
    "langgraph": _langgraph,
    "openai-agents-responses": _openai_agents("responses"),
    "openai-agents-chat": _openai_agents("chat_completions"),
    "openai-agents-streamed": _openai_agents("responses", streamed=True),
    "pydantic-ai": _pydantic_ai,
    "smolagents": _smolagents,
}


@pytest.mark.parametrize("name", PHASED)
@pytest.mark.parametrize("adapter", sorted(ADAPTERS))
def test_a_phased_run_completes_with_unique_tool_call_ids(adapter: str, name: str) -> None:
    scenario, log = recording(name)
    record = unsolvable.run(ADAPTERS[adapter](), scenario, ceilings=ROOMY)
    ids = tool_call_ids(log)
    assert len(ids) == len(set(ids)) and ids
    assert record.outcome is Outcome.STOPPED and record.verdict is not None
    assert record.verdict.passed, record.verdict.failures


def _chat_loop(session: Session) -> Stop:
    """A naive Chat Completions agent: it calls tools until the model answers without one."""
    pytest.importorskip("openai")
    with Wire(session) as wire:
        client, messages = wire.openai_client(), [{"role": "user", "content": session.task}]
        while True:
            create = client.chat.completions.create
            reply = create(model="m", messages=messages, tools=session.openai_tools)
            message = reply.choices[0].message
            messages.append(message.model_dump(exclude_none=True))
            if not message.tool_calls:
                return Stop(code=Code.COMPLETED, reason=message.content or "")
            for call in message.tool_calls:
                result = session.call_tool(call.function.name, call.function.arguments)
                messages.append({"role": "tool", "tool_call_id": call.id, "content": result})


def _anthropic_loop(session: Session) -> Stop:
    """The same naive agent on Anthropic Messages."""
    pytest.importorskip("anthropic")
    tools = [
        {"name": t["function"]["name"], "input_schema": t["function"]["parameters"]}
        for t in session.openai_tools
    ]
    with Wire(session) as wire:
        client, messages = wire.anthropic_client(), [{"role": "user", "content": session.task}]
        while True:
            reply = client.messages.create(
                model="m", max_tokens=256, messages=messages, tools=tools
            )
            uses = [block for block in reply.content if block.type == "tool_use"]
            messages.append({"role": "assistant", "content": reply.content})
            if not uses:
                text = "".join(b.text for b in reply.content if b.type == "text")
                return Stop(code=Code.COMPLETED, reason=text)
            results = [
                {
                    "type": "tool_result",
                    "tool_use_id": use.id,
                    "content": session.call_tool(use.name, dict(use.input)),
                }
                for use in uses
            ]
            messages.append({"role": "user", "content": results})


def _gemini_loop(session: Session) -> Stop:
    """The same naive agent on the Gemini API, automatic function calling off."""
    pytest.importorskip("google.genai")
    from google.genai import types

    from tests.frameworks.gemini.sdk_agent import config_for

    config = config_for(session.openai_tools)
    contents = [types.Content(role="user", parts=[types.Part.from_text(text=session.task)])]
    with Wire(session) as wire:
        client = wire.gemini_client()
        while True:
            reply = client.models.generate_content(model="m", contents=contents, config=config)
            assert reply.candidates and reply.candidates[0].content
            contents.append(reply.candidates[0].content)
            if not reply.function_calls:
                return Stop(code=Code.COMPLETED, reason=reply.text or "")
            results = [
                types.Part(
                    function_response=types.FunctionResponse(
                        id=call.id,
                        name=call.name,
                        response={"result": session.call_tool(str(call.name), call.args or {})},
                    )
                )
                for call in reply.function_calls
            ]
            contents.append(types.Content(role="user", parts=results))


FORMATS = {
    "chat-completions": _chat_loop,
    "anthropic-messages": _anthropic_loop,
    "gemini": _gemini_loop,
}
"""The Responses API (JSON and SSE) and Chat Completions again are the Agents SDK's, above."""


@pytest.mark.parametrize("name", PHASED)
@pytest.mark.parametrize("face", sorted(FORMATS))
def test_every_wire_format_carries_unique_tool_call_ids(face: str, name: str) -> None:
    scenario, log = recording(name)
    record = unsolvable.run(FORMATS[face], scenario, ceilings=ROOMY)
    ids = tool_call_ids(log)
    assert len(ids) == len(set(ids)) and ids
    assert record.verdict is not None and record.verdict.passed, record.verdict
