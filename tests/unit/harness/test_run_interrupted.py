"""A Ctrl-C, or pytest's end of a test, that lands in an agent run in-process (in a user's own
test) ends the test or the session as it would without the harness, not the run alone as the
agent's crash."""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable

import pytest

import unsolvable
from unsolvable import Ceilings, Code, Outcome, Session, Stop, scenarios

ROOMY = Ceilings(max_wall_seconds=60.0)
"""Far above the wait for the signal: only a signal that never came reaches it."""


def _interrupted_while(waits: Callable[[threading.Event], object]) -> Callable[[Session], object]:
    """An agent that runs ``waits`` once it has said it began, and a Ctrl-C for it then."""
    began = threading.Event()
    main = threading.main_thread().ident
    assert main is not None

    def press() -> None:
        if began.wait(30):
            signal.pthread_kill(main, signal.SIGINT)

    def agent(session: Session) -> object:
        threading.Thread(target=press, daemon=True).start()
        began.set()
        return waits(threading.Event())

    return agent


def _catches_it(never: threading.Event) -> object:
    try:
        never.wait(30)
    except KeyboardInterrupt:  # as an agent that stops cleanly on Ctrl-C does
        return Stop(code=Code.NO_PROGRESS, reason="interrupted")
    return None


def test_a_ctrl_c_the_agent_catches_ends_the_run_as_an_interrupt() -> None:
    with pytest.raises(KeyboardInterrupt):
        unsolvable.run(
            _interrupted_while(_catches_it), scenarios.get("constant-return/repeat"), ceilings=ROOMY
        )
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_ctrl_c_the_agent_leaves_is_raised_not_recorded_as_its_crash() -> None:
    with pytest.raises(KeyboardInterrupt):
        unsolvable.run(
            _interrupted_while(lambda never: never.wait(30)),
            scenarios.get("constant-return/repeat"),
            ceilings=ROOMY,
        )


def test_a_keyboard_interrupt_the_agent_raises_itself_is_its_crash() -> None:
    def agent(session: Session) -> None:
        raise KeyboardInterrupt

    record = unsolvable.run(agent, scenarios.get("constant-return/repeat"))
    assert record.outcome is Outcome.CRASHED and "KeyboardInterrupt" in str(record.observed.error)


def test_pytests_end_of_a_test_raised_in_the_agent_ends_the_test() -> None:
    def agent(session: Session) -> None:
        pytest.fail("Timeout (>1.0s) from pytest-timeout.")

    with pytest.raises(pytest.fail.Exception, match="from pytest-timeout"):
        unsolvable.run(agent, scenarios.get("constant-return/repeat"))
