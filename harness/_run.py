"""Consumes an agent and a scenario, produces a judged `TerminationRecord`, whatever the agent does.

The agent runs on the calling thread, so it sees the thread, signals and event loop it would see
in production: stop logic that acts only on the main thread acts here too. A watchdog
thread keeps the clock instead: at the wall ceiling it ends the run and raises `CeilingHit` inside
the agent, again and again until it unwinds. On the main thread a signal also wakes an agent
blocked in a sleep or a socket read, so that the exception lands at once.
"""

from __future__ import annotations

import ctypes
import dataclasses
import functools
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from types import FrameType
from typing import Any

from unsolvable._apart import apart, loop_running_here
from unsolvable._errors import CeilingHit, ScenarioError
from unsolvable._interrupts import InterruptNoter
from unsolvable._leftovers import await_late_call
from unsolvable._loading import AgentLike, adapter_for
from unsolvable._record import Ending, Outcome, Stop, TerminationRecord, kept_stop
from unsolvable._redact import Redactor
from unsolvable._scenario import SEEDS, Ceilings, Scenario, is_seed
from unsolvable._seen import Seen
from unsolvable._session import Session, end_at_ceiling
from unsolvable._text import cut, described
from unsolvable._traceback import agent_traceback, error_text
from unsolvable._verdict import judge
from unsolvable.adapters.base import Adapter

__all__ = ["Abandon", "ceilings_for", "redacted_data", "run", "run_unredacted"]

GRACE_SECONDS = 1.0
"""How long an interrupted agent gets to unwind before the run is given up on (`Abandon`)."""
INTERRUPT_EVERY = 0.05
"""Seconds between two interruptions: an agent that catches one meets the next."""
RETURNED_CUT = 120
"""Characters of an unstructured return value kept in the record."""

WAKE = getattr(signal, "SIGUSR2", None)
"""The signal that interrupts a blocking call on the main thread (POSIX only)."""

Abandon = Callable[[TerminationRecord], None]
"""Called by the watchdog, with the record so far, when the agent has not unwound within the
grace period: a worker process sends the record and exits; in-process there is no such hook and
the harness waits for the agent."""


def _interrupt(ident: int) -> None:
    """Raises `CeilingHit` in the thread ``ident`` at its next bytecode (CPython only)."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), ctypes.py_object(CeilingHit))


def _land() -> None:
    """Does nothing, as a Python call: CPython raises an interruption still pending on a thread
    when it enters a function, so the last one the watchdog sent lands here at the latest, inside
    `_Watchdog.stop`'s ``try``. It is let land and caught, not cleared: on CPython 3.11,
    clearing one (``PyThreadState_SetAsyncExc(ident, NULL)``) leaves the interpreter's pending
    flag set, and under a tracer or profiler (coverage, ``pytest --cov``, cProfile) the next
    Python call then spins forever."""


def _ignore(signum: int, frame: FrameType | None) -> None:
    """The wake signal's handler: running it is what lets the pending `CeilingHit` land."""


class _Watchdog(threading.Thread):
    """Ends the run at the wall ceiling, from beside the agent rather than around it. The wake
    signal is sent only while a Python handler takes it (the harness's, or one the agent put in
    its place): under its default action, which an agent may put back, it would end the
    process, the harness's own in-process, and a run that did not stop would read as a crash."""

    def __init__(self, session: Session, *, wake: bool, on_overdue: Callable[[], None]) -> None:
        super().__init__(name="unsolvable-watchdog", daemon=True)
        self.session, self.wake, self.on_overdue = session, wake, on_overdue
        self.target = threading.get_ident()
        self.done = threading.Event()

    def run(self) -> None:
        if self.done.wait(self.session.time_left()):
            return
        end_at_ceiling(self.session, "wall_seconds")
        for _ in range(round(GRACE_SECONDS / INTERRUPT_EVERY)):
            _interrupt(self.target)
            if self.wake and WAKE is not None and callable(signal.getsignal(WAKE)):
                signal.pthread_kill(self.target, WAKE)
            if self.done.wait(INTERRUPT_EVERY):
                return
        self.on_overdue()

    def stop(self) -> None:
        """Called on the agent's thread once the agent is back; no interruption survives it. Once
        the watchdog has ended it sends no more, and the last one sent lands at the latest in
        `_land`."""
        while True:
            try:
                self.done.set()
                self.join()
                _land()
                return
            except CeilingHit:  # one last interruption, raised here rather than in the agent: again
                pass


