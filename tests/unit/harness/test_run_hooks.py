"""What `unsolvable.run` hands its hooks: the abandon hook gets the record so far when the agent
outlives the grace period, an adapter reading a raised agent gets no return value, the wake
signal's handler is put back, and the record keeps the run's solvability and wall time."""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from types import FrameType

import pytest

import unsolvable
from tests import _builders as b
from unsolvable import Code, Outcome, Stop, TerminationRecord
from unsolvable._errors import CeilingHit
from unsolvable._run import WAKE


def _outlives_the_grace(abandoned: list[TerminationRecord]) -> Callable[[unsolvable.Session], Stop]:
    """Keeps calling the model, catching every interruption, until the harness has given up on
    it (the abandon hook ran): it outlives the grace however slowly the machine runs."""

    def agent(session: unsolvable.Session) -> Stop:
        while not abandoned:
            with contextlib.suppress(CeilingHit):
                session.call_model([{"role": "user", "content": session.task}], session.tools)
            # Most of the loop's time is in here, so the interruptions land in it and are
            # caught; it waits for nothing (the loop's condition is the event), only yields.
            with contextlib.suppress(CeilingHit):
                time.sleep(0.01)
        return Stop(code=Code.NO_PROGRESS)

    return agent


def test_the_abandon_hook_gets_the_record_so_far_once() -> None:
    abandoned: list[TerminationRecord] = []
    scenario = b.scenario(name="test/abandoned")
    record = unsolvable.run(
        _outlives_the_grace(abandoned),
        scenario,
        seed=3,
        strict=True,
        ceilings=unsolvable.Ceilings(max_wall_seconds=0.1),
        abandon=abandoned.append,
    )
    (given,) = abandoned
    assert (given.scenario, given.seed, given.outcome) == (
        "test/abandoned",
        3,
        Outcome.DID_NOT_STOP,
    )
    assert given.agent == record.agent and given.verdict.strict is True
    assert given.observed.ceiling == "wall_seconds"
    assert given.observed.steps == record.observed.steps, "no call counts after the ceiling"
    assert record.outcome is Outcome.DID_NOT_STOP


class _ReadsWhatItGot:
    name = "reads-what-it-got"

    def __init__(self) -> None:
        self.got: list[tuple[object, str]] = []

    def run(self, session: unsolvable.Session) -> object:
        raise RuntimeError("broke")

    def interpret(self, returned: object, error: BaseException | None) -> Stop | None:
        self.got.append((returned, type(error).__name__))
        return None


def test_an_agent_that_raised_returned_nothing_to_its_adapter() -> None:
    adapter = _ReadsWhatItGot()
    record = unsolvable.run(adapter, b.scenario())
    assert adapter.got == [(None, "RuntimeError")]
    assert record.outcome is Outcome.CRASHED


@pytest.mark.skipif(WAKE is None, reason="the wake signal is POSIX only")
def test_the_wake_signals_own_handler_is_put_back_after_the_run() -> None:
    assert threading.current_thread() is threading.main_thread()
    assert WAKE is not None

    def mine(signum: int, frame: FrameType | None) -> None:
        """The application's own handler."""

    previous = signal.signal(WAKE, mine)
    try:
        unsolvable.run(b.steps_then(1, Stop(code=Code.NO_PROGRESS)), b.scenario())
        assert signal.getsignal(WAKE) is mine
    finally:
        signal.signal(WAKE, previous)


UNDER_THE_DEFAULT = """
import signal, unsolvable
from tests import _builders as b

def agent(session):
    signal.signal(signal.SIGUSR2, signal.SIG_DFL)
    b.busy(session)

record = unsolvable.run(agent, b.scenario(), ceilings=unsolvable.Ceilings(max_wall_seconds=0.1))
print(record.outcome.value)
"""


@pytest.mark.skipif(WAKE is None, reason="the wake signal is POSIX only")
def test_the_wake_signal_is_not_sent_under_its_default_action() -> None:
    """An agent that put back the wake signal's default action, which ends the process, was
    killed by the harness's wake at the wall ceiling, and the harness's own interpreter with it
    (in-process, the calling test run). Run in a process of its own, which it took down."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(UNDER_THE_DEFAULT)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout) == (0, "did_not_stop\n"), done.stderr


def test_the_record_keeps_whether_the_scenario_was_solvable_and_how_long_it_took() -> None:
    control = unsolvable.run(b.steps_then(1, Stop(code=Code.COMPLETED)), b.scenario(solvable=True))
    stuck = unsolvable.run(b.steps_then(1, Stop(code=Code.NO_PROGRESS)), b.scenario())
    assert (control.solvable, stuck.solvable) == (True, False)
    assert control.wall_seconds > 0 and stuck.wall_seconds > 0


def test_a_run_on_another_thread_is_ended_at_its_ceiling_with_no_signal() -> None:
    """Signals reach only the main thread's handlers: off it the harness installs none and
    sends none (one sent would end the process), and interrupts the agent all the same."""
    before = signal.getsignal(WAKE) if WAKE is not None else None
    records: list[TerminationRecord] = []
    ceilings = unsolvable.Ceilings(max_wall_seconds=0.1)
    worker = threading.Thread(
        target=lambda: records.append(unsolvable.run(b.busy, b.scenario(), ceilings=ceilings))
    )
    worker.start()
    worker.join(30)
    (record,) = records
    assert (record.outcome, record.observed.ceiling) == (Outcome.DID_NOT_STOP, "wall_seconds")
    assert WAKE is None or signal.getsignal(WAKE) is before


class _NeedsTime:
    """An adapter that declares the wall ceiling it needs, as the coding-agent CLIs do."""

    name = "needs-time"
    wall_seconds = 42.0

    def run(self, session: unsolvable.Session) -> object:
        return session.ceilings.max_wall_seconds

    def interpret(self, returned: object, error: BaseException | None) -> Stop | None:
        return None


def test_a_run_takes_the_wall_ceiling_its_adapter_declares_unless_given_one() -> None:
    assert unsolvable.run(_NeedsTime(), b.scenario()).returned == "42.0"
    given = unsolvable.Ceilings(max_wall_seconds=7)
    assert unsolvable.run(_NeedsTime(), b.scenario(), ceilings=given).returned == "7"


def test_an_unstructured_return_is_named_in_the_verdict() -> None:
    record = unsolvable.run(lambda session: "all done!", b.scenario())
    assert record.outcome is Outcome.UNSTRUCTURED and record.returned == "'all done!'"
    assert b.messages(record) == (
        "returned no structured exit ('all done!'); expected NO_PROGRESS",
    )
