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
import dataclasses
import heapq
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.context import BaseContext
from multiprocessing.process import BaseProcess

from unsolvable._descendants import end_tree
from unsolvable._job import (
    ABANDONED,
    FAILED,
    LOADED,
    MESSAGE_LIMIT,
    Job,
    Lookup,
    MessageError,
    decode,
)
from unsolvable._loading import load_agent
from unsolvable._observed import Observed
from unsolvable._probes import COST_DIGITS, Truth, overshoot
from unsolvable._record import Ending, TerminationRecord
from unsolvable._redact import Redactor
from unsolvable._run import GRACE_SECONDS
from unsolvable._scenario import Scenario
from unsolvable._seen import Counts, Seen
from unsolvable._stop import Outcome
from unsolvable._verdict import judge
from unsolvable._worker import Channels, serve

__all__ = [
    "DESCRIPTORS_PER_WORKER",
    "RESERVED_DESCRIPTORS",
    "Batch",
    "Job",
    "WorkerPool",
    "most_workers",
    "open_file_limit",
    "run_jobs",
]

KILL_MARGIN_SECONDS = 0.4
"""After the wall ceiling and the in-process grace, how long a silent worker is given before it
is killed: the agent then holds the interpreter and nothing in its process can end it."""
INTERRUPT_GRACE_SECONDS = 1.0
"""On an interrupt, how long running jobs get to finish before their workers are killed."""
READ_CHUNK = 1024 * 1024
"""Bytes read from a worker's channel at once: a record of a long run is several megabytes."""
POLL_SECONDS = 0.1
"""How often the harness looks for dead and overdue workers while none sends anything."""
REAP_POLL_SECONDS = 0.01
"""How often the harness looks whether an ending worker has exited: it takes milliseconds."""
PIPELINE = 2
"""Jobs a worker holds at once, the one it runs and the next: it starts the next as soon as it
has sent a record, not after the harness has read it and sent another (a run lasts a few
milliseconds; the round trip was a quarter of it)."""
DESCRIPTORS_PER_WORKER = 5
"""Files the harness holds open for each worker: its ends of the worker's three pipes
(`Channels`), and the two `multiprocessing` keeps to watch a forked process."""
RESERVED_DESCRIPTORS = 64
"""Files kept for the harness's own use beside its workers': about a dozen at the start (its
standard streams, the workers' shared counts, the interpreter's own), the record stream, a
report or scenario file being read or written, and a worker being replaced, whose files are let
go only once its successor has started."""


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


def _runs_one_thread() -> bool:
    """Whether this process runs no thread but the calling one, as the kernel counts them: a
    native library (OpenBLAS, gRPC) starts threads that `threading` never sees, and a worker
    forked beside one can deadlock on a lock it held (Python 3.12 and later warn of it)."""
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:  # no /proc mounted: the threads `threading` knows of are all there is to count
        return threading.active_count() == 1


def _context(lookup: Lookup) -> BaseContext:
    """``fork`` on Linux when this process runs no other thread (``unsolvable run``): it has
    imported the harness and the library already, so a worker is ready in milliseconds rather
    than after a fork server has imported them again. Otherwise ``forkserver`` where there is
    one: workers start from a clean process that has imported the harness and the scenario
    library, never from one running agent threads. Either way the worker lets go of every
    descriptor it inherited (`unsolvable._worker`)."""
    if sys.platform == "linux" and _runs_one_thread():
        return multiprocessing.get_context("fork")
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["unsolvable._worker", lookup.__module__])
    return context


@dataclass(kw_only=True)
class _Worker:
    process: BaseProcess
    jobs: Connection
    """Where the harness sends ``(index, Job)``; ``None`` to stop."""
    records: Connection
    """What the worker writes, read raw into `inbox`."""
    alive: Connection
    """Held and never written: its end tells the worker's guard the harness is gone."""
    seen: Seen
    """What the harness admitted of the job it is running and its truth as it stood (`Seen`),
    read if it is lost."""
    inbox: bytearray = field(default_factory=bytearray)
    """Bytes read from `records` that do not end a line yet."""
    queue: deque[int] = field(default_factory=deque)
    """The jobs sent to it, in order: it runs the first (`PIPELINE`)."""
    deadline: float = 0.0
    """When the first job outlives its wall ceiling and the worker is killed."""
    loaded: bool = False
    """Whether it said the first job's agent is loaded, which starts that job's deadline once:
    said again, by an agent writing into its channel, it would put the deadline off for ever."""
    agent: str | None = None
    """The agent whose jobs it runs, set by its first: what an agent changes in its worker's
    interpreter (a class patched, a module replaced) reaches no run of another agent."""

    @property
    def index(self) -> int | None:
        """The job it is running, if any."""
        return self.queue[0] if self.queue else None


