"""Consumes jobs (agent spec × scenario name × seed), produces their judged records in job order,
each run made in a worker process that the agent cannot take the harness down with.

A worker (`unsolvable._worker`) runs one job at a time on its main thread and sends the record
back as one line of JSON (`unsolvable._job`). The harness trusts none of it: a message that is
malformed, comes from another process or answers another job is the crash of the job it waited
for, and every record is redacted here and judged again, from its observed fields and the
scenario, whatever the worker's judge made of it. A worker that dies
(``os._exit``, a signal, a segfault) is recorded ``crashed`` for the run it was in, one that
outlives its wall ceiling (a C loop holding the interpreter) is killed with everything it
started and recorded ``did_not_stop``, and a fresh worker takes the next job: the other runs
are unaffected. Order never depends on the number of workers, so the JSON of a run is the
same bytes at ``-n 1`` and ``-n 4``.
"""

from __future__ import annotations

import contextlib
import heapq
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from multiprocessing.connection import wait

from unsolvable._interrupts import InterruptCatcher
from unsolvable._job import (
    ABANDONED,
    ENDED,
    FAILED,
    LOADED,
    MESSAGE_LIMIT,
    Job,
    Lookup,
    MessageError,
    decode,
)
from unsolvable._judged import judged, lost
from unsolvable._loading import LOAD_SECONDS
from unsolvable._processes import (
    INTERRUPT_GRACE_SECONDS,
    Worker,
    death,
    start_worker,
    stop_worker,
    worker_context,
)
from unsolvable._record import TerminationRecord
from unsolvable._redact import Redactor
from unsolvable._run import GRACE_SECONDS
from unsolvable._stop import Outcome

__all__ = ["Batch", "Job", "WorkerPool", "run_jobs"]

KILL_MARGIN_SECONDS = 0.4
"""After the wall ceiling and the in-process grace, how long a silent worker is given before it
is killed: the agent then holds the interpreter and nothing in its process can end it."""
RECORD_SECONDS = 60.0
"""How long a worker whose run is over (it said so) may take to send its record: building and
writing one of tens of thousands of steps takes seconds on a loaded machine, which the margin
above is no allowance for; only an agent left running that then holds the interpreter reaches it."""
READ_CHUNK = 1024 * 1024
"""Bytes read from a worker's channel at once: a record of a long run is several megabytes."""
POLL_SECONDS = 0.1
"""How often the harness looks for dead and overdue workers while none sends anything."""
PIPELINE = 2
"""Jobs a worker holds at once, the one it runs and the next: it starts the next as soon as it
has sent a record, not after the harness has read it and sent another (a run lasts a few
milliseconds; the round trip was a quarter of it)."""


@dataclass(frozen=True, kw_only=True)
class Batch:
    """What `run_jobs` made: the finished records in job order, and whether it was cut short."""

    records: tuple[TerminationRecord, ...]
    positions: tuple[int, ...] = ()
    """Each record's job: its index in the jobs the batch was given."""
    interrupted: bool = False
    """SIGINT, SIGTERM or SIGHUP arrived: jobs not yet finished have no record."""


def _garbled(why: str) -> str:
    return (
        f"the worker's message about this run could not be read ({why}); an agent that writes "
        "to descriptors it did not open, or forks and carries on, garbles its own record"
    )


def _wall(job: Job) -> float:
    """How long a worker may take over a job before it is killed: the wall ceiling, the grace the
    run gives the agent to unwind, and a margin for its word that the run is over to arrive
    (`RECORD_SECONDS` then)."""
    return job.ceilings.max_wall_seconds + GRACE_SECONDS + KILL_MARGIN_SECONDS