def _call(
    adapter: Adapter, session: Session, watchdog: _Watchdog
) -> tuple[object, BaseException | None]:
    """Runs the agent on this thread; what it returned, or what it raised."""
    returned: object = None
    error: BaseException | None = None
    previous = signal.signal(WAKE, _ignore) if watchdog.wake and WAKE is not None else None
    watchdog.start()
    with InterruptNoter() as interrupts:
        try:
            try:
                returned = adapter.run(session)
                session.returned()  # at once: a call after this is work the agent left running
            except BaseException as raised:
                error = raised
                session.returned()
        finally:
            # An interruption pending when stop() is called lands at the call, before stop()'s
            # own try: caught here, and stop() called again, until it has returned.
            while True:
                try:
                    watchdog.stop()
                    break
                except CeilingHit:
                    pass
            if previous is not None and WAKE is not None:
                signal.signal(WAKE, previous)
            session.returned()  # again, in case an interruption at the ceiling cut it short
    if interrupts.landed:
        raise KeyboardInterrupt
    if error is not None and _ends_the_test(error):
        raise error
    return returned, error


def _ends_the_test(error: BaseException) -> bool:
    """Whether ``error`` is pytest's own end of the test the run is part of (`pytest.fail`,
    `pytest.skip`, `pytest.exit`; pytest-timeout's ``signal`` method raises the first from
    its alarm, inside the agent), which no agent raises in production: the test ends, not the
    run alone, as though the agent had not caught it."""
    outcomes = sys.modules.get("_pytest.outcomes")  # only where pytest runs, and so imported
    return outcomes is not None and isinstance(error, outcomes.OutcomeException | outcomes.Exit)


@dataclass(frozen=True, kw_only=True)
class _Classified:
    """How the run ended, as `_classify` reads it, before the session is finished."""

    outcome: Outcome
    stop: Stop | None = None
    error: str | None = None
    """The crash, ``Type: message``."""
    traceback: str | None = None
    """Where it raised (`agent_traceback`)."""
    returned: str | None = None
    """A repr of an unstructured return."""


def _await_leftovers(session: Session) -> None:
    """Waits for the threads that called the model or a tool, other than the agent's own, to end
    or to call again (`await_late_call`)."""
    mine = threading.get_ident()
    threads = [t for t in threading.enumerate() if t.ident in session.callers and t.ident != mine]
    await_late_call(session, lambda: any(thread.is_alive() for thread in threads))


def _classify(
    adapter: Adapter, session: Session, returned: object, error: BaseException | None
) -> _Classified:
    failure = session.failure
    if failure is not None:
        return _Classified(
            outcome=Outcome.CRASHED,
            error=error_text(failure),
            traceback=agent_traceback(failure.__cause__ or failure),
        )
    if session.ceiling is not None:
        return _Classified(outcome=Outcome.DID_NOT_STOP)
    try:
        interpreted = adapter.interpret(returned, error)
        stop = None if interpreted is None else kept_stop(interpreted)
    except Exception as failed:
        return _Classified(
            outcome=Outcome.CRASHED,
            error=f"adapter {adapter.name}: {described(failed)}",
            traceback=agent_traceback(failed),
        )
    if stop is not None:
        return _Classified(outcome=Outcome.STOPPED, stop=stop)
    if error is not None:
        return _Classified(
            outcome=Outcome.CRASHED, error=error_text(error), traceback=agent_traceback(error)
        )
    returned_text = cut(described(returned), RETURNED_CUT)
    return _Classified(outcome=Outcome.UNSTRUCTURED, returned=returned_text)


