"""A step whose reply holds several tool calls: LangGraph runs them concurrently, as in
production, and the record is the same byte for byte whichever call gets to the harness first."""

from __future__ import annotations

import asyncio
import functools
import json
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import pytest

pytest.importorskip("langgraph")
pytest.importorskip("langchain")

from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware, ToolCallLimitMiddleware
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage, ToolMessage
from langgraph.prebuilt import ToolNode, create_react_agent

import unsolvable
from tests._builders import SEARCH, scenario
from unsolvable import (
    Ceilings,
    Code,
    ModelRequest,
    ModelResponse,
    Session,
    Stop,
    TerminationRecord,
    ToolCall,
    ToolSpec,
    scenarios,
)
from unsolvable.adapters import langgraph
from unsolvable.adapters.langgraph import (
    LangGraphAdapter,
    SessionChatModel,
    Turnstile,
    recursion_limit_for,
    session_tools,
)

CRAWL = "call-budget/endless-site"
"""Four page fetches in every reply, until the call budget runs out."""
STEPS = 8
"""Model calls the run may make: the background reading and several crawling steps."""
ROOMY = Ceilings(max_wall_seconds=120.0)
"""Timing is not under test: a loaded machine must not turn the run into a wall ceiling."""
HOLD_LIMIT = 30.0
"""Seconds a held call waits for its reply's second call to begin: far beyond what a thread
takes to start, so that only a run that never starts the second call (a broken pool) fails here
instead of hanging."""
UNENDING = ROOMY.max_wall_seconds * 2
"""A turnstile patience no run here outlasts: a call left waiting for it shows as the wall
ceiling, so a test with it proves the call behind went on word of the graph, not on time."""


@pytest.fixture
def patient(monkeypatch: pytest.MonkeyPatch) -> None:
    """The adapter's turnstiles fall back on no patience within the run (`UNENDING`)."""
    monkeypatch.setattr(langgraph, "Turnstile", functools.partial(Turnstile, patience=UNENDING))


def _reply_ids(request: Any) -> list[str]:
    """The ids of the tool calls of the model reply that ``request``'s call belongs to, in the
    reply's order."""
    call_id = request.tool_call["id"]
    for message in reversed(request.state["messages"]):
        ids = [c["id"] for c in getattr(message, "tool_calls", None) or ()]
        if isinstance(message, AIMessage) and call_id in ids:
            return ids
    raise AssertionError(f"no reply holds tool call {call_id!r}")


class HoldFirstCall(AgentMiddleware):
    """Holds each reply's first tool call until its second call has begun: an interleaving a busy
    thread pool may give any run, made certain."""

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self._second_began: dict[str, threading.Event] = {}
        """Keyed by the id of the reply's first call."""

    def _event(self, first: str) -> threading.Event:
        with self._lock:
            return self._second_began.setdefault(first, threading.Event())

    def wrap_tool_call(
        self, request: Any, handler: Callable[[Any], ToolMessage | Any]
    ) -> ToolMessage | Any:
        ids = _reply_ids(request)
        if len(ids) > 1:
            began = self._event(ids[0])
            if request.tool_call["id"] == ids[1]:
                began.set()
            elif request.tool_call["id"] == ids[0]:
                assert began.wait(HOLD_LIMIT), "the reply's second call never began"
        return handler(request)


class AwaitFirstCall(AgentMiddleware):
    """`HoldFirstCall` on an event loop: each reply's first call awaits its second, as a
    middleware awaiting its own I/O lets the loop run the other calls first."""

    def __init__(self) -> None:
        super().__init__()
        self._second_began: dict[str, asyncio.Event] = {}

    async def awrap_tool_call(
        self, request: Any, handler: Callable[[Any], Awaitable[ToolMessage | Any]]
    ) -> ToolMessage | Any:
        ids = _reply_ids(request)
        if len(ids) > 1:
            began = self._second_began.setdefault(ids[0], asyncio.Event())
            if request.tool_call["id"] == ids[1]:
                began.set()
            elif request.tool_call["id"] == ids[0]:
                await asyncio.wait_for(began.wait(), HOLD_LIMIT)
        return await handler(request)


