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


@contextlib.contextmanager
def async_only_saver() -> Iterator[AsyncSqliteSaver]:
    """An ``AsyncSqliteSaver`` on an in-memory database whose sync face cannot work at all: it
    is made on a loop of its own, closed at once, and each of its sync methods hands its work to
    that loop, so raises "Event loop is closed". It cannot be made on the loop that runs the
    graph, as ``async with AsyncSqliteSaver.from_conn_string(...)`` is in production: the adapter
    calls ``build`` before it starts that loop."""

    async def make() -> AsyncSqliteSaver:
        return AsyncSqliteSaver(aiosqlite.connect(":memory:"))

    saver = asyncio.run(make())
    try:
        yield saver
    finally:  # the connection's thread would otherwise keep the interpreter from exiting
        asyncio.run(saver.conn.close())


async def latest(saver: AsyncSqliteSaver) -> Any:
    """The last checkpoint the saver holds (the run's only thread)."""
    async for saved in saver.alist(None, limit=1):
        return saved
    raise AssertionError("the graph saved no checkpoint")


def test_an_async_only_checkpointer_is_written_and_read_through_its_async_face() -> None:
    unsaved = LangGraphAdapter(async_watched, recursion_limit=LIMIT, asynchronous=True)
    expected = unsolvable.run(unsaved, scenarios.get(NAME))
    with async_only_saver() as saver:

        def build(model: Any, tools: Any) -> Any:
            return create_agent(model, tools, middleware=[AsyncWatch()], checkpointer=saver)

        adapter = LangGraphAdapter(build, recursion_limit=LIMIT, asynchronous=True)
        record = unsolvable.run(adapter, scenarios.get(NAME))
        saved = asyncio.run(latest(saver))
    assert record.exit is Exit.EXHAUSTED, record.observed.error
    assert record.to_dict() == expected.to_dict(), "the state read back is the one streamed"
    messages = saved.checkpoint["channel_values"]["messages"]
    assert [m.type for m in messages].count("tool") == reported(record).partial["tool_results"]