def _record(
    adapter: Adapter,
    scenario: Scenario,
    session: Session,
    ending: _Classified,
    *,
    strict: bool,
) -> TerminationRecord:
    outcome, stop, returned = ending.outcome, ending.stop, ending.returned
    observed = session.finish(error=ending.error, code=None if stop is None else stop.code)
    observed = dataclasses.replace(observed, traceback=ending.traceback)
    judged = Ending(outcome=outcome, reported=stop, observed=observed, returned=returned)
    return TerminationRecord(
        scenario=scenario.name,
        family=scenario.family,
        seed=session.seed,
        agent=str(adapter.name),
        outcome=outcome,
        reported=stop,
        observed=judged.observed,
        step_bound=scenario.step_bound,
        solvable=scenario.solvable,
        budget=scenario.budget.to_dict(),
        verdict=judge(judged, scenario, strict=strict),
        returned=returned,
        wall_seconds=round(session.elapsed, 4),
    )


def ceilings_for(
    adapter: Adapter, *, max_wall_seconds: float | None = None, **given: int
) -> Ceilings:
    """The ceilings of a run of ``adapter``: as given, the wall clock's included; without one, the
    wall ceiling the adapter declares it needs (``wall_seconds``: a coding agent's CLI takes
    seconds to start and about 0.1 s a step), else the default."""
    declared = getattr(adapter, "wall_seconds", None) or Ceilings.max_wall_seconds
    wall = declared if max_wall_seconds is None else max_wall_seconds
    return Ceilings(max_wall_seconds=wall, **given)


def run(
    agent: AgentLike,
    scenario: Scenario,
    *,
    seed: int | None = None,
    strict: bool = False,
    ceilings: Ceilings | None = None,
    abandon: Abandon | None = None,
    **overrides: Any,
) -> TerminationRecord:
    """Runs ``agent`` on ``scenario`` once, on this thread, and returns the judged record.

    ``agent`` is a callable ``agent(session)``, an `Adapter`, or a spec string (``naive``,
    ``contract``, ``module:attr``); ``seed`` defaults to the scenario's first seed;
    ``overrides`` replace ``step_bound`` or budget fields; ``ceilings`` default to
    `ceilings_for` the agent. ``abandon`` is for worker processes (`Abandon`). An agent that
    cannot run at all (a coding agent whose CLI is missing) raises `AdapterError` before the run.

    The record is redacted as it leaves (`unsolvable._redact`), of the secrets the environment
    holds now, before the agent runs. What the agent returned, however broken (a ``__repr__``
    that raises, a partial result nested thousands deep, a stop with a reason that is not text),
    is read under guard: a record is always made. A Ctrl-C that lands while the agent runs on
    the main thread is raised again once the run has stopped, as `KeyboardInterrupt`, whether
    or not the agent caught it: it is the person's, who wants the session ended, and the run
    has no record. So is pytest's end of a test raised in the agent (`pytest.fail` from
    pytest-timeout's alarm).

    Called where an event loop is running (an async test, a notebook), it runs the agent on a
    thread of its own (`unsolvable._apart`), where an async agent or an async framework's
    adapter can start its own loop, as in production, while the caller's waits.
    """
    if loop_running_here():
        return apart(
            functools.partial(
                run,
                agent,
                scenario,
                seed=seed,
                strict=strict,
                ceilings=ceilings,
                abandon=abandon,
                **overrides,
            )
        )
    redactor = Redactor()

    def hand_over(record: TerminationRecord) -> None:
        if abandon is not None:
            abandon(TerminationRecord.from_dict(redacted_data(record, redactor)))

    made = run_unredacted(
        agent, scenario, seed=seed, strict=strict, ceilings=ceilings, abandon=hand_over, **overrides
    )
    # A long run's record is megabytes in each form: each form is let go as the next is made,
    # so that no more than two are held at once.
    plain = redacted_data(made, redactor)
    del made
    return TerminationRecord.from_dict(plain)