def _start(context: BaseContext, lookup: Lookup) -> _Worker:
    """A worker process and the harness's ends of its three pipes (`Channels`)."""
    job_reader, job_writer = context.Pipe(duplex=False)
    record_reader, record_writer = context.Pipe(duplex=False)
    alive_reader, alive_writer = context.Pipe(duplex=False)
    seen = Seen.shared(context)
    channels = Channels(jobs=job_reader, records=record_writer, alive=alive_reader, seen=seen)
    process = context.Process(target=serve, args=(channels, lookup), daemon=True)  # type: ignore[attr-defined]
    process.start()
    for theirs in (job_reader, record_writer, alive_reader):
        theirs.close()
    return _Worker(
        process=process, jobs=job_writer, records=record_reader, alive=alive_writer, seen=seen
    )


def _stop(worker: _Worker, *, kill: bool) -> None:
    """Ends a worker and everything it started (its tree, whatever group or session each
    process moved to); reaps it."""
    if kill and worker.process.pid is not None:
        end_tree(worker.process.pid)
    else:
        with contextlib.suppress(OSError):
            worker.jobs.send(None)
    _reaped(worker.process)
    for ours in (worker.jobs, worker.records, worker.alive):
        ours.close()


def _agent_name(job: Job) -> str:
    """The agent's name as the harness knows it, never as a worker says it."""
    try:
        return load_agent(job.agent).name
    except Exception:  # a spec that does not load: its runs are recorded under the spec
        return job.agent


def _as_asked(job: Job, scenario: Scenario) -> Scenario:
    """The scenario as the job's run is judged, as `run` judges it: the job's overrides applied,
    and N counted from the end of its seed's lead."""
    scenario = scenario.with_overrides(**dict(job.overrides))
    return scenario.bound_after(scenario.build(job.seed).lead)


def _lost(
    job: Job, scenario: Scenario, outcome: Outcome, why: str, seen: Counts, truth: Truth
) -> TerminationRecord:
    """The record of a run whose worker died, had to be killed or sent nothing usable: what the
    harness knows, which is the steps, tool calls and tokens it admitted (``seen``), how far
    past the budget they went, and the first stagnant step and the lag as they stood after the
    run's last call (``truth``: the worker showed them as the run went, so an agent that exits
    rather than stop late or early keeps its lag); what only the worker counted is unknown
    (``None``)."""
    scenario = _as_asked(job, scenario)
    sent = seen.input_tokens + seen.output_tokens
    cost = round(scenario.pricing.cost(seen.input_tokens, seen.output_tokens), COST_DIGITS)
    over, over_cost = overshoot(
        scenario.budget, tokens=sent - seen.uncharged_tokens, cost=cost, sent=sent
    )
    observed = Observed(
        steps=seen.steps,
        tool_calls=seen.tool_calls,
        first_stagnant_step=truth.first_stagnant_step,
        input_tokens=seen.input_tokens,
        output_tokens=seen.output_tokens,
        uncharged_tokens=seen.uncharged_tokens,
        cost_usd=cost,
        lag_tokens=truth.lag_tokens,
        lag_cost_usd=truth.lag_cost_usd,
        evidence_step=truth.evidence_step,
        overshoot_tokens=over,
        overshoot_cost_usd=over_cost,
        ceiling="wall_seconds" if outcome is Outcome.DID_NOT_STOP else None,
        error=why,
        # What only the worker counts, on its calls' answers and its clock, is unknown.
        transport_attempts=None,
        max_repeated_action=None,
        distinct_world_states=None,
        world_complete=None,
        read_a_result=None,
        overhead_tokens=None,
        steps_past_token_budget=None,
        next_step_tokens=None,
        next_step_cost_usd=None,
        final_answer_calls=None,
        slept_seconds=None,
        tool_seconds=None,
        idle_seconds=None,
        external_calls=None,
        calls_past_budget=None,
        steps_past_time_budget=None,
        unaffordable_steps=None,
        irreversible_calls=None,
        refusals=None,
        steps_by_agent=None,
        agents=None,
        subtasks=None,
        steps_past_cost_budget=None,
        steps_by_role=None,
        steps_past_role_budget=None,
        roles_spent=None,
    )
    ending = Ending(outcome=outcome, reported=None, observed=observed)
    return TerminationRecord(
        scenario=scenario.name,
        family=scenario.family,
        seed=job.seed,
        agent=_agent_name(job),
        outcome=outcome,
        reported=None,
        observed=observed,
        step_bound=scenario.step_bound,
        solvable=scenario.solvable,
        budget=scenario.budget.to_dict(),
        verdict=judge(ending, scenario, strict=job.strict),
    )


