"""Each built-in adapter runs its framework the way production does: the same script
through the adapter and through the framework driven directly — the user's tools made by the
framework's own decorator, the harness's model seam, no adapter glue — gives the same model
calls and the same stop, on a raising tool, a refusing tool (403) and a limit hit."""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Callable
from typing import Any

import pytest

import unsolvable
from tests.frameworks._glue import model_calls, recording
from tests.frameworks._user_tools import user_tools
from unsolvable import Code, Session, Stop, TerminationRecord

CASES = [
    "missing-permission/retry-raises",
    "missing-permission/retry-403",
    "constant-return/repeat",
]
LIMIT = 4
"""A framework limit small enough to keep the tests fast; the same on both paths."""


def _stop(record: TerminationRecord) -> tuple[Any, ...]:
    code = record.reported.code if record.reported else None
    return record.outcome, code, record.observed.steps


def _same(name: str, adapter: Any, direct: Callable[[Session], Any]) -> None:
    scenario, via_adapter = recording(name)
    first = unsolvable.run(adapter, scenario)
    scenario, via_framework = recording(name)
    second = unsolvable.run(direct, scenario)
    assert model_calls(via_adapter) == model_calls(via_framework)
    assert _stop(first)[::2] == _stop(second)[::2]
    if second.reported is not None:
        assert _stop(first) == _stop(second)


def _limited(error: type[BaseException], run: Callable[[], Any]) -> Any:
    """The framework's limit exception as the stop a reader would record; all else as is."""
    try:
        return run()
    except error as raised:
        return Stop(code=Code.BUDGET_STEPS, reason=str(raised), partial={})


@pytest.mark.parametrize("name", CASES)
def test_openai_agents(name: str) -> None:
    pytest.importorskip("agents")
    from agents import (
        Agent,
        MaxTurnsExceeded,
        OpenAIResponsesModel,
        RunConfig,
        Runner,
        function_tool,
    )

    from unsolvable.adapters.openai_agents import FAKE_MODEL, OpenAIAgentsAdapter
    from unsolvable.wire import Wire

    agent = Agent(name="billing", instructions="Do the task.")

    def direct(session: Session) -> Any:
        with Wire(session) as wire:
            model = OpenAIResponsesModel(model=FAKE_MODEL, openai_client=wire.async_openai_client())
            config = RunConfig(model=model, tracing_disabled=True)
            tools = [function_tool(f, strict_mode=False) for f in user_tools(session)]
            run = Runner.run(
                agent.clone(tools=tools), session.task, run_config=config, max_turns=LIMIT
            )
            return _limited(MaxTurnsExceeded, lambda: asyncio.run(run))

    _same(name, OpenAIAgentsAdapter(agent, max_turns=LIMIT), direct)


@pytest.mark.parametrize("name", CASES)
def test_langgraph(name: str) -> None:
    pytest.importorskip("langchain")
    from langchain.agents import create_agent
    from langchain_core.tools import tool
    from langgraph.errors import GraphRecursionError

    from unsolvable.adapters.langgraph import (
        LangGraphAdapter,
        SessionChatModel,
        recursion_limit_for,
    )

    limit = recursion_limit_for(LIMIT)

    def direct(session: Session) -> Any:
        graph = create_agent(
            SessionChatModel(session=session), [tool(f) for f in user_tools(session)]
        )
        config = {"recursion_limit": limit}
        run = lambda: graph.invoke({"messages": [("user", session.task)]}, config)  # noqa: E731
        return _limited(GraphRecursionError, run)

    _same(name, LangGraphAdapter(create_agent, recursion_limit=limit), direct)


@pytest.mark.parametrize("name", CASES)
def test_pydantic_ai(name: str) -> None:
    pytest.importorskip("pydantic_ai")
    from pydantic_ai import Agent, Tool, UsageLimitExceeded, UsageLimits

    from unsolvable.adapters.pydantic_ai import PydanticAIAdapter, session_model

    limits = UsageLimits(request_limit=LIMIT)

    def direct(session: Session) -> Any:
        agent = Agent(session_model(session), tools=[Tool(f) for f in user_tools(session)])
        run = lambda: asyncio.run(agent.run(session.task, usage_limits=limits))  # noqa: E731
        return _limited(UsageLimitExceeded, run)

    _same(name, PydanticAIAdapter(Agent(), usage_limits=limits), direct)


@pytest.mark.parametrize("name", CASES)
def test_smolagents(name: str) -> None:
    pytest.importorskip("smolagents")
    from smolagents import LogLevel, ToolCallingAgent, tool

    from unsolvable.adapters.smolagents import SessionModel, SmolagentsAdapter

    def build(model: Any, tools: Any) -> ToolCallingAgent:
        return ToolCallingAgent(
            tools=tools, model=model, max_steps=LIMIT, verbosity_level=LogLevel.OFF
        )

    def direct(session: Session) -> Any:
        agent = build(SessionModel(session), [tool(f) for f in user_tools(session)])
        result = agent.run(session.task, return_full_result=True)
        if result.state == "max_steps_error":
            return Stop(code=Code.BUDGET_STEPS, reason="max_steps", partial={})
        return result.output

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same(name, SmolagentsAdapter(build), direct)


@pytest.mark.parametrize("name", CASES)
def test_llamaindex(name: str) -> None:
    pytest.importorskip("llama_index.core")
    from llama_index.core.agent.workflow import FunctionAgent
    from llama_index.core.tools import FunctionTool
    from workflows.errors import WorkflowRuntimeError

    from unsolvable.adapters.llamaindex import LlamaIndexAdapter, session_llm

    def direct(session: Session) -> Any:
        tools = [FunctionTool.from_defaults(f) for f in user_tools(session)]
        agent = FunctionAgent(tools=tools, llm=session_llm(session))

        async def run() -> Any:
            return await agent.run(user_msg=session.task, max_iterations=LIMIT)

        return _limited(WorkflowRuntimeError, lambda: asyncio.run(run()))

    _same(name, LlamaIndexAdapter(max_iterations=LIMIT), direct)


@pytest.mark.parametrize("name", CASES)
def test_autogen(name: str) -> None:
    pytest.importorskip("autogen_agentchat")
    from autogen_agentchat.agents import AssistantAgent
    from autogen_agentchat.messages import ToolCallSummaryMessage

    from unsolvable.adapters.autogen import AutoGenAdapter, session_model_client
    from unsolvable.wire import Wire

    def build(client: Any, tools: Any) -> AssistantAgent:
        return AssistantAgent(
            "assistant", model_client=client, tools=tools, max_tool_iterations=LIMIT
        )

    def direct(session: Session) -> Any:
        with Wire(session) as wire:
            agent = build(session_model_client(wire), user_tools(session))
            result = asyncio.run(agent.run(task=session.task))
        if isinstance(result.messages[-1], ToolCallSummaryMessage):
            return Stop(code=Code.BUDGET_STEPS, reason="max_tool_iterations", partial={})
        return result.messages[-1].to_text()

    _same(name, AutoGenAdapter(build), direct)
