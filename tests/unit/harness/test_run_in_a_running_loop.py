"""`unsolvable.run` called where an event loop is running (an async test, a notebook): the agent
runs on a thread of its own, where it can start its own loop as in production."""

from __future__ import annotations

import asyncio
import threading

import pytest

import unsolvable
from unsolvable import Outcome, Session, agents, scenarios


async def _async_contract(session: Session) -> object:
    await asyncio.sleep(0)
    return agents.contract(session)


def _from_a_running_loop(agent: object) -> unsolvable.TerminationRecord:
    async def test() -> unsolvable.TerminationRecord:
        return unsolvable.run(agent, scenarios.get("constant-return/repeat"))  # type: ignore[arg-type]

    return asyncio.run(test())


def test_an_async_agent_runs_from_inside_a_running_loop() -> None:
    record = _from_a_running_loop(_async_contract)
    assert (record.outcome, record.verdict.passed) == (Outcome.STOPPED, True)
    assert record == unsolvable.run(_async_contract, scenarios.get("constant-return/repeat"))


def test_a_sync_agent_that_starts_its_own_loop_runs_from_inside_a_running_loop() -> None:
    """As an adapter of an async framework does (`asyncio.run` of the framework's run)."""

    def agent(session: Session) -> object:
        return asyncio.run(_async_contract(session))

    assert _from_a_running_loop(agent).verdict.passed


def test_what_the_run_raises_is_raised_to_the_caller_of_the_running_loop() -> None:
    def agent(session: Session) -> None:
        pytest.fail("the test's own end")

    with pytest.raises(pytest.fail.Exception, match="the test's own end"):
        _from_a_running_loop(agent)


def test_with_no_loop_running_the_agent_runs_on_the_callers_thread() -> None:
    threads: list[threading.Thread] = []

    def agent(session: Session) -> object:
        threads.append(threading.current_thread())
        return agents.contract(session)

    unsolvable.run(agent, scenarios.get("constant-return/repeat"))
    assert threads == [threading.current_thread()]