def _overdue(worker: Worker) -> tuple[Outcome, str]:
    """How a job whose worker is killed at its deadline is recorded: its agent never loaded (the
    run never began), its run past the wall ceiling, or its run over and its record not sent in
    time, which leaves the outcome the worker said the run ended with only when it is the agent's
    failure to stop (the harness would have judged any other)."""
    killed = "; its worker was killed"
    if not worker.loaded:
        why = f"the agent was not loaded within {LOAD_SECONDS:g} s (an import that hangs)"
        return Outcome.CRASHED, why + killed
    if worker.ended is None:
        return Outcome.DID_NOT_STOP, "the agent held the interpreter past the wall ceiling" + killed
    why = (
        f"the run was over ({worker.ended.value}), but its record was not sent within "
        f"{RECORD_SECONDS:g} s (the agent's threads, left running, may hold the interpreter)"
    )
    did_not_stop = worker.ended is Outcome.DID_NOT_STOP
    return (Outcome.DID_NOT_STOP if did_not_stop else Outcome.CRASHED), why + killed


class _Todo:
    """The jobs not yet sent to a worker, by agent, each agent's in job order: a worker takes
    the first of its own agent's, a fresh worker the first of any agent's."""

    def __init__(self, jobs: Sequence[Job]) -> None:
        self._jobs = jobs
        self._by_agent: dict[str, list[int]] = {}
        """Each agent's job indices, a heap: a job given back goes in its place."""
        for index, job in enumerate(jobs):
            self._by_agent.setdefault(job.agent, []).append(index)

    def __bool__(self) -> bool:
        return any(self._by_agent.values())

    def first(self, agent: str | None) -> int | None:
        """The first job not yet sent of ``agent``, or of any agent's when it is ``None``."""
        if agent is not None:
            mine = self._by_agent.get(agent)
            return mine[0] if mine else None
        return min((left[0] for left in self._by_agent.values() if left), default=None)

    def take(self, agent: str | None) -> int | None:
        """`first`, no longer to send."""
        index = self.first(agent)
        if index is not None:
            heapq.heappop(self._by_agent[self._jobs[index].agent])
        return index

    def put_back(self, indices: Iterable[int]) -> None:
        """Jobs sent to a worker that is gone, to send again."""
        for index in indices:
            heapq.heappush(self._by_agent[self._jobs[index].agent], index)

    def clear(self) -> None:
        self._by_agent.clear()


