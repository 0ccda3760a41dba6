"""Real LangGraph graphs with async-only parts — a LangChain ``create_agent`` with an async-only
middleware, a ``StateGraph`` with an ``async def`` node — run with ``asynchronous=True`` and are
counted as their sync twins are."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("langgraph")
pytest.importorskip("langchain")

from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

import unsolvable
from tests.frameworks._glue import reported
from unsolvable import Ceilings, Code, Exit, Outcome, scenarios
from unsolvable.adapters.langgraph import LangGraphAdapter

Build = Callable[[Any, Any], Any]
WATCHED_LIMIT = 41
"""Ten model calls of a middleware-watched agent (four supersteps each), twenty of a
model→tools graph: a stuck run is stopped by LangGraph, its twin finishes."""


class Watch(AgentMiddleware[Any, Any]):
    """A middleware with sync hooks only."""

    def before_model(self, state: Any, runtime: Any) -> None:
        return None

    def after_model(self, state: Any, runtime: Any) -> None:
        return None


class AsyncWatch(AgentMiddleware[Any, Any]):
    """The same middleware with async hooks only, which LangGraph runs only under astream."""

    async def abefore_model(self, state: Any, runtime: Any) -> None:
        return None

    async def aafter_model(self, state: Any, runtime: Any) -> None:
        return None


def watched(model: Any, tools: Any) -> Any:
    return create_agent(model, tools, middleware=[Watch()])


def async_watched(model: Any, tools: Any) -> Any:
    return create_agent(model, tools, middleware=[AsyncWatch()])


def loop_graph(*, asynchronous: bool, before: Callable[[], Any] | None = None) -> Build:
    """A model→tools ``StateGraph`` whose model node is a plain or an ``async def`` function;
    ``before`` is awaited in the async node before each model call."""

    def build(model: Any, tools: Any) -> Any:
        bound = model.bind_tools(tools)

        def call(state: MessagesState) -> dict[str, Any]:
            return {"messages": [bound.invoke(state["messages"])]}

        async def acall(state: MessagesState) -> dict[str, Any]:
            if before is not None:
                await before()
            return {"messages": [await bound.ainvoke(state["messages"])]}

        graph = StateGraph(MessagesState)
        graph.add_node("model", acall if asynchronous else call)
        graph.add_node("tools", ToolNode(tools))
        graph.add_edge(START, "model")
        graph.add_conditional_edges("model", tools_condition)
        graph.add_edge("tools", "model")
        return graph.compile()

    return build


TWINS = {
    "create-agent": (watched, async_watched),
    "state-graph": (loop_graph(asynchronous=False), loop_graph(asynchronous=True)),
}


@pytest.mark.parametrize("name", ["constant-return/repeat", "constant-return/twin-cursor-paging"])
@pytest.mark.parametrize("kind", TWINS)
def test_an_async_only_graph_is_recorded_as_its_sync_twin(kind: str, name: str) -> None:
    sync_build, async_build = TWINS[kind]
    sync = LangGraphAdapter(sync_build, recursion_limit=WATCHED_LIMIT)
    run_async = LangGraphAdapter(async_build, recursion_limit=WATCHED_LIMIT, asynchronous=True)
    expected = unsolvable.run(sync, scenarios.get(name))
    record = unsolvable.run(run_async, scenarios.get(name))
    observed = (record.code, record.observed.steps, record.observed.tool_calls)
    assert observed == (expected.code, expected.observed.steps, expected.observed.tool_calls)
    assert record.observed.input_tokens == expected.observed.input_tokens > 0
    assert record.to_dict() == expected.to_dict(), "the same record, trajectory and all"


def test_a_recursion_limit_on_the_async_path_is_exhausted_with_partial_state() -> None:
    adapter = LangGraphAdapter(async_watched, recursion_limit=11, asynchronous=True)
    record = unsolvable.run(adapter, scenarios.get("constant-return/repeat"))
    assert (record.exit, record.code, record.observed.steps) == (
        Exit.EXHAUSTED,
        Code.BUDGET_STEPS,
        3,
    )
    assert "Recursion limit of 11" in reported(record).reason
    assert reported(record).partial["tool_results"] == 2, "the state streamed before it raised"


@pytest.mark.parametrize(
    "ceilings", [Ceilings(max_steps=3), Ceilings(max_tool_calls=3)], ids=["steps", "tool-calls"]
)
def test_a_harness_ceiling_ends_an_async_run_as_did_not_stop(ceilings: Ceilings) -> None:
    name = "constant-return/repeat"
    expected = unsolvable.run(LangGraphAdapter(watched), scenarios.get(name), ceilings=ceilings)
    before = set(threading.enumerate())
    adapter = LangGraphAdapter(async_watched, asynchronous=True)
    record = unsolvable.run(adapter, scenarios.get(name), ceilings=ceilings)
    assert record.outcome is expected.outcome is Outcome.DID_NOT_STOP
    assert record.to_dict() == expected.to_dict(), "stopped where its sync twin is"
    assert set(threading.enumerate()) == before, "no thread left running"


def test_the_wall_ceiling_interrupts_an_async_node_and_closes_its_loop() -> None:
    loops: list[asyncio.AbstractEventLoop] = []

    async def hang() -> None:
        loops.append(asyncio.get_running_loop())
        await asyncio.Event().wait()  # set by nothing: only the watchdog ends the run

    before = set(threading.enumerate())
    adapter = LangGraphAdapter(loop_graph(asynchronous=True, before=hang), asynchronous=True)
    record = unsolvable.run(
        adapter, scenarios.get("constant-return/repeat"), ceilings=Ceilings(max_wall_seconds=2)
    )
    assert record.outcome is Outcome.DID_NOT_STOP and record.observed.ceiling == "wall_seconds"
    assert len(loops) == 1 and loops[0].is_closed(), "the run's event loop is closed"
    assert set(threading.enumerate()) == before, "no thread left running"


@pytest.mark.parametrize("build", [async_watched, loop_graph(asynchronous=True)])
def test_an_async_only_graph_run_synchronously_says_to_set_asynchronous(build: Build) -> None:
    record = unsolvable.run(LangGraphAdapter(build), scenarios.get("constant-return/repeat"))
    assert record.outcome is Outcome.CRASHED and record.observed.steps == 0
    assert "No synchronous function provided" in str(record.observed.error)
    assert "LangGraphAdapter(..., asynchronous=True)" in str(record.observed.error)
