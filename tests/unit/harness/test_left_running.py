"""Work an agent leaves running after it returns — a thread, a task, a process it started — that
still calls the model or a tool fails the run, on every face, and the record says so the same
way every time: that it happened and its first late call, never a count."""

from __future__ import annotations

import asyncio
import contextlib
import shlex
import sys
import threading
import time
from pathlib import Path
from typing import Any

import unsolvable
from tests import _builders as b
from unsolvable import Code, Rule, Session, SessionClosed, Stop

RUNS = 3
"""Runs of the same agent whose records must be the same, byte for byte."""


POLLS = 100
"""Model calls the left worker makes at most, a millisecond apart: it polls, as such workers do."""


def leaves_a_worker_calling(session: Session) -> Stop:
    """Returns while a worker thread it started keeps asking the model, once a millisecond."""
    started, stopping = threading.Event(), threading.Event()

    def worker() -> None:
        session.call_model([{"role": "user", "content": "go"}], agent="worker")
        started.set()
        stopping.wait()
        with contextlib.suppress(SessionClosed):
            for _ in range(POLLS):
                time.sleep(0.001)
                session.call_model([{"role": "user", "content": "again"}], agent="worker")

    threading.Thread(target=worker, daemon=True).start()
    started.wait()
    stopping.set()
    return Stop(code=Code.NO_PROGRESS, reason="nothing new")


async def leaves_a_task_calling(session: Session) -> Stop:
    """Returns while a task it started keeps searching, swallowing its cancellation."""

    async def search() -> None:
        while True:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.sleep(0)
            session.call_tool("search", {}, agent="task")

    asyncio.get_running_loop().create_task(search())
    await asyncio.sleep(0)
    return Stop(code=Code.NO_PROGRESS, reason="nothing new")


def joins_its_worker(session: Session) -> Stop:
    """Starts a worker that asks the model once, and waits for it before returning."""
    worker = threading.Thread(target=lambda: session.call_model([], agent="worker"))
    worker.start()
    worker.join()
    return Stop(code=Code.NO_PROGRESS, reason="nothing new")


LEAVES_A_PROCESS_CALLING = "exec:" + shlex.join(
    [sys.executable, str(Path(__file__).with_name("_left_process_agent.py"))]
)
"""A child process that starts a grandchild searching in a loop, prints its stop and exits."""


def _records(agent: Any) -> list[unsolvable.TerminationRecord]:
    return [unsolvable.run(agent, b.scenario()) for _ in range(RUNS)]


def test_a_thread_left_calling_the_model_fails_the_run_the_same_way_every_time() -> None:
    records = _records(leaves_a_worker_calling)
    assert all(r.verdict.broke(Rule.LEFT_RUNNING) for r in records)
    assert {r.observed.late_call for r in records} == {"a model call by worker"}
    assert {r.observed.steps_by_agent["worker"] for r in records} == {1}
    assert "work left running after the stop: a model call by worker" in records[0].verdict.summary


def test_a_task_left_calling_a_tool_fails_the_run_the_same_way_every_time() -> None:
    records = _records(leaves_a_task_calling)
    assert {r.observed.late_call for r in records} == {"search called by task"}
    assert len({r.to_json() for r in records}) == 1


def test_a_process_left_calling_a_tool_fails_the_run() -> None:
    record = unsolvable.run(LEAVES_A_PROCESS_CALLING, b.scenario())
    assert record.code is Code.NO_PROGRESS, record.observed.error
    assert record.observed.late_call == "search called by main"
    assert record.verdict.broke(Rule.LEFT_RUNNING)


def test_a_worker_joined_before_the_stop_is_no_work_left_running() -> None:
    record = unsolvable.run(joins_its_worker, b.scenario())
    assert record.observed.late_call is None and not record.verdict.broke(Rule.LEFT_RUNNING)
