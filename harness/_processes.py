"""Consumes the scenario lookup a worker serves, produces worker processes held by the harness's
ends of their pipes (`unsolvable._worker.Channels`), and ends them with everything they started;
and how many this process can hold at once, by its open-file limit."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import tempfile
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.context import BaseContext
from multiprocessing.process import BaseProcess

from unsolvable._descendants import end_tree
from unsolvable._job import Lookup
from unsolvable._seen import Seen
from unsolvable._signal_names import signal_name
from unsolvable._stop import Outcome
from unsolvable._worker import Channels, serve

__all__ = [
    "DESCRIPTORS_PER_WORKER",
    "INTERRUPT_GRACE_SECONDS",
    "RESERVED_DESCRIPTORS",
    "Worker",
    "death",
    "most_workers",
    "open_file_limit",
    "start_worker",
    "stop_worker",
    "worker_context",
]

INTERRUPT_GRACE_SECONDS = 1.0
"""On an interrupt, how long running jobs get to finish before their workers are killed."""
OUT_OF_MEMORY = (
    "; memory may have run out: the kernel then kills a run's worker first, with no word"
)
"""Said of a worker killed by SIGKILL, which is how the kernel ends the process it picks when
memory runs out (`unsolvable._worker` makes the workers its first picks)."""
REAP_POLL_SECONDS = 0.01
"""How often the harness looks whether an ending worker has exited: it takes milliseconds."""
DESCRIPTORS_PER_WORKER = 5
"""Files the harness holds open for each worker: its ends of the worker's three pipes
(`Channels`), and the two `multiprocessing` keeps to watch a forked process."""
RESERVED_DESCRIPTORS = 64
"""Files kept for the harness's own use beside its workers': about a dozen at the start (its
standard streams, the workers' shared counts, the interpreter's own), the record stream, a
report or scenario file being read or written, and a worker being replaced, whose files are let
go only once its successor has started."""


SOCKET_PATH_MAX = 107
"""Bytes a Unix socket's path may hold on Linux: ``sun_path`` holds 108, its NUL among them."""
FORK_SERVER_SOCKET = "/pymp-12345678/listener-12345678"
"""What `multiprocessing` adds to the temporary folder to name its fork server's socket: a
folder of its own and the socket, each with eight random characters."""


def _fork_server_fits() -> bool:
    """Whether a fork server's socket can be named in this process's temporary folder: a deep
    ``TMPDIR`` (a build sandbox's, a CI runner's) leaves too few bytes, and the server would
    fail to start with ``AF_UNIX path too long``."""
    folder = os.fsencode(tempfile.gettempdir())
    return len(folder) + len(FORK_SERVER_SOCKET) <= SOCKET_PATH_MAX


def _runs_one_thread() -> bool:
    """Whether this process runs no thread but the calling one, as the kernel counts them: a
    native library (OpenBLAS, gRPC) starts threads that `threading` never sees, and a worker
    forked beside one can deadlock on a lock it held (Python 3.12 and later warn of it)."""
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:  # no /proc mounted: the threads `threading` knows of are all there is to count
        return threading.active_count() == 1


def worker_context(lookup: Lookup, *, fresh: bool = False) -> BaseContext:
    """``fork`` on Linux when this process runs no other thread (``unsolvable run``): it has
    imported the harness and the library already, so a worker is ready in milliseconds rather
    than after a fork server has imported them again. Otherwise, or when the workers must be
    ``fresh`` (a pytest session's, whose copy would carry its capture of warnings and logs into
    every run and keep them from the record), ``forkserver`` where there is one: workers start
    from a clean process that has imported the harness and the scenario library, never from one
    running agent threads; and ``spawn``, a clean process too, where there is none or its socket
    cannot be named in ``TMPDIR`` (`_fork_server_fits`). Either way the worker lets go of every
    descriptor it inherited (`unsolvable._worker`)."""
    if not fresh and sys.platform == "linux" and _runs_one_thread():
        return multiprocessing.get_context("fork")
    if "forkserver" not in multiprocessing.get_all_start_methods() or not _fork_server_fits():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["unsolvable._worker", lookup.__module__])
    return context


@dataclass(kw_only=True)
class Worker:
    """A worker process, the harness's ends of its pipes, and the jobs it was sent."""

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
    """When the worker is killed: its first job's agent not loaded by then (the batch's
    allowance for loading), its run past the wall ceiling, or its record not sent within the
    allowance its word that the run is over gave it."""
    loaded: bool = False
    """Whether it said the first job's agent is loaded, which starts that job's deadline once:
    said again, by an agent writing into its channel, it would put the deadline off for ever."""
    ended: Outcome | None = None
    """The outcome it said the job's run ended with, once the run was over, which gives its
    record a deadline once, for the same reason."""
    served: bool = False
    """Whether it has sent a record: lost after that, before it began its next job, it was
    broken by the agent of a job before, and that job never ran."""
    agent: str | None = None
    """The agent whose jobs it runs, set by its first: what an agent changes in its worker's
    interpreter (a class patched, a module replaced) reaches no run of another agent."""

    @property
    def index(self) -> int | None:
        """The job it is running, if any."""
        return self.queue[0] if self.queue else None


def start_worker(context: BaseContext, lookup: Lookup) -> Worker:
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
    return Worker(
        process=process, jobs=job_writer, records=record_reader, alive=alive_writer, seen=seen
    )


def stop_worker(worker: Worker, *, kill: bool) -> None:
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


def death(process: BaseProcess) -> str:
    """How a worker ended, once its channel has (it closes only as the worker exits)."""
    _reaped(process)
    code = process.exitcode
    if code is not None and code < 0:
        killed = f"the worker process was killed by {signal_name(-code)} during the run"
        return f"{killed}{OUT_OF_MEMORY}" if -code == signal.SIGKILL else killed
    return f"the worker process exited with status {code} during the run"


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
