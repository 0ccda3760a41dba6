"""Consumes jobs (agent spec × scenario name × seed), produces their judged records in job order,
each run made in a worker process that the agent cannot take the harness down with.

A worker runs one job at a time on its main thread and sends the record back as the plain data
`TerminationRecord.to_dict` makes. A worker that dies (``os._exit``, a signal, a segfault) is
recorded ``crashed`` for the run it was in, one that outlives its wall ceiling (a C loop holding
the interpreter) is killed and recorded ``did_not_stop``, and a fresh worker takes the next job:
the other runs are unaffected. Order never depends on the number of workers, so the JSON of a run
is the same bytes at ``-n 1`` and ``-n 4``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import multiprocessing
import os
import signal
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.context import BaseContext
from multiprocessing.process import BaseProcess

from unsolvable._loading import load_agent
from unsolvable._record import Ending, Observed, Outcome, TerminationRecord
from unsolvable._run import GRACE_SECONDS, run
from unsolvable._scenario import Ceilings, Scenario
from unsolvable._verdict import judge

__all__ = ["Batch", "Job", "WorkerPool", "run_jobs"]

KILL_MARGIN_SECONDS = 0.4
"""After the wall ceiling and the in-process grace, how long a silent worker is given before it
is killed: the agent then holds the interpreter and nothing in its process can end it."""
INTERRUPT_GRACE_SECONDS = 1.0
"""On an interrupt, how long running jobs get to finish before their workers are killed."""
OUTPUT_CUT = 2000
"""Characters of an agent's own stdout/stderr kept in the record of a failing run."""
POLL_SECONDS = 0.1
"""How often the harness looks for dead and overdue workers while none sends anything."""
PIPELINE = 2
"""Jobs a worker holds at once, the one it runs and the next: it starts the next as soon as it
has sent a record, not after the harness has read it and sent another (a run lasts a few
milliseconds; the round trip was a quarter of it)."""
FINISHED, ABANDONED, LOADED = "finished", "abandoned", "loaded"
"""What a worker sends with a record: it is ready for the next job, or it is exiting."""

Lookup = Callable[[str], Scenario]
"""Finds a scenario by name; a module-level function (such as ``scenarios.get``) so it pickles."""


@dataclass(frozen=True, kw_only=True)
class Job:
    """One run to make."""

    agent: str
    """An agent spec: ``naive``, ``contract`` or ``module:attr``."""
    scenario: str
    seed: int
    strict: bool = False
    ceilings: Ceilings = field(default_factory=Ceilings)
    overrides: tuple[tuple[str, int | float], ...] = ()
    """Step bound and budget fields replaced for this run (what `unsolvable.run` takes)."""
    isolate_network: bool = False
    """Run an ``exec:`` agent with loopback only (`load_agent`)."""


@dataclass(frozen=True, kw_only=True)
class Batch:
    """What `run_jobs` made: the finished records in job order, and whether it was cut short."""

    records: tuple[TerminationRecord, ...]
    positions: tuple[int, ...] = ()
    """Each record's job: its index in the jobs the batch was given."""
    interrupted: bool = False
    """SIGINT or SIGTERM arrived: jobs not yet finished have no record."""


class Interrupted(Exception):
    """SIGTERM, delivered the way SIGINT is (as an exception in the main thread)."""


# -- the worker process ---------------------------------------------------------------------
@contextlib.contextmanager
def _captured() -> Iterator[Callable[[], str]]:
    """The agent's own stdout and stderr go to a file, not into the harness's output."""
    with tempfile.TemporaryFile() as sink:
        saved = [os.dup(1), os.dup(2)]
        for fd in (1, 2):
            os.dup2(sink.fileno(), fd)

        def output() -> str:
            for stream in (sys.stdout, sys.stderr):
                stream.flush()
            sink.seek(0, os.SEEK_END)
            size = sink.tell()
            sink.seek(max(0, size - 4 * OUTPUT_CUT))  # a UTF-8 character takes up to 4 bytes
            return sink.read().decode("utf-8", "replace")[-OUTPUT_CUT:]

        try:
            yield output
        finally:
            for fd, copy in zip((1, 2), saved, strict=True):
                os.dup2(copy, fd)
                os.close(copy)


