"""Who called a session, and the first call made after the agent returned (`Callers`)."""

from __future__ import annotations

import threading

import pytest

from unsolvable._callers import Callers
from unsolvable._errors import SessionClosed


def test_calls_are_taken_until_the_agent_returns_and_each_thread_is_kept() -> None:
    callers = Callers("demo (seed 0)")
    callers.enter("a model call by main")
    other = threading.Thread(target=callers.enter, args=("search called by worker",))
    other.start()
    other.join()
    assert callers.threads == {threading.get_ident(), other.ident}
    assert callers.late_call is None


def test_the_first_late_call_is_noted_and_every_late_call_refused() -> None:
    callers = Callers("demo (seed 3)")
    callers.returned()
    with pytest.raises(SessionClosed, match=r"the run of demo \(seed 3\) has ended"):
        callers.enter("search called by worker")
    with pytest.raises(SessionClosed):
        callers.check("a sleep on the session clock")
    assert callers.wait_for_late_call(0)
    assert callers.finish() == "search called by worker"
    assert callers.threads == frozenset()  # a refused call is not a caller's


def test_a_call_after_the_run_finished_is_refused_but_not_noted() -> None:
    callers = Callers("demo (seed 0)")
    assert callers.finish() is None
    with pytest.raises(SessionClosed):
        callers.enter("a model call by main")
    assert callers.late_call is None and not callers.wait_for_late_call(0)