class AnswerFirstCall(AgentMiddleware):
    """Answers the first call of the first reply that holds several itself, as a cache would:
    the tool is never called for it."""

    def __init__(self) -> None:
        super().__init__()
        self.answered: list[str] = []

    def wrap_tool_call(
        self, request: Any, handler: Callable[[Any], ToolMessage | Any]
    ) -> ToolMessage | Any:
        return self._cached(request) or handler(request)

    async def awrap_tool_call(
        self, request: Any, handler: Callable[[Any], Awaitable[ToolMessage | Any]]
    ) -> ToolMessage | Any:
        return self._cached(request) or await handler(request)

    def _cached(self, request: Any) -> ToolMessage | None:
        ids, call_id = _reply_ids(request), request.tool_call["id"]
        if len(ids) > 1 and call_id == ids[0] and not self.answered:
            self.answered.append(call_id)
            return ToolMessage(content="cached", tool_call_id=call_id)
        return None


def _crawl(middleware: list[AgentMiddleware], **options: Any) -> TerminationRecord:
    def build(model: Any, tools: Any) -> Any:
        return create_agent(model, tools, middleware=middleware)

    adapter = LangGraphAdapter(build, recursion_limit=recursion_limit_for(STEPS), **options)
    return unsolvable.run(adapter, scenarios.get(CRAWL), ceilings=ROOMY)


def test_a_reply_s_calls_reach_the_world_in_reply_order_whichever_thread_comes_first() -> None:
    """The held first call reaches its tool after the second has begun, yet the record is the
    one a run of one call at a time gives: same trajectory, same volatile request ids, same
    world fingerprints."""
    one_at_a_time = _crawl([], config={"max_concurrency": 1})
    held = _crawl([HoldFirstCall()])
    assert one_at_a_time.observed.tool_calls > STEPS, "few replies held several calls"
    assert held.to_json() == one_at_a_time.to_json()


def test_so_they_do_when_the_graph_runs_on_an_event_loop() -> None:
    """``asynchronous=True``: ``ToolNode`` gathers the calls as tasks of one loop, and a call
    that awaits lets the next one run first."""
    one_at_a_time = _crawl([], config={"max_concurrency": 1})
    held = _crawl([AwaitFirstCall()], asynchronous=True)
    assert held.to_json() == one_at_a_time.to_json()


@pytest.mark.usefixtures("patient")
@pytest.mark.parametrize("asynchronous", [False, True], ids=["stream", "astream"])
def test_a_call_a_middleware_answers_itself_holds_nothing_up(asynchronous: bool) -> None:
    """The three calls behind the answered one go on as soon as its task ends, in their order;
    no patience runs out."""
    answer = AnswerFirstCall()
    record = _crawl([answer], asynchronous=asynchronous)
    fetched = _fetched(record)
    assert record.observed.ceiling is None
    assert answer.answered and fetched[:3] == [2, 3, 4] and fetched == sorted(fetched)


@pytest.mark.usefixtures("patient")
@pytest.mark.filterwarnings("ignore::langgraph.warnings.LangGraphDeprecatedSinceV10")
def test_so_does_one_create_react_agent_s_tool_node_answers_itself() -> None:
    """``create_react_agent`` sends each call a task of its own too (a ``ToolCallWithContext``)."""
    answer = AnswerFirstCall()

    def build(model: Any, tools: Any) -> Any:
        return create_react_agent(model, ToolNode(tools, wrap_tool_call=answer.wrap_tool_call))

    adapter = LangGraphAdapter(build, recursion_limit=recursion_limit_for(STEPS))
    record = unsolvable.run(adapter, scenarios.get(CRAWL), ceilings=ROOMY)
    assert record.observed.ceiling is None
    assert answer.answered and _fetched(record)[:3] == [2, 3, 4]