def _run_job(job: Job, lookup: Lookup, conn: Connection) -> None:
    def abandon(record: TerminationRecord) -> None:
        conn.send((ABANDONED, record.to_dict(volatile=True)))
        os._exit(0)  # the agent's thread cannot be ended; this process can

    with _captured() as output:
        _load(job, conn)
        record = run(
            load_agent(job.agent, isolate_network=job.isolate_network),
            lookup(job.scenario),
            seed=job.seed,
            strict=job.strict,
            ceilings=job.ceilings,
            abandon=abandon,
            **dict(job.overrides),
        )
        text = "" if record.verdict.passed else output()
    conn.send((FINISHED, dataclasses.replace(record, output=text).to_dict(volatile=True)))


def _load(job: Job, conn: Connection) -> None:
    """Imports the agent before its run's clock starts, and says so: a framework that takes
    seconds to import (AutoGen, LlamaIndex) is not charged for it against the wall ceiling, which
    would otherwise end its first run in each worker before it began. A spec that fails
    to load raises again in the run, which records it."""
    with contextlib.suppress(Exception):
        load_agent(job.agent)
    conn.send((LOADED, None))


def _serve(conn: Connection, lookup: Lookup) -> None:
    """A worker's main loop: its own process group (so a terminal's Ctrl-C reaches only the
    harness, which decides), one job at a time, until told to stop."""
    os.setpgrp()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a forked worker inherits the batch's
    while (job := conn.recv()) is not None:
        _run_job(job, lookup, conn)


# -- the harness side -----------------------------------------------------------------------
def _context(lookup: Lookup) -> BaseContext:
    """``fork`` on Linux when this process runs no other thread (``unsolvable run``): it has
    imported the harness and the library already, so a worker is ready in milliseconds rather
    than after a fork server has imported them again, a tenth of a second on every run (issue
    14). Otherwise ``forkserver`` where there is one: workers start from a clean process that
    has imported the harness and the scenario library, never from one running agent threads."""
    if sys.platform == "linux" and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__, lookup.__module__])
    return context


@dataclass(kw_only=True)
class _Worker:
    process: BaseProcess
    conn: Connection
    queue: deque[int] = field(default_factory=deque)
    """The jobs sent to it, in order: it runs the first (`PIPELINE`)."""
    deadline: float = 0.0
    """When the first job outlives its wall ceiling and the worker is killed."""

    @property
    def index(self) -> int | None:
        """The job it is running, if any."""
        return self.queue[0] if self.queue else None


def _start(context: BaseContext, lookup: Lookup) -> _Worker:
    ours, theirs = context.Pipe()
    process = context.Process(target=_serve, args=(theirs, lookup), daemon=True)  # type: ignore[attr-defined]
    process.start()
    theirs.close()
    return _Worker(process=process, conn=ours)


def _stop(worker: _Worker, *, kill: bool) -> None:
    """Ends a worker and everything it started (its process group); reaps it."""
    pid = worker.process.pid
    if kill and pid is not None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)
    else:
        with contextlib.suppress(OSError):
            worker.conn.send(None)
    worker.process.join(timeout=None if kill else INTERRUPT_GRACE_SECONDS)
    if worker.process.is_alive():
        _stop(worker, kill=True)
    worker.conn.close()


