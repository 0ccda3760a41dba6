"""Consumes the jobs the harness sends a worker process, produces their records on the worker's
channel: the worker's side of `unsolvable._batch`.

A worker holds nothing an agent could turn against the harness. It keeps no descriptor it does
not use (xdist's pipes, the other workers' channels, the harness's stdout: stdin, stdout and
stderr are ``/dev/null`` between runs and a capture file during one), so a descendant that
outlives a run holds none of them. A process the agent forks is cut off the channels at the fork
and ends when it comes back into the worker's code. Each job starts from the working directory,
environment, ``sys.path``, umask, warnings filters and loggers its agent's loading left,
whatever the previous run changed, and ends with every process it started gone
(`unsolvable._descendants`); its warnings show as in a fresh process. A guard process, outside
the worker's tree, ends the worker and all below it as soon as the harness is gone.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import multiprocessing
import os
import select
import signal
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from multiprocessing import forkserver
from multiprocessing.connection import Connection
from typing import Any, NoReturn, TextIO

from unsolvable._capture import Keeper, output_end
from unsolvable._descendants import become_subreaper, end_descendants, end_tree, has_children
from unsolvable._job import ABANDONED, ENDED, FAILED, FINISHED, LOADED, Job, Lookup, encode
from unsolvable._loading import imported_as, load_agent
from unsolvable._logging_state import LoggingState
from unsolvable._record import TerminationRecord
from unsolvable._run import run_unredacted
from unsolvable._seen import Seen
from unsolvable._traceback import error_text
from unsolvable._warnings_state import WarningsState, imported_warnings

__all__ = ["Channels", "serve"]

STANDARD_STREAMS = (0, 1, 2)
OOM_SCORE_ADJ = "/proc/self/oom_score_adj"
OOM_FIRST = 1000
"""The ``oom_score_adj`` of a process the kernel ends first when memory runs out; any process
may raise its own."""
ENDING_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)
)
"""Signals that end a worker as the system has them end any process: the harness turns them
into exceptions (`unsolvable._interrupts`), which a worker's agent must never see raised."""
GUARD_READ = 65_536
"""Bytes the guard reads at once from a pipe that should carry none."""


@dataclass(frozen=True, kw_only=True)
class Channels:
    """What the harness hands a worker: its ends of three pipes."""

    jobs: Connection
    """``(index, Job)`` pairs, then ``None`` to stop."""
    records: Connection
    """Where the worker writes its messages (`unsolvable._job.encode`); written raw, one line
    each, never pickled."""
    alive: Connection
    """Never written: its end of file says the harness is gone."""
    seen: Seen
    """The running job's counts and its truth as it stands, which the harness reads if it loses
    the worker."""

    @property
    def descriptors(self) -> tuple[int, ...]:
        return (self.jobs.fileno(), self.records.fileno(), self.alive.fileno())


@dataclass(frozen=True, kw_only=True)
class _Pristine:
    """What a job starts from: the worker's state before any agent ran, then as its agent's
    loading left it (`Worker._load`)."""

    cwd: str
    environ: dict[str, str]
    path: tuple[str, ...]
    umask: int
    warnings: WarningsState
    logging: LoggingState

    @classmethod
    def now(cls, *, imported: WarningsState | None = None) -> _Pristine:
        """The state as it is, with the warnings as an agent's import left them if given."""
        umask = os.umask(0)
        os.umask(umask)
        return cls(
            cwd=os.getcwd(),
            environ=dict(os.environ),
            path=tuple(sys.path),
            umask=umask,
            warnings=WarningsState.now() if imported is None else imported,
            logging=LoggingState.now(),
        )

    def restore(self, null: int) -> None:
        _reopen_standard_streams(null)
        os.chdir(self.cwd)
        # Only what the run added is unset: `os.environ.clear` unsets every variable, reading
        # the whole environment again for each, and every one is then set again.
        for added in os.environ.keys() - self.environ.keys():
            del os.environ[added]
        os.environ.update(self.environ)
        sys.path[:] = self.path
        os.umask(self.umask)
        self.warnings.restore()
        self.logging.restore()
        streams: tuple[Any, Any] = (sys.__stdout__, sys.__stderr__)
        sys.stdout, sys.stderr = streams
        sys.stdin = _NoPerson()  # the interpreter's own was closed when the worker started


