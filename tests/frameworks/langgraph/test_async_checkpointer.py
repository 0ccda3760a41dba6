"""A graph run with ``asynchronous=True`` writes and reads its state through the checkpointer's
async face alone: a real async-only checkpointer (``AsyncSqliteSaver``) ends the run the way no
checkpointer does, where one sync call would have crashed it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("langgraph")
pytest.importorskip("langchain")
pytest.importorskip("langgraph.checkpoint.sqlite")

import aiosqlite
from langchain.agents import create_agent
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

import unsolvable
from tests.frameworks._glue import reported
from tests.frameworks.langgraph.test_async import AsyncWatch, async_watched
from unsolvable import Exit, scenarios
from unsolvable.adapters.langgraph import LangGraphAdapter

NAME = "constant-return/repeat"
LIMIT = 11
"""Three model calls of a middleware-watched agent: LangGraph ends the run, and the adapter reads
the partial state back from the checkpointer (``aget_state``)."""


class Savers:
    """Makes ``AsyncSqliteSaver`` savers on in-memory databases as production does, on the running
    loop (the saver takes it as it is made), and closes their connections after the run, whose
    threads would otherwise keep the interpreter from exiting. The loop that made one is closed
    once the run is over, so its sync face cannot work at all: each sync method hands its work to
    that loop, and raises "Event loop is closed"."""

    def __init__(self) -> None:
        self.made: list[AsyncSqliteSaver] = []

    async def make(self) -> AsyncSqliteSaver:
        saver = AsyncSqliteSaver(aiosqlite.connect(":memory:"))
        self.made.append(saver)
        return saver

    def close(self) -> None:
        for saver in self.made:
            asyncio.run(saver.conn.close())


@contextlib.contextmanager
def savers() -> Iterator[Savers]:
    made = Savers()
    try:
        yield made
    finally:
        made.close()


async def latest(saver: AsyncSqliteSaver) -> Any:
    """The last checkpoint the saver holds (the run's only thread)."""
    async for saved in saver.alist(None, limit=1):
        return saved
    raise AssertionError("the graph saved no checkpoint")


def test_an_async_only_checkpointer_is_written_and_read_through_its_async_face() -> None:
    """``build`` is async and makes the saver on the loop that runs the graph, as an async
    application makes it (``AsyncSqliteSaver(...)`` needs a running loop)."""
    unsaved = LangGraphAdapter(async_watched, recursion_limit=LIMIT, asynchronous=True)
    expected = unsolvable.run(unsaved, scenarios.get(NAME))
    with savers() as made:

        async def build(model: Any, tools: Any) -> Any:
            saver = await made.make()
            return create_agent(model, tools, middleware=[AsyncWatch()], checkpointer=saver)

        adapter = LangGraphAdapter(build, recursion_limit=LIMIT, asynchronous=True)
        record = unsolvable.run(adapter, scenarios.get(NAME))
        saved = asyncio.run(latest(made.made[0]))
    assert record.exit is Exit.EXHAUSTED, record.observed.error
    assert record.to_dict() == expected.to_dict(), "the state read back is the one streamed"
    messages = saved.checkpoint["channel_values"]["messages"]
    assert [m.type for m in messages].count("tool") == reported(record).partial["tool_results"]


def test_a_sync_build_makes_its_saver_on_the_loop_that_runs_the_graph() -> None:
    """A plain ``build`` is called on the running loop too: a saver it makes binds to the loop
    that runs the graph, not to none (``RuntimeError: no running event loop``)."""
    with savers() as made:

        def build(model: Any, tools: Any) -> Any:
            saver = AsyncSqliteSaver(aiosqlite.connect(":memory:"))
            made.made.append(saver)
            return create_agent(model, tools, middleware=[AsyncWatch()], checkpointer=saver)

        adapter = LangGraphAdapter(build, recursion_limit=LIMIT, asynchronous=True)
        record = unsolvable.run(adapter, scenarios.get(NAME))
    assert record.exit is Exit.EXHAUSTED, record.observed.error