def _check_arguments(scenario: object, *, strict: object, ceilings: object) -> None:
    """A `TypeError` saying what to pass, before the run, for a scenario, ``strict`` or
    ``ceilings`` of the wrong kind: a scenario given by name, as the command line and the
    ``unsolvable`` fixture take it, failed on a missing attribute, ceilings that are none were
    recorded as the agent's crash, and a ``strict`` that is no bool failed after the run."""
    if not isinstance(scenario, Scenario):
        fix = (
            f"for a scenario by name, pass scenarios.get({scenario!r}) "
            "(from unsolvable import scenarios)"
            if isinstance(scenario, str)
            else "pass one, e.g. scenarios.get('constant-return/repeat') (from unsolvable import "
            "scenarios)"
        )
        raise TypeError(
            f"unsolvable.run(agent, scenario): scenario is a {type(scenario).__name__} "
            f"({scenario!r}), not a Scenario; {fix}"
        )
    if not isinstance(strict, bool):
        raise TypeError(f"unsolvable.run(..., strict={strict!r}): give True or False")
    if ceilings is not None and not isinstance(ceilings, Ceilings):
        raise TypeError(
            f"unsolvable.run(..., ceilings={ceilings!r}): give unsolvable.Ceilings(max_steps=..., "
            "max_tool_calls=..., max_wall_seconds=...), or None for the agent's own"
        )


def run_unredacted(
    agent: AgentLike,
    scenario: Scenario,
    *,
    seed: int | None = None,
    strict: bool = False,
    ceilings: Ceilings | None = None,
    abandon: Abandon | None = None,
    seen: Seen | None = None,
    ended: Callable[[Outcome], None] | None = None,
    **overrides: Any,
) -> TerminationRecord:
    """`run`, returning the record as made, not yet redacted: for a worker process, which sends
    its plain form with the output it captured to the harness, which redacts it, and shows the
    harness the run's counts as they grow and its truth as it stands (``seen``), for a record if
    the worker is lost. ``ended`` is called with the run's outcome once the run is over, before
    its record is built (the agent back, or given up on): a record of thousands of steps takes a
    while to build, and the worker tells the harness that it is under way rather than the agent
    holding the interpreter, and how the run ended, should the record never come."""
    _check_arguments(scenario, strict=strict, ceilings=ceilings)
    scenario = scenario.with_overrides(**overrides)
    seed = scenario.seeds[0] if seed is None else seed
    if not is_seed(seed):
        raise ScenarioError(f"{scenario.name}: seed={seed!r}: a seed is {SEEDS}")
    adapter = adapter_for(agent)
    ceilings = ceilings or ceilings_for(adapter)
    setup = scenario.build(seed)
    scenario = scenario.bound_after(setup.lead)
    session = Session(scenario, setup, seed=seed, ceilings=ceilings, seen=seen)

    once = threading.Lock()  # the watchdog's thread and the agent's may both end the run

    def record(ending: _Classified) -> TerminationRecord:
        if ended is not None and once.acquire(blocking=False):
            ended(ending.outcome)
        return _record(adapter, scenario, session, ending, strict=strict)

    def overdue() -> None:
        if abandon is not None:
            abandon(record(_Classified(outcome=Outcome.DID_NOT_STOP)))

    on_main = threading.current_thread() is threading.main_thread()
    watchdog = _Watchdog(session, wake=on_main, on_overdue=overdue)
    returned, error = _call(adapter, session, watchdog)
    _await_leftovers(session)
    try:
        return record(_classify(adapter, session, returned, error))
    except Exception as failed:
        why = f"the harness could not read what the agent returned: {error_text(failed)}"
        return record(_Classified(outcome=Outcome.CRASHED, error=why))


def redacted_data(record: TerminationRecord, redactor: Redactor) -> dict[str, Any]:
    """The record's plain form (`TerminationRecord.to_dict`, wall times kept) with every string
    in it cleaned — the agent's output, the trajectory, the tools' arguments and results, the
    partial result, the errors and the verdict's messages: the plain form holds them all."""
    return record.to_dict(volatile=True, clean=redactor.text)
