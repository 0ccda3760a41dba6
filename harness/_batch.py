"""Consumes jobs (agent spec × scenario name × seed), produces their judged records in job order,
in this process or on a pool of worker processes.

Jobs name their agent and scenario instead of holding them, so they pickle; records come back as
the plain data `TerminationRecord.to_dict` makes and are rebuilt, the way xdist workers send
theirs, so an agent's odd partial results never break the pool. Order never depends on the
number of workers: the JSON of a run is the same bytes at ``-n 1`` and ``-n 4``.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from multiprocessing.context import BaseContext
from typing import Any

from harness._errors import UnsolvableError
from harness._record import TerminationRecord
from harness._run import run
from harness._scenario import Ceilings, Scenario

__all__ = ["Job", "run_jobs"]

CHUNKS_PER_WORKER = 8
"""Jobs are sent in chunks: few enough to keep pickling cheap, many enough that workers finish
together and progress moves smoothly."""

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


def _run_job(job: Job, lookup: Lookup) -> TerminationRecord:
    return run(
        job.agent, lookup(job.scenario), seed=job.seed, strict=job.strict, ceilings=job.ceilings
    )


def _run_in_worker(job: Job, lookup: Lookup) -> dict[str, Any]:
    return _run_job(job, lookup).to_dict(volatile=True)


def _context(lookup: Lookup) -> BaseContext | None:
    """``forkserver`` where there is one: forking a process whose threads may still be running
    agents is unsafe (Python 3.12 warns about it), and ``spawn`` re-imports everything per worker.
    """
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return None
    context = multiprocessing.get_context("forkserver")
    # Workers start with the harness and the scenario library imported, not each on its own.
    context.set_forkserver_preload([__name__, lookup.__module__])
    return context


def _pooled(jobs: Sequence[Job], lookup: Lookup, workers: int) -> Iterator[TerminationRecord]:
    chunksize = max(1, len(jobs) // (workers * CHUNKS_PER_WORKER))
    with ProcessPoolExecutor(max_workers=workers, mp_context=_context(lookup)) as pool:
        lookups = [lookup] * len(jobs)
        try:
            for data in pool.map(_run_in_worker, jobs, lookups, chunksize=chunksize):
                yield TerminationRecord.from_dict(data)
        except BrokenProcessPool as error:
            raise UnsolvableError(
                f"a worker process died during the run ({error}); an agent may have killed its "
                "process: rerun with --workers 1 to see which run"
            ) from None


def run_jobs(
    jobs: Sequence[Job],
    *,
    lookup: Lookup,
    workers: int = 1,
    on_record: Callable[[TerminationRecord], None] | None = None,
) -> list[TerminationRecord]:
    """Runs every job and returns the records in job order.

    ``workers`` above 1 runs them on that many processes; ``on_record`` is called with each
    record as it arrives (for progress).
    """
    serial = (_run_job(job, lookup) for job in jobs)
    records = []
    for record in _pooled(jobs, lookup, workers) if workers > 1 else serial:
        records.append(record)
        if on_record is not None:
            on_record(record)
    return records