def _judged(job: Job, scenario: Scenario, data: object, redactor: Redactor) -> TerminationRecord:
    """The record a worker sent, judged here: what it says of the run (its outcome, the stop
    reported, the observed counts, its output) is read, checked field by field and redacted in
    the same walk, and judged against the scenario as this job asked for it; the verdict, the
    scenario's fields and the agent's name it sent are not read."""
    if not isinstance(data, Mapping):
        raise ValueError(f"its record is a {type(data).__name__}, not an object")
    sent = TerminationRecord.from_dict(data, clean=redactor.text)
    scenario = _as_asked(job, scenario)
    ending = Ending(
        outcome=sent.outcome, reported=sent.reported, observed=sent.observed, returned=sent.returned
    )
    return dataclasses.replace(
        sent,
        scenario=scenario.name,
        family=scenario.family,
        seed=job.seed,
        agent=_agent_name(job),
        step_bound=scenario.step_bound,
        solvable=scenario.solvable,
        budget=scenario.budget.to_dict(),
        verdict=judge(ending, scenario, strict=job.strict),
    )


def _garbled(why: str) -> str:
    return (
        f"the worker's message about this run could not be read ({why}); an agent that writes "
        "to descriptors it did not open, or forks and carries on, garbles its own record"
    )


def _wall(job: Job) -> float:
    """How long a worker may take over a job before it is killed: the wall ceiling, the grace the
    run gives the agent to unwind, and a margin for the record to arrive."""
    return job.ceilings.max_wall_seconds + GRACE_SECONDS + KILL_MARGIN_SECONDS


def _reaped(process: BaseProcess) -> None:
    """Waits for a worker that is ending, `INTERRUPT_GRACE_SECONDS` at most, then ends it and
    all below it. Its process sentinel is not waited on: the worker lets go of every descriptor
    it inherited, the sentinel's pipe among them, so only the process table says it ended."""
    deadline = time.monotonic() + INTERRUPT_GRACE_SECONDS
    while process.is_alive() and time.monotonic() < deadline:
        time.sleep(REAP_POLL_SECONDS)
    if process.is_alive() and process.pid is not None:
        end_tree(process.pid)
    process.join()


