"""The turnstile lets a reply's tool calls through in the reply's order, from threads or from
tasks of one event loop, and never keeps a call waiting for one that will not come."""

from __future__ import annotations

import asyncio
import threading

from unsolvable.adapters._turnstile import Turnstile

WAIT = 30.0
"""Seconds a test waits for a thread: only a deadlock takes so long."""
BRIEF = 0.05
"""A patience short enough for a test to sit through, for the calls that never come."""


def _through(turnstile: Turnstile, call_id: str, passed: list[str], agent: str = "main") -> None:
    with turnstile.turn(agent, call_id):
        passed.append(call_id)


def _started(turnstile: Turnstile, call_id: str, passed: list[str]) -> threading.Thread:
    thread = threading.Thread(target=_through, args=(turnstile, call_id, passed))
    thread.start()
    return thread


def test_a_call_waits_for_the_calls_ahead_of_it_then_goes() -> None:
    turnstile, passed = Turnstile(), []
    turnstile.open("main", ["a", "b", "c"])
    third, second = _started(turnstile, "c", passed), _started(turnstile, "b", passed)
    _through(turnstile, "a", passed)
    for thread in (second, third):
        thread.join(WAIT)
    assert passed == ["a", "b", "c"]


def test_a_call_that_raises_lets_the_next_one_go() -> None:
    turnstile, passed = Turnstile(), []
    turnstile.open("main", ["a", "b"])
    second = _started(turnstile, "b", passed)
    try:
        with turnstile.turn("main", "a"):
            raise LookupError("the tool raised")
    except LookupError:
        pass
    second.join(WAIT)
    assert passed == ["b"]


def test_calls_no_reply_holds_go_at_once() -> None:
    """A call with no id, of another agent, or absent from the reply (a tool the harness does
    not order), and one that comes again (a retry), wait for nothing."""
    turnstile, passed = Turnstile(), []
    turnstile.open("main", ["a", "b"])
    _through(turnstile, "x", passed)
    with turnstile.turn("main", None):
        passed.append("no id")
    _through(turnstile, "b", passed, agent="worker-1")
    assert passed == ["x", "no id", "b"]
    _through(turnstile, "a", passed)
    _through(turnstile, "a", passed)
    assert passed[-2:] == ["a", "a"]


def test_a_call_that_never_comes_holds_the_ones_behind_it_for_the_patience_alone() -> None:
    turnstile, passed = Turnstile(patience=BRIEF), []
    turnstile.open("main", ["never", "b", "c"])
    third = _started(turnstile, "c", passed)
    _through(turnstile, "b", passed)
    third.join(WAIT)
    assert passed == ["b", "c"]


def test_word_that_a_call_will_not_come_lets_the_ones_behind_it_go_at_once() -> None:
    """No patience runs out here: ``c`` goes on `Turnstile.finish` alone."""
    turnstile, passed = Turnstile(patience=WAIT * 4), []
    turnstile.open("main", ["answered elsewhere", "c"])
    third = _started(turnstile, "c", passed)
    turnstile.finish(["answered elsewhere"])
    third.join(WAIT)
    assert passed == ["c"]


def test_word_about_a_call_on_its_way_through_lets_nothing_go() -> None:
    """``a`` arrived: it settles as it passes, whatever word comes about it meanwhile."""
    turnstile, passed = Turnstile(patience=WAIT * 4), []
    turnstile.open("main", ["a", "b"])
    with turnstile.turn("main", "a"):
        waiting = _started(turnstile, "b", passed)
        turnstile.finish(["a"])
        waiting.join(BRIEF)
        assert passed == []
    waiting.join(WAIT)
    assert passed == ["b"]


def test_word_about_an_id_two_agents_hold_lets_nothing_go() -> None:
    """It cannot be told whose ``a`` is done, so ``b`` waits on (here, until the run ends)."""
    turnstile, passed = Turnstile(patience=WAIT * 4), []
    turnstile.open("main", ["a", "b"])
    turnstile.open("worker-1", ["a"])
    waiting = _started(turnstile, "b", passed)
    turnstile.finish(["a"])
    waiting.join(BRIEF)
    assert passed == []
    turnstile.close()
    waiting.join(WAIT)
    assert passed == ["b"]


def test_a_call_that_came_is_never_given_up_on() -> None:
    """``b`` holds its turn (its tool runs) for longer than the patience: ``c`` waits for it all
    the same, and goes once it is through."""
    turnstile, passed = Turnstile(patience=BRIEF), []
    turnstile.open("main", ["never", "b", "c"])
    with turnstile.turn("main", "b"):
        passed.append("b")
        third = _started(turnstile, "c", passed)
        third.join(BRIEF * 4)
        assert passed == ["b"]
    third.join(WAIT)
    assert passed == ["b", "c"]


def test_the_agent_s_next_reply_and_the_run_s_end_release_every_waiting_call() -> None:
    turnstile, passed = Turnstile(), []
    turnstile.open("main", ["never", "b"])
    waiting = _started(turnstile, "b", passed)
    turnstile.open("main", ["c"])
    waiting.join(WAIT)
    turnstile.open("main", ["never again", "d"])
    waiting = _started(turnstile, "d", passed)
    turnstile.close()
    waiting.join(WAIT)
    assert passed == ["b", "d"]


def test_calls_on_an_event_loop_wait_without_holding_it() -> None:
    turnstile, passed = Turnstile(), []
    turnstile.open("main", ["a", "b"])

    async def call(call_id: str, first: asyncio.Event | None) -> None:
        if first is not None:
            await first.wait()  # the second call is made to come first
        async with turnstile.aturn("main", call_id):
            passed.append(call_id)

    async def both() -> None:
        second_waits = asyncio.Event()

        async def second() -> None:
            second_waits.set()
            await call("b", None)

        await asyncio.wait_for(asyncio.gather(call("a", second_waits), second()), WAIT)

    asyncio.run(both())
    assert passed == ["a", "b"]