class WorkerPool:
    """Up to ``size`` worker processes, started when first needed and reused across batches
    (the pytest plugin runs its generated suite through one, a test at a time); ``fresh``
    workers are never copies of this process (`worker_context`)."""

    def __init__(self, lookup: Lookup, *, size: int = 1, fresh: bool = False) -> None:
        self.lookup, self.size = lookup, size
        self.context = worker_context(lookup, fresh=fresh)
        self.redactor = Redactor()
        """The secrets of the harness's environment, which the workers start from: a record is
        redacted here, as it arrives, not in the worker, where its agent could switch a redactor
        off."""
        self.workers: list[Worker] = []
        self.jobs: Sequence[Job] = ()
        self.todo = _Todo(())
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
        SIGINT, SIGTERM and SIGHUP stop the dispatch of new jobs, the running ones get
        `INTERRUPT_GRACE_SECONDS`, and the batch says it was interrupted; otherwise an
        interrupt kills the running workers and propagates."""
        self.jobs, self.todo, self.records = jobs, _Todo(jobs), {}
        self.draining = False
        while len(self.workers) < min(self.size, len(jobs)):
            self.workers.append(start_worker(self.context, self.lookup))
        catcher = InterruptCatcher() if catch_interrupts else None
        interrupted = False
        with catcher or contextlib.nullcontext():
            try:
                while self.todo or self._busy():
                    self._dispatch()
                    self._collect_all(POLL_SECONDS, on_record, catcher)
            except BaseException as error:
                # Anything raised into the wait ends the batch: an interrupt, or pytest-timeout's
                # failure, which its alarm raises in the main thread. A worker left mid-job would
                # still run it when the pool's next batch begins, and answer for its first job.
                if catcher is None or not isinstance(error, KeyboardInterrupt):
                    self.close(kill=True)
                    raise
                interrupted = True  # SIGTERM and SIGHUP among them (`Interrupted`)
                self._drain(on_record, catcher)
        positions = tuple(sorted(self.records))
        records = tuple(self.records[i] for i in positions)
        return Batch(records=records, positions=positions, interrupted=interrupted)

    def close(self, *, kill: bool = False) -> None:
        """Stops every worker (kills those still running a job) and reaps them."""
        for worker in self.workers:
            stop_worker(worker, kill=kill or worker.index is not None)
        self.workers = []

    def _dispatch(self) -> None:
        for position, worker in enumerate(self.workers):
            if not worker.queue and self.todo and self.todo.first(worker.agent) is None:
                stop_worker(worker, kill=False)  # idle, and its agent has no job left: a fresh one
                worker = self.workers[position] = start_worker(self.context, self.lookup)
            while (
                len(worker.queue) < PIPELINE and (index := self.todo.take(worker.agent)) is not None
            ):
                worker.agent = self.jobs[index].agent
                worker.queue.append(index)
                if len(worker.queue) == 1:
                    self._arm(worker)
                with contextlib.suppress(OSError):  # it died: its sentinel says so, and then
                    worker.jobs.send((index, self.jobs[index]))  # this job runs on its successor

    def _arm(self, worker: Worker) -> None:
        """Starts the clock of the worker's first job, whose agent is not loaded yet: the
        allowance for loading it, not the run's wall ceiling, which a slow machine's start of a
        worker and import of a framework would otherwise spend before the run begins."""
        worker.loaded, worker.ended = False, None
        worker.deadline = time.monotonic() + LOAD_SECONDS

    def _busy(self) -> list[Worker]:
        return [worker for worker in self.workers if worker.index is not None]

    def _collect_all(
        self,
        timeout: float,
        on_record: Callable[[TerminationRecord], None] | None,
        catcher: InterruptCatcher | None,
    ) -> None:
        """Each record that arrives within ``timeout`` kept and handed to ``on_record``, an
        interrupt held until they are (`InterruptCatcher.held`)."""
        with catcher.held() if catcher is not None else contextlib.nullcontext():
            for record in self._collect(timeout):
                if on_record is not None:
                    on_record(record)

    def _collect(self, timeout: float) -> Iterator[TerminationRecord]:
        """Records that arrived within ``timeout``; dead and overdue workers are replaced."""
        busy = self._busy()
        ready = set(wait([worker.records for worker in busy], timeout))
        for worker in busy:
            if worker.records in ready:
                yield from self._read(worker)
            elif not worker.process.is_alive():  # its channel may outlive it in a stray fork
                yield from self._last_words(worker, Outcome.CRASHED, death(worker.process))
            elif time.monotonic() > worker.deadline:
                yield from self._last_words(worker, *_overdue(worker))

    def _last_words(
        self, worker: Worker, outcome: Outcome, why: str
    ) -> Iterator[TerminationRecord]:
        """A worker found dead, or overdue, after the wait said its channel had nothing: what it
        wrote since (the record of a run it finished before it died in its next, while the
        harness handled another worker's) is read first, and its running job is lost only once
        nothing is left to read."""
        if wait([worker.records], 0):
            yield from self._read(worker)
        else:
            yield from self._lost(worker, outcome, why)

    def _read(self, worker: Worker) -> Iterator[TerminationRecord]:
        """The records among what the worker wrote; the end of its channel is its death."""
        try:
            chunk = os.read(worker.records.fileno(), READ_CHUNK)
        except OSError:
            chunk = b""
        if not chunk:
            yield from self._lost(worker, Outcome.CRASHED, death(worker.process))
            return
        worker.inbox += chunk
        while worker.index is not None and (end := worker.inbox.find(b"\n")) >= 0:
            line = bytes(worker.inbox[:end])
            del worker.inbox[: end + 1]
            if (record := self._received(worker, line)) is not None:
                yield record
        if worker.index is not None and len(worker.inbox) > MESSAGE_LIMIT:
            why = f"more than {MESSAGE_LIMIT} bytes without the end of a message"
            yield from self._lost(worker, Outcome.CRASHED, _garbled(why))

    def _received(self, worker: Worker, line: bytes) -> TerminationRecord | None:
        """The record a message carries; ``None`` when it only said its agent is loaded, which
        starts the run's own deadline, or that the run is over, which gives its record one of
        its own. A message that is not about the running job from this
        worker, or a record that does not read as one, is that job's crash."""
        index = worker.index or 0
        job = self.jobs[index]
        try:
            message = decode(line, pid=worker.process.pid or 0, index=index)
            if message["kind"] == LOADED:
                if worker.loaded:
                    raise MessageError("it said again that its agent is loaded")
                worker.loaded, worker.deadline = True, time.monotonic() + _wall(job)
                return None
            if message["kind"] == ENDED:
                if worker.ended is not None or not worker.loaded:
                    raise MessageError("it said its run was over again, or before it began")
                worker.ended = Outcome(str(message.get("outcome")))
                worker.deadline = time.monotonic() + RECORD_SECONDS
                return None
            if message["kind"] == FAILED:
                failed = self.redactor.text(str(message.get("error")))
                why = f"the worker failed around the run: {failed}"
                return self._replace(worker, Outcome.CRASHED, why)
            record = judged(job, self.lookup(job.scenario), message.get("record"), self.redactor)
        except (MessageError, ValueError) as problem:
            return self._replace(
                worker, Outcome.CRASHED, _garbled(self.redactor.text(str(problem)))
            )
        return self._finish(worker, record, replace=message["kind"] == ABANDONED)

    def _lost(self, worker: Worker, outcome: Outcome, why: str) -> Iterator[TerminationRecord]:
        """`_replace`'s record, if it makes one."""
        if (record := self._replace(worker, outcome, why)) is not None:
            yield record

    def _replace(self, worker: Worker, outcome: Outcome, why: str) -> TerminationRecord | None:
        """The record of the job a worker was lost in, and a successor for it; ``None`` if the
        worker had not begun the job after sending another's record: an agent before broke it
        (its job channel closed, a thread left holding the interpreter), the job never ran, and
        it runs on the successor. A worker lost before its first record has its job recorded,
        so that one that cannot begin any is not started again and again."""
        index = worker.index or 0
        if worker.served and not worker.seen.began(index):
            self._renew(worker)
            return None
        job = self.jobs[index]
        seen = worker.seen.of(index)
        truth = worker.seen.lost_truth(index, ceiling=outcome is Outcome.DID_NOT_STOP)
        record = lost(job, self.lookup(job.scenario), outcome, why, seen, truth)
        return self._finish(worker, record, replace=True)

    def _finish(
        self, worker: Worker, record: TerminationRecord, *, replace: bool
    ) -> TerminationRecord:
        self.records[worker.queue.popleft()] = record
        worker.served = True
        if replace or (self.draining and worker.queue):
            self._renew(worker)
        elif worker.queue:
            self._arm(worker)
        return record

    def _renew(self, worker: Worker) -> None:
        """Kills the worker; the jobs sent to it run on its successor, unless an interrupt came:
        then a job not begun is not begun, and no successor starts."""
        if not self.draining:
            self.todo.put_back(worker.queue)
        worker.queue.clear()
        stop_worker(worker, kill=True)
        if not self.draining:
            self.workers[self.workers.index(worker)] = start_worker(self.context, self.lookup)

    def _drain(
        self, on_record: Callable[[TerminationRecord], None] | None, catcher: InterruptCatcher
    ) -> None:
        """After an interrupt: no new jobs; the running ones may still finish within the grace,
        which another interrupt ends. Runs cut off by the interrupt are not recorded: they did
        not end."""
        self.todo.clear()
        self.draining = True
        deadline = time.monotonic() + INTERRUPT_GRACE_SECONDS
        with contextlib.suppress(KeyboardInterrupt):
            while self._busy() and (left := deadline - time.monotonic()) > 0:
                self._collect_all(min(left, POLL_SECONDS), on_record, catcher)
        self.close(kill=True)


def run_jobs(
    jobs: Sequence[Job],
    *,
    lookup: Lookup,
    workers: int = 1,
    on_record: Callable[[TerminationRecord], None] | None = None,
) -> Batch:
    """Runs every job on ``workers`` processes and returns the records in job order; SIGINT,
    SIGTERM and SIGHUP end the batch early with every finished record (`WorkerPool.run`)."""
    pool = WorkerPool(lookup, size=workers)
    try:
        return pool.run(jobs, on_record=on_record, catch_interrupts=True)
    finally:
        pool.close()
