"""Consumes an agent and a scenario, produces a judged `TerminationRecord`, whatever the agent does.

The agent runs in a worker thread so that the harness keeps the clock: an agent that never
returns is interrupted, then abandoned, and the run is still recorded.
"""

from __future__ import annotations

import ctypes
import threading
import time
from typing import Any

from harness._errors import CeilingHit
from harness._loading import AgentLike, load_agent
from harness._record import Ending, Outcome, Stop, TerminationRecord
from harness._scenario import Ceilings, Scenario
from harness._session import Session
from harness._text import cut
from harness._verdict import judge
from harness.adapters.base import Adapter, as_adapter

__all__ = ["run"]

GRACE_SECONDS = 1.0
"""How long an interrupted agent gets to unwind before its thread is abandoned."""
RETURNED_CUT = 120
"""Characters of an unstructured return value kept in the record."""


class _Worker(threading.Thread):
    def __init__(self, adapter: Adapter, session: Session) -> None:
        super().__init__(name=f"unsolvable-agent-{adapter.name}", daemon=True)
        self.adapter, self.session = adapter, session
        self.returned: object = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.returned = self.adapter.run(self.session)
        except BaseException as error:
            self.error = error


def _interrupt(worker: _Worker) -> None:
    """Raises `CeilingHit` inside a thread that does not come back by itself (CPython only)."""
    if worker.ident is None:
        return
    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(worker.ident), ctypes.py_object(CeilingHit)
    )


def _wait(worker: _Worker, session: Session) -> None:
    worker.join(session.ceilings.max_wall_seconds)
    if not worker.is_alive():
        return
    session.hit_ceiling("wall_seconds")
    deadline = time.monotonic() + GRACE_SECONDS
    while worker.is_alive() and time.monotonic() < deadline:
        _interrupt(worker)
        worker.join(GRACE_SECONDS / 10)


def _classify(
    worker: _Worker, session: Session
) -> tuple[Outcome, Stop | None, str | None, str | None]:
    """Outcome, reported stop, crash description and a repr of an unstructured return."""
    if session.ceiling is not None:
        return Outcome.DID_NOT_STOP, None, None, None
    try:
        stop = worker.adapter.interpret(worker.returned, worker.error)
    except Exception as error:
        return Outcome.CRASHED, None, f"adapter {worker.adapter.name}: {error!r}", None
    if stop is not None:
        return Outcome.STOPPED, stop, None, None
    if worker.error is not None:
        return Outcome.CRASHED, None, f"{type(worker.error).__name__}: {worker.error}", None
    return Outcome.UNSTRUCTURED, None, None, cut(repr(worker.returned), RETURNED_CUT)


def run(
    agent: AgentLike,
    scenario: Scenario,
    *,
    seed: int | None = None,
    strict: bool = False,
    ceilings: Ceilings | None = None,
    **overrides: Any,
) -> TerminationRecord:
    """Runs ``agent`` on ``scenario`` once and returns the judged record.

    ``agent`` is a callable ``agent(session)``, an `Adapter`, or a spec string (``naive``,
    ``contract``, ``module:attr``); ``seed`` defaults to the scenario's first seed;
    ``overrides`` replace ``step_bound`` or budget fields.
    """
    scenario = scenario.with_overrides(**overrides) if overrides else scenario
    seed = scenario.seeds[0] if seed is None else seed
    adapter = load_agent(agent) if isinstance(agent, str) else as_adapter(agent)
    session = Session(scenario, scenario.build(seed), seed=seed, ceilings=ceilings or Ceilings())
    worker = _Worker(adapter, session)
    worker.start()
    _wait(worker, session)
    outcome, stop, error, returned = _classify(worker, session)
    ending = Ending(
        outcome=outcome, reported=stop, observed=session.finish(error=error), returned=returned
    )
    return TerminationRecord(
        scenario=scenario.name,
        family=scenario.family,
        seed=seed,
        agent=adapter.name,
        outcome=outcome,
        reported=stop,
        observed=ending.observed,
        step_bound=scenario.step_bound,
        solvable=scenario.solvable,
        budget=scenario.budget.to_dict(),
        verdict=judge(ending, scenario, strict=strict),
        returned=returned,
        wall_seconds=round(session.elapsed, 4),
    )