def _fetched(record: TerminationRecord) -> list[int]:
    """The pages the run's ``fetch_doc_page`` calls reached the world for, in order."""
    return [
        json.loads(tool.arguments)["page"]
        for step in record.observed.trajectory
        for tool in step.tools
        if tool.name == "fetch_doc_page"
    ]


@dataclass(frozen=True)
class OneReply:
    """Calls ``calls`` (id, tool) in one reply, each with its id as its argument; then
    answers."""

    calls: tuple[tuple[str, str], ...]

    def reply(self, request: ModelRequest, rng: Any) -> ModelResponse:
        if request.step > 1:
            return ModelResponse(content="nothing found")
        return ModelResponse(
            tool_calls=tuple(ToolCall(id=i, name=n, arguments={"q": i}) for i, n in self.calls)
        )


LIMITED_SEARCH_FIRST = OneReply((("a", "search"), ("b", "search"), ("c", "lookup")))
UNKNOWN_TOOL_FIRST = OneReply((("a", "not_a_tool"), ("b", "search"), ("c", "search")))


@pytest.mark.usefixtures("patient")
def test_a_call_a_limit_blocks_holds_the_allowed_one_behind_it_up_no_longer() -> None:
    """``ToolCallLimitMiddleware`` answers the second ``search`` itself, past its limit of one,
    before the tools run: ``lookup`` behind it goes at once."""
    lookup = ToolSpec(name="lookup", description="Always finds nothing.")
    limit = ToolCallLimitMiddleware(tool_name="search", run_limit=1)
    adapter = LangGraphAdapter(lambda model, tools: create_agent(model, tools, middleware=[limit]))
    task = scenario(script=LIMITED_SEARCH_FIRST, step_bound=3, tools=(SEARCH, lookup))
    record = unsolvable.run(adapter, task, ceilings=ROOMY)
    called = [(t.name, t.arguments) for step in record.observed.trajectory for t in step.tools]
    assert record.observed.ceiling is None
    assert called == [("search", '{"q": "a"}'), ("lookup", '{"q": "c"}')]


def test_a_call_to_a_tool_the_graph_does_not_hold_holds_nothing_up() -> None:
    """``ToolNode`` answers ``not_a_tool`` itself; the model knew it was none of the adapter's
    (it was not bound), so the calls behind it go at once. The turnstile here has no patience to
    fall back on: a wait for that call would run into the wall ceiling."""

    def patient_graph(session: Session) -> Stop:
        turnstile = Turnstile(patience=ROOMY.max_wall_seconds * 2)
        model = SessionChatModel(session=session, turnstile=turnstile)
        graph = create_agent(model, session_tools(session, turnstile=turnstile))
        try:
            graph.invoke({"messages": [("user", session.task)]})
        finally:
            turnstile.close()
        return Stop(code=Code.NO_PROGRESS, reason="nothing found")

    record = unsolvable.run(
        patient_graph, scenario(script=UNKNOWN_TOOL_FIRST, step_bound=3), ceilings=ROOMY
    )
    searched = [t.arguments for step in record.observed.trajectory for t in step.tools]
    assert record.code is Code.NO_PROGRESS and searched == ['{"q": "b"}', '{"q": "c"}']


class SeesModelCalls(BaseCallbackHandler):
    """A user's own callback: keeps what each model call was invoked with."""

    def __init__(self) -> None:
        self.params: list[dict[str, Any]] = []

    def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
        self.params.append(kwargs.get("invocation_params") or {})


def test_your_callbacks_see_the_run_as_without_the_turnstile() -> None:
    """The adapter's listener goes beside yours, in a copy of your list, and what a model call
    was invoked with (what tracing shows) holds the tools, not the turnstile's bookkeeping."""
    seen = SeesModelCalls()
    callbacks = [seen]
    adapter = LangGraphAdapter(create_agent, config={"callbacks": callbacks})
    unsolvable.run(adapter, scenario(script=UNKNOWN_TOOL_FIRST, step_bound=3), ceilings=ROOMY)
    assert callbacks == [seen] and len(seen.params) == 2
    assert all("tools" in p and "ordered_tools" not in p for p in seen.params)