def _lost(job: Job, scenario: Scenario, outcome: Outcome, why: str) -> TerminationRecord:
    """The record of a run whose worker died or had to be killed: what the harness knows."""
    scenario = scenario.bound_after(scenario.build(job.seed).lead)
    unsolvable = not scenario.solvable  # a control has no stagnant step and no lag
    observed = Observed(
        steps=0,
        tool_calls=0,
        first_stagnant_step=1 if unsolvable else None,
        input_tokens=0,
        output_tokens=0,
        cost_usd=0.0,
        lag_tokens=0 if unsolvable else None,
        lag_cost_usd=0.0 if unsolvable else None,
        max_repeated_action=0,
        distinct_world_states=1,
        world_complete=False,
        ceiling="wall_seconds" if outcome is Outcome.DID_NOT_STOP else None,
        error=why,
    )
    ending = Ending(outcome=outcome, reported=None, observed=observed)
    return TerminationRecord(
        scenario=scenario.name,
        family=scenario.family,
        seed=job.seed,
        agent=load_agent(job.agent).name,
        outcome=outcome,
        reported=None,
        observed=observed,
        step_bound=scenario.step_bound,
        solvable=scenario.solvable,
        budget=scenario.budget.to_dict(),
        verdict=judge(ending, scenario, strict=job.strict),
    )


def _wall(job: Job) -> float:
    """How long a worker may take over a job before it is killed: the wall ceiling, the grace the
    run gives the agent to unwind, and a margin for the record to arrive."""
    return job.ceilings.max_wall_seconds + GRACE_SECONDS + KILL_MARGIN_SECONDS


def _death(process: BaseProcess) -> str:
    process.join(timeout=INTERRUPT_GRACE_SECONDS)  # its pipe closes a moment before it is reaped
    code = process.exitcode
    if code is not None and code < 0:
        return f"the worker process was killed by {signal.Signals(-code).name} during the run"
    return f"the worker process exited with status {code} during the run"


