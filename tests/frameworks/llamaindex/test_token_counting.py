"""LlamaIndex's own token counting (`TokenCountingHandler` on the LLM's callback manager) reads
the usage each response carries, as it reads the OpenAI API's in production: its totals are the
record's tokens, one LLM event a step, streamed or not, through the agent or the LLM directly."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, ChatResponse, MessageRole
from llama_index.core.callbacks import CallbackManager, TokenCountingHandler
from llama_index.core.tools import BaseTool

import unsolvable
from unsolvable import Code, Session, Stop, TerminationRecord, scenarios
from unsolvable.adapters.llamaindex import (
    LlamaIndexAdapter,
    SessionLLM,
    session_llm,
    session_tools,
)

SCENARIO = "constant-return/repeat"


def assert_counted_as_charged(counter: TokenCountingHandler, record: TerminationRecord) -> None:
    counted = (counter.prompt_llm_token_count, counter.completion_llm_token_count)
    assert len(counter.llm_token_counts) == record.observed.steps, "one LLM event a step"
    assert counted == (record.observed.input_tokens, record.observed.output_tokens)


@pytest.mark.parametrize("streaming", [True, False], ids=["astream_chat", "achat"])
@pytest.mark.parametrize("steps", [1, 2, 3])
def test_a_function_agents_token_counter_reads_what_each_step_was_charged(
    streaming: bool, steps: int
) -> None:
    """Equal totals after every number of steps of the same scripted run: equal steps."""
    counter = TokenCountingHandler()

    def build(llm: SessionLLM, tools: list[BaseTool]) -> FunctionAgent:
        llm.callback_manager = CallbackManager([counter])
        return FunctionAgent(tools=tools, llm=llm, streaming=streaming)

    adapter = LlamaIndexAdapter(build, max_iterations=steps)
    record = unsolvable.run(adapter, scenarios.get(SCENARIO))
    assert record.observed.steps == steps
    assert_counted_as_charged(counter, record)


CALLS = 3

Chat = Callable[[SessionLLM, list[BaseTool], list[ChatMessage]], ChatResponse]
"""One sync chat of the LLM's, offered the tools, as a loop of the user's own makes it."""


def chat(llm: SessionLLM, tools: list[BaseTool], history: list[ChatMessage]) -> ChatResponse:
    return llm.chat_with_tools(tools, chat_history=history)


def stream_chat(llm: SessionLLM, tools: list[BaseTool], history: list[ChatMessage]) -> ChatResponse:
    *_, last = llm.stream_chat_with_tools(tools, chat_history=history)
    return last


@pytest.mark.parametrize("call", [chat, stream_chat], ids=["chat", "stream_chat"])
def test_the_llms_sync_calls_carry_the_usage_too(call: Chat) -> None:
    counter = TokenCountingHandler()

    def agent(session: Session) -> Stop:
        llm = session_llm(session)
        llm.callback_manager = CallbackManager([counter])
        history = [ChatMessage(role=MessageRole.USER, content=session.task)]
        for _ in range(CALLS):
            call(llm, session_tools(session), history)
        return Stop(code=Code.BUDGET_STEPS, reason=f"{CALLS} calls")

    record = unsolvable.run(agent, scenarios.get(SCENARIO))
    assert record.observed.steps == CALLS
    assert_counted_as_charged(counter, record)


def test_the_usage_is_where_llamaindexs_openai_llm_puts_the_apis() -> None:
    """``raw["usage"]`` and ``additional_kwargs``, in Chat Completions' names."""
    seen: list[Any] = []

    def agent(session: Session) -> Stop:
        llm = session_llm(session)
        response = llm.chat([ChatMessage(role=MessageRole.USER, content=session.task)])
        seen.extend([response.raw["usage"], response.additional_kwargs])
        return Stop(code=Code.BUDGET_STEPS, reason="one call")

    record = unsolvable.run(agent, scenarios.get(SCENARIO))
    observed = record.observed
    usage = {
        "prompt_tokens": observed.input_tokens,
        "completion_tokens": observed.output_tokens,
        "total_tokens": observed.input_tokens + observed.output_tokens,
    }
    assert seen == [usage, usage]


PADDING = " Read this description whole before calling." * 100
"""What a user adds to each tool's description: LlamaIndex's OpenAI LLM sends it."""


def _charged(lengthened: bool) -> int:
    """The input tokens of three steps of a function agent whose tools are described so."""

    def build(llm: SessionLLM, tools: list[BaseTool]) -> FunctionAgent:
        for tool in tools:
            tool.metadata.description += PADDING if lengthened else ""
        return FunctionAgent(tools=tools, llm=llm)

    record = unsolvable.run(LlamaIndexAdapter(build, max_iterations=3), scenarios.get(SCENARIO))
    assert record.observed.steps == 3
    return record.observed.input_tokens


def test_a_tool_description_the_user_lengthens_is_charged_as_sent() -> None:
    """A step is charged the tools as LlamaIndex's OpenAI LLM sends them (``to_openai_tool``):
    three steps offering four tools each, 1,100 tokens a tool more."""
    assert _charged(True) - _charged(False) == 3 * 4 * len(PADDING) // 4