NO_PERSON = (
    "the agent read its standard input, where no person answers a run under the harness (it is "
    "empty, as a CI job's is); to stop for a person, return a NEEDS_HUMAN stop, or use the "
    "framework's own pause for one, which its adapter reads as NEEDS_HUMAN"
)


class _NoPerson(io.TextIOBase):
    """A run's standard input: empty, as a CI job's is, and a read raises the `EOFError` a
    script meets there, saying why no one answers."""

    def readable(self) -> bool:
        return True

    def fileno(self) -> int:
        return 0  # ``/dev/null``, which a process the agent starts inherits

    def read(self, size: int | None = -1) -> str:
        raise EOFError(NO_PERSON)

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        raise EOFError(NO_PERSON)


def _to_devnull(descriptors: Iterable[int], null: int) -> None:
    """Points each open descriptor at ``null`` (``/dev/null``). Not closed: a Python object that
    owns one closes it in its own time, and a number closed under it could meanwhile name
    another file."""
    for descriptor in descriptors:
        with contextlib.suppress(OSError):  # one closed already stays closed
            os.fstat(descriptor)
            if descriptor != null:
                os.dup2(null, descriptor, inheritable=descriptor in STANDARD_STREAMS)


def _reopen_standard_streams(null: int) -> None:
    """Descriptors 0, 1 and 2, each closed by an agent, open again on ``/dev/null``: left closed,
    the next file the worker opened (a run's capture file) would take the number, and the next
    agent that closed its stdout would close that file under the worker."""
    for descriptor in STANDARD_STREAMS:
        try:
            os.fstat(descriptor)
        except OSError:
            os.dup2(null, descriptor)


def _has_a_free_descriptor(null: int) -> bool:
    """Whether this process can still open a file: a run that left it none would have the next
    fail as it began, for what another run did."""
    try:
        os.close(os.dup(null))
    except OSError:  # EMFILE: every number the process may have is taken
        return False
    return True


def _close_all_but(keep: Iterable[int]) -> None:
    """Closes every descriptor above the standard streams but ``keep``, up to the process's
    limit (one opened before an agent lowered it may stay)."""
    low = len(STANDARD_STREAMS)
    for kept in sorted(d for d in keep if d >= low):
        os.closerange(low, kept)
        low = kept + 1
    os.closerange(low, os.sysconf("SC_OPEN_MAX"))


def _open_descriptors() -> list[int]:
    folder = "/proc/self/fd" if os.path.isdir("/proc/self/fd") else "/dev/fd"
    return [int(name) for name in os.listdir(folder)]


def _release_inherited(keep: tuple[int, ...], null: int) -> None:
    """Every descriptor the worker inherited and does not use, let go: the standard streams, the
    pipes of an xdist worker it was forked from (held, a killed xdist worker would never be seen
    to end), the harness's ends of every worker's channels, the harness's open files."""
    _to_devnull((d for d in _open_descriptors() if d not in keep), null)


def _guard(alive: int, worker: int, worker_alive: int) -> NoReturn:
    """The guard's life: once the harness is gone (``alive`` at its end), the worker and
    everything below it are killed; once the worker is gone (``worker_alive`` at its end), the
    guard goes too. Bytes an agent writes into the worker's end are read and ignored. The
    worker's end is read first, so that a worker pid given to another process since is never
    killed."""
    while True:
        ready, _, _ = select.select([alive, worker_alive], [], [])
        if worker_alive in ready and not os.read(worker_alive, GUARD_READ):
            os._exit(0)
        if alive in ready and not os.read(alive, GUARD_READ):
            end_tree(worker)
            os._exit(0)