class WorkerPool:
    """Up to ``size`` worker processes, started when first needed and reused across batches
    (the pytest plugin runs its generated suite through one, a test at a time)."""

    def __init__(self, lookup: Lookup, *, size: int = 1) -> None:
        self.lookup, self.size = lookup, size
        self.context = _context(lookup)
        self.workers: list[_Worker] = []
        self.jobs: Sequence[Job] = ()
        self.todo: list[int] = []
        self.records: dict[int, TerminationRecord] = {}
        self.draining = False

    def run(
        self,
        jobs: Sequence[Job],
        *,
        on_record: Callable[[TerminationRecord], None] | None = None,
        catch_interrupts: bool = False,
    ) -> Batch:
        """Runs ``jobs`` and returns their records in job order. With ``catch_interrupts``,
        SIGINT and SIGTERM stop the dispatch of new jobs, the running ones get
        `INTERRUPT_GRACE_SECONDS`, and the batch says it was interrupted; otherwise an
        interrupt kills the running workers and propagates."""
        self.jobs, self.todo, self.records = jobs, list(range(len(jobs)))[::-1], {}
        self.draining = False
        while len(self.workers) < min(self.size, len(jobs)):
            self.workers.append(_start(self.context, self.lookup))
        previous = signal.signal(signal.SIGTERM, _raise_interrupted) if catch_interrupts else None
        interrupted = False
        try:
            while self.todo or self._busy():
                self._dispatch()
                for record in self._collect(POLL_SECONDS):
                    if on_record is not None:
                        on_record(record)
        except (KeyboardInterrupt, Interrupted):
            if not catch_interrupts:
                self.close(kill=True)
                raise
            interrupted = True
            self._drain(on_record)
        finally:
            if previous is not None:
                signal.signal(signal.SIGTERM, previous)
        positions = tuple(sorted(self.records))
        records = tuple(self.records[i] for i in positions)
        return Batch(records=records, positions=positions, interrupted=interrupted)

    def close(self, *, kill: bool = False) -> None:
        """Stops every worker (kills those still running a job) and reaps them."""
        for worker in self.workers:
            _stop(worker, kill=kill or worker.index is not None)
        self.workers = []

    def _dispatch(self) -> None:
        for worker in self.workers:
            while len(worker.queue) < PIPELINE and self.todo:
                index = self.todo.pop()
                worker.queue.append(index)
                if len(worker.queue) == 1:
                    self._arm(worker)
                with contextlib.suppress(OSError):  # it died: its sentinel says so, and then
                    worker.conn.send(self.jobs[index])  # this job runs on its successor

    def _arm(self, worker: _Worker) -> None:
        """Starts the clock of the worker's first job."""
        worker.deadline = time.monotonic() + _wall(self.jobs[worker.queue[0]])

    def _busy(self) -> list[_Worker]:
        return [worker for worker in self.workers if worker.index is not None]

    def _collect(self, timeout: float) -> Iterator[TerminationRecord]:
        """Records that arrived within ``timeout``; dead and overdue workers are replaced."""
        busy = self._busy()
        ready = set(wait([w.conn for w in busy] + [w.process.sentinel for w in busy], timeout))
        for worker in busy:
            if worker.conn in ready:
                record = self._received(worker)
                if record is not None:
                    yield record
            elif worker.process.sentinel in ready:
                yield self._replace(worker, Outcome.CRASHED, _death(worker.process))
            elif time.monotonic() > worker.deadline:
                why = "the agent held the interpreter past the wall ceiling; its worker was killed"
                yield self._replace(worker, Outcome.DID_NOT_STOP, why)

    def _received(self, worker: _Worker) -> TerminationRecord | None:
        """The record a worker sent; ``None`` when it only said its agent is loaded, which starts
        the run's own deadline."""
        try:
            kind, data = worker.conn.recv()
        except (EOFError, OSError):  # a reset, when it died with a job unread
            return self._replace(worker, Outcome.CRASHED, _death(worker.process))
        if kind == LOADED:
            worker.deadline = time.monotonic() + _wall(self.jobs[worker.index or 0])
            return None
        record = TerminationRecord.from_dict(data)
        return self._finish(worker, record, replace=kind == ABANDONED)

    def _replace(self, worker: _Worker, outcome: Outcome, why: str) -> TerminationRecord:
        job = self.jobs[worker.index or 0]
        record = _lost(job, self.lookup(job.scenario), outcome, why)
        return self._finish(worker, record, replace=True)

    def _finish(
        self, worker: _Worker, record: TerminationRecord, *, replace: bool
    ) -> TerminationRecord:
        self.records[worker.queue.popleft()] = record
        if self.draining and worker.queue:  # after an interrupt, a job not begun is not begun
            worker.queue.clear()
            _stop(worker, kill=True)
            return record
        if replace:  # the jobs sent to a worker that is gone run on its successor
            self.todo.extend(reversed(worker.queue))
            worker.queue.clear()
            _stop(worker, kill=True)
            self.workers[self.workers.index(worker)] = _start(self.context, self.lookup)
        elif worker.queue:
            self._arm(worker)
        return record

    def _drain(self, on_record: Callable[[TerminationRecord], None] | None) -> None:
        """After an interrupt: no new jobs; the running ones may still finish within the grace.
        Runs cut off by the interrupt are not recorded: they did not end."""
        self.todo.clear()
        self.draining = True
        deadline = time.monotonic() + INTERRUPT_GRACE_SECONDS
        with contextlib.suppress(KeyboardInterrupt, Interrupted):
            while self._busy() and (left := deadline - time.monotonic()) > 0:
                for record in self._collect(min(left, POLL_SECONDS)):
                    if on_record is not None:
                        on_record(record)
        self.close(kill=True)


def _raise_interrupted(signum: int, frame: object) -> None:
    raise Interrupted(signal.Signals(signum).name)


def run_jobs(
    jobs: Sequence[Job],
    *,
    lookup: Lookup,
    workers: int = 1,
    on_record: Callable[[TerminationRecord], None] | None = None,
) -> Batch:
    """Runs every job on ``workers`` processes and returns the records in job order; SIGINT and
    SIGTERM end the batch early with every finished record (`WorkerPool.run`)."""
    pool = WorkerPool(lookup, size=workers)
    try:
        return pool.run(jobs, on_record=on_record, catch_interrupts=True)
    finally:
        pool.close()