def _death(process: BaseProcess) -> str:
    """How a worker ended, once its channel has (it closes only as the worker exits)."""
    _reaped(process)
    code = process.exitcode
    if code is not None and code < 0:
        return f"the worker process was killed by {signal.Signals(-code).name} during the run"
    return f"the worker process exited with status {code} during the run"


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
    (the pytest plugin runs its generated suite through one, a test at a time)."""

    def __init__(self, lookup: Lookup, *, size: int = 1) -> None:
        self.lookup, self.size = lookup, size
        self.context = _context(lookup)
        self.redactor = Redactor()
        """The secrets of the harness's environment, which the workers start from: a record is
        redacted here, as it arrives, not in the worker, where its agent could switch a redactor
        off."""
        self.workers: list[_Worker] = []
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
        SIGINT and SIGTERM stop the dispatch of new jobs, the running ones get
        `INTERRUPT_GRACE_SECONDS`, and the batch says it was interrupted; otherwise an
        interrupt kills the running workers and propagates."""
        self.jobs, self.todo, self.records = jobs, _Todo(jobs), {}
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
        for position, worker in enumerate(self.workers):
            if not worker.queue and self.todo and self.todo.first(worker.agent) is None:
                _stop(worker, kill=False)  # idle, and its agent has no job left: a fresh one
                worker = self.workers[position] = _start(self.context, self.lookup)
            while (
                len(worker.queue) < PIPELINE and (index := self.todo.take(worker.agent)) is not None
            ):
                worker.agent = self.jobs[index].agent
                worker.queue.append(index)
                if len(worker.queue) == 1:
                    self._arm(worker)
                with contextlib.suppress(OSError):  # it died: its sentinel says so, and then
                    worker.jobs.send((index, self.jobs[index]))  # this job runs on its successor

    def _arm(self, worker: _Worker) -> None:
        """Starts the clock of the worker's first job, whose agent is not loaded yet."""
        worker.loaded, worker.deadline = False, time.monotonic() + _wall(self.jobs[worker.queue[0]])

    def _busy(self) -> list[_Worker]:
        return [worker for worker in self.workers if worker.index is not None]

    def _collect(self, timeout: float) -> Iterator[TerminationRecord]:
        """Records that arrived within ``timeout``; dead and overdue workers are replaced."""
        busy = self._busy()
        ready = set(wait([worker.records for worker in busy], timeout))
        for worker in busy:
            if worker.records in ready:
                yield from self._read(worker)
            elif not worker.process.is_alive():  # its channel may outlive it in a stray fork
                yield from self._last_words(worker, Outcome.CRASHED, _death(worker.process))
            elif time.monotonic() > worker.deadline:
                why = "the agent held the interpreter past the wall ceiling; its worker was killed"
                yield from self._last_words(worker, Outcome.DID_NOT_STOP, why)

    def _last_words(
        self, worker: _Worker, outcome: Outcome, why: str
    ) -> Iterator[TerminationRecord]:
        """A worker found dead, or overdue, after the wait said its channel had nothing: what it
        wrote since (the record of a run it finished before it died in its next, while the
        harness handled another worker's) is read first, and its running job is lost only once
        nothing is left to read."""
        if wait([worker.records], 0):
            yield from self._read(worker)
        else:
            yield self._replace(worker, outcome, why)

    def _read(self, worker: _Worker) -> Iterator[TerminationRecord]:
        """The records among what the worker wrote; the end of its channel is its death."""
        try:
            chunk = os.read(worker.records.fileno(), READ_CHUNK)
        except OSError:
            chunk = b""
        if not chunk:
            yield self._replace(worker, Outcome.CRASHED, _death(worker.process))
            return
        worker.inbox += chunk
        while worker.index is not None and (end := worker.inbox.find(b"\n")) >= 0:
            line = bytes(worker.inbox[:end])
            del worker.inbox[: end + 1]
            if (record := self._received(worker, line)) is not None:
                yield record
        if worker.index is not None and len(worker.inbox) > MESSAGE_LIMIT:
            why = f"more than {MESSAGE_LIMIT} bytes without the end of a message"
            yield self._replace(worker, Outcome.CRASHED, _garbled(why))

    def _received(self, worker: _Worker, line: bytes) -> TerminationRecord | None:
        """The record a message carries; ``None`` when it only said its agent is loaded, which
        starts the run's own deadline. A message that is not about the running job from this
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
            if message["kind"] == FAILED:
                failed = self.redactor.text(str(message.get("error")))
                why = f"the worker failed around the run: {failed}"
                return self._replace(worker, Outcome.CRASHED, why)
            record = _judged(job, self.lookup(job.scenario), message.get("record"), self.redactor)
        except (MessageError, ValueError) as problem:
            return self._replace(
                worker, Outcome.CRASHED, _garbled(self.redactor.text(str(problem)))
            )
        return self._finish(worker, record, replace=message["kind"] == ABANDONED)

    def _replace(self, worker: _Worker, outcome: Outcome, why: str) -> TerminationRecord:
        index = worker.index or 0
        job = self.jobs[index]
        seen, truth = worker.seen.of(index), worker.seen.truth_of(index)
        record = _lost(job, self.lookup(job.scenario), outcome, why, seen, truth)
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
            self.todo.put_back(worker.queue)
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


def open_file_limit() -> int | None:
    """How many files this process may open (``ulimit -n``, the soft limit); ``None`` where
    nothing limits them."""
    if sys.platform == "win32":  # no such limit to read
        return None
    import resource

    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return None if soft == resource.RLIM_INFINITY else soft


def most_workers() -> int:
    """The most worker processes this process can start at once: what its open-file limit
    leaves after the harness's own files, over each worker's. One more fails to start, with
    every run of the batch not yet made."""
    limit = open_file_limit()
    if limit is None:
        return sys.maxsize
    return max((limit - RESERVED_DESCRIPTORS) // DESCRIPTORS_PER_WORKER, 1)


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