def _start_guard(alive: int, null: int) -> int:
    """Forks the guard through a middle process that exits at once, so that the guard is not
    the worker's child: the worker's end-of-job sweep and reaping never meet it. Returns the
    worker's end of the pipe whose end of file tells the guard the worker is gone."""
    worker = os.getpid()
    worker_alive, held = os.pipe()
    middle = os.fork()
    if middle == 0:
        if os.fork() == 0:
            _to_devnull((d for d in _open_descriptors() if d not in (alive, worker_alive)), null)
            _guard(alive, worker, worker_alive)
        os._exit(0)
    os.close(worker_alive)
    os.waitpid(middle, 0)
    return held


def _first_to_go_out_of_memory() -> None:
    """Asks the kernel (Linux) to end this worker, and what its agents start, before any other
    process when memory runs out: an agent that eats the machine's memory then ends its own run,
    recorded crashed, and not the harness holding every finished record, however large it grew.
    The guard, started before, keeps the harness's standing."""
    with contextlib.suppress(OSError), open(OOM_SCORE_ADJ, "w") as score:
        score.write(str(OOM_FIRST))


class Worker:
    """One worker process: a loop of jobs, one at a time, on the main thread."""

    def __init__(self, channels: Channels, lookup: Lookup) -> None:
        self.channels, self.lookup = channels, lookup
        self.pid = os.getpid()
        os.setpgrp()  # a terminal's Ctrl-C reaches only the harness, which decides
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        for ending in ENDING_SIGNALS:  # a forked worker inherits the batch's handlers
            signal.signal(ending, signal.SIG_DFL)
        self.null = os.open(os.devnull, os.O_RDWR)
        """Held from the start, so that pointing a stream at ``/dev/null`` after a run needs no
        new descriptor: an agent may leave the process none to open. An agent that closes it, as
        one that closes the channels, breaks the worker, which is then replaced."""
        _release_inherited((*channels.descriptors, self.null), self.null)
        guard = _start_guard(channels.alive.fileno(), self.null)
        self.held = (*channels.descriptors, guard)
        """What a process the agent forks must not hold."""
        _first_to_go_out_of_memory()
        become_subreaper()
        # Started daemonic, so that the harness's exit ends it; in here that would refuse the
        # agent a process of `multiprocessing`'s (a pool), which it may start in production.
        multiprocessing.current_process().daemon = False
        os.register_at_fork(after_in_child=self._detach)
        self.pristine = _Pristine.now()
        self.keeper = Keeper()
        """Keeps each run's capture file to its end on disk; it finds none to keep between runs."""
        self.keeper.start()

    def serve(self) -> None:
        with contextlib.suppress(EOFError, OSError):  # EOF, or a reset: the harness is gone
            while (given := self.channels.jobs.recv()) is not None:
                self._job(*given)
        end_descendants(self.pid)

    def _detach(self) -> None:
        """In a process the agent forked: the channels and the guard's pipe out of its reach."""
        _to_devnull(self.held, self.null)

    def _send(self, index: int, kind: str, **fields: Any) -> None:
        if os.getpid() != self.pid:  # a process the agent forked came back here: it ends
            os._exit(0)
        message = memoryview(encode(self.pid, index, kind, **fields))
        while message:
            message = message[os.write(self.channels.records.fileno(), message) :]

    def _job(self, index: int, job: Job) -> None:
        """Runs one job and sends its record; whatever the worker's own work around the run
        raises is sent as that job's failure, never left to end the worker."""
        self.channels.seen.begin(index)
        try:
            self.pristine.restore(self.null)
            self._load(job)
            self._send(index, LOADED)
            self._send(index, FINISHED, record=self._record(index, job))
        except BaseException as error:
            self._send(index, FAILED, error=error_text(error))
        finally:
            if has_children():
                end_descendants(self.pid)
                _forget_the_forkserver()

    def _load(self, job: Job) -> None:
        """Imports the agent before its run's clock starts: a framework that takes seconds to
        import (AutoGen, LlamaIndex) is not charged for it against the wall ceiling. A spec that
        fails to load raises again in the run, which records it. What loading set up (the
        current directory on ``sys.path``, for a ``module:attr`` beside it; what the module's
        import put in the environment; its loggers, `unsolvable._logging_state`; its warnings
        filters, here or in the harness's process this worker was forked from,
        `unsolvable._warnings_state`) is what each of the agent's runs starts from, the first as
        the later ones, as every call of it in production."""
        with contextlib.suppress(Exception):
            load_agent(job.agent, isolate_network=job.isolate_network)
        self.pristine = _Pristine.now(imported=imported_warnings(imported_as(job.agent)))
        self.pristine.warnings.restore()

    def _retire(self, index: int, record: dict[str, Any]) -> NoReturn:
        """Sends a run's record and exits, so that no later run starts in this process: its
        agent would not unwind, or left the process no descriptor to open. What the run started
        is ended as at the end of any job, once every descriptor but the channels is let go, as
        reading the process table takes one."""
        self._send(index, ABANDONED, record=record)
        _close_all_but(self.held)
        end_descendants(self.pid)
        os._exit(0)

    def _record(self, index: int, job: Job) -> dict[str, Any]:
        """The run's record, with the agent's output when it failed, in its plain form: the
        harness redacts it as it receives it (`unsolvable._batch`), where no agent runs. A run
        whose agent would not unwind, or that left the process no descriptor to open while its
        capture file was still open, is the worker's last (`_retire`)."""

        def abandon(record: TerminationRecord) -> None:
            self._retire(index, record.to_dict(volatile=True))

        with _captured(self.null, self.keeper) as output:
            record = run_unredacted(
                load_agent(job.agent, isolate_network=job.isolate_network),
                self.lookup(job.scenario),
                seed=job.seed,
                strict=job.strict,
                ceilings=job.ceilings,
                abandon=abandon,
                seen=self.channels.seen,
                ended=lambda outcome: self._send(index, ENDED, outcome=outcome.value),
                **dict(job.overrides),
            )
            text = "" if record.verdict.passed else output()
            spent = not _has_a_free_descriptor(self.null)
        plain = dataclasses.replace(record, output=text).to_dict(volatile=True)
        if spent:
            self._retire(index, plain)
        return plain


def _forget_the_forkserver() -> None:
    """`multiprocessing`'s forkserver, if the agent started one, was ended with the rest of its
    run: forgotten, the agent's next pool in this worker starts another, where `multiprocessing`,
    which expects to be the one to end it, would ask for its status and raise
    `ChildProcessError`."""
    server = vars(forkserver._forkserver)
    if server.get("_forkserver_pid") is not None:
        with contextlib.suppress(OSError, TypeError):  # already closed, or never opened
            os.close(server["_forkserver_alive_fd"])
        server["_forkserver_pid"] = server["_forkserver_alive_fd"] = None


@contextlib.contextmanager
def _captured(null: int, keeper: Keeper) -> Iterator[Callable[[], str]]:
    """The agent's own stdout and stderr go to a file, which ``keeper`` keeps to its end on
    disk; between runs, to ``null`` (``/dev/null``)."""
    with tempfile.TemporaryFile() as sink:
        for fd in (1, 2):
            os.dup2(sink.fileno(), fd)

        def output() -> str:
            streams: tuple[TextIO | None, ...] = (sys.stdout, sys.stderr)
            for stream in streams:
                with contextlib.suppress(Exception):  # the agent's own object, or closed
                    stream.flush()  # type: ignore[union-attr]
            return output_end(sink)

        keeper.keep(sink.fileno())
        try:
            yield output
        finally:
            keeper.keep(None)
            _to_devnull((1, 2), null)


def serve(channels: Channels, lookup: Lookup) -> None:
    """A worker process's entry point, what the harness starts. A worker started by a fork
    server has that server's start method as its default, where an agent in production has its
    platform's (``fork`` on Linux before Python 3.14): it is put back before any agent loads,
    so a pool the agent starts without naming one starts as it would there."""
    multiprocessing.set_start_method(None, force=True)
    Worker(channels, lookup).serve()
