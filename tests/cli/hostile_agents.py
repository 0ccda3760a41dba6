"""Agents that turn on the worker process they run in, or on the runs around them: the
red-team corpus of `test_worker_isolation.py`."""

from __future__ import annotations

import contextlib
import gc
import json
import multiprocessing
import os
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

from unsolvable import Code, Session, Stop, Verdict
from unsolvable._job import ENDED, LOADED, encode
from unsolvable._seen import Seen
from unsolvable._worker import Channels

ADDED = "UNSOLVABLE_ADDED"
"""A variable `adds_to_the_environment` adds to its worker's environment."""
DEEP = 100_000
"""Levels of nesting of a partial result no encoder or copier can recurse through."""


def forks(session: Session) -> Stop:
    """Forks carelessly: parent and child both go on and both return."""
    os.fork()
    session.call_model([], session.tools)
    return Stop(code=Code.NO_PROGRESS, reason="forked, then stopped")


def _into_every_pipe(line: bytes) -> None:
    """Writes ``line`` into every pipe the process can write to, its worker's channel among
    them."""
    for name in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):
            if int(name) > 2 and stat.S_ISFIFO(os.fstat(int(name)).st_mode):
                os.write(int(name), line)


def writes_the_channel(session: Session) -> Stop:
    """Writes a line that is no record into every pipe it can write to."""
    _into_every_pipe(b'{"kind": "finished", "record": "forged"}\n')
    return Stop(code=Code.NO_PROGRESS, reason="wrote the pipes")


def renews_its_deadline(session: Session) -> Stop:
    """Writes into its channel once more the message with which its worker says a run's agent
    is loaded, which starts that run's deadline — its pid and its job's index read from the
    worker's own memory — then stops. Taken at its word, an agent that silenced its run's
    watchdog and wrote it again and again would never be killed."""
    _says(LOADED)
    return Stop(code=Code.NO_PROGRESS, reason="said it again")


def puts_off_its_deadline(session: Session) -> Stop:
    """Writes into its channel the message with which its worker says a run is over, which
    gives its record a deadline of its own, longer than the run's: taken at its word, an
    agent that wrote it again and again would never be killed. Its worker then says it too."""
    _says(ENDED, outcome="stopped")
    return Stop(code=Code.NO_PROGRESS, reason="said it first")


def _says(kind: str, **fields: str) -> None:
    """Writes a message of ``kind`` about the running job into its worker's channel, its pid and
    its job's index read from the worker's own memory."""
    (seen,) = [held for held in gc.get_objects() if isinstance(held, Seen)]
    _into_every_pipe(encode(os.getpid(), seen._cells[0], kind, **fields))


def writes_its_key_to_the_channel(session: Session) -> Stop:
    """Writes a line that is no message, naming the key it was given, into every pipe it can
    write to: the harness quotes such a line as it records the run crashed."""
    _into_every_pipe(json.dumps([os.environ["HOSTILE_API_KEY"]]).encode() + b"\n")
    return Stop(code=Code.NO_PROGRESS, reason="wrote the pipes")


def replaces_the_judge(session: Session) -> str:
    """Replaces the worker's judge with one that passes everything, and returns no exit."""
    from unsolvable import _run, _verdict

    def passes(*args: object, **kwargs: object) -> Verdict:
        return Verdict(passed=True, strict=False)

    _verdict.judge = _run.judge = passes  # type: ignore[assignment]
    return "all done"


def moves_away(session: Session) -> Stop:
    """Changes what the next agent in its worker would start from, as coding agents do."""
    os.chdir("/")
    os.environ["PATH"] = "/nowhere"
    sys.path.insert(0, "/nowhere")
    os.umask(0o777)
    return Stop(code=Code.NO_PROGRESS, reason="moved away")


def adds_to_the_environment(session: Session) -> Stop:
    """Says whether it finds the variable it adds to its worker's environment, which an earlier
    run of it in that worker added: each run should start from the environment as it was."""
    found = ADDED in os.environ
    os.environ[ADDED] = "1"
    return Stop(code=Code.NO_PROGRESS, reason="found it" if found else "as it was")


def asks_the_console(session: Session) -> Stop:
    """Asks a person on the console, as an agent run by hand may, then closes its stdin."""
    answer = input("Which customer did you mean? ")
    sys.stdin.close()
    return Stop(code=Code.BLOCKED_INPUT, reason=f"told {answer!r}")


def reads_who_goes_first_out_of_memory(session: Session) -> Stop:
    """Says how readily the kernel ends its own process, a process it starts and its parent (the
    harness) when memory runs out (Linux's ``oom_score_adj``), as its partial result."""
    child = subprocess.run(["cat", "/proc/self/oom_score_adj"], capture_output=True, text=True)
    scores = {
        "agent": Path("/proc/self/oom_score_adj").read_text().strip(),
        "child": child.stdout.strip(),
        "harness": Path(f"/proc/{os.getppid()}/oom_score_adj").read_text().strip(),
    }
    return Stop(code=Code.NO_PROGRESS, reason="read", partial=scores)


class _Unprintable:
    def __repr__(self) -> str:
        raise RuntimeError("no repr for you")


def returns_the_unprintable(session: Session) -> _Unprintable:
    return _Unprintable()


def stops_with_a_deep_partial(session: Session) -> Stop:
    partial: list[object] = []
    for _ in range(DEEP):
        partial = [partial]
    return Stop(code=Code.NO_PROGRESS, reason="deep", partial=partial)


def leaves_a_process(session: Session) -> Stop:
    """Starts a process and returns without ending it."""
    child = subprocess.Popen(["sleep", "300"])
    return Stop(code=Code.NO_PROGRESS, reason="left one", partial={"pid": child.pid})


def leaves_a_fork_on_stdout(session: Session) -> Stop:
    """Forks a child that lives on, holding every descriptor the worker had."""
    if os.fork() == 0:
        time.sleep(300)
        os._exit(0)
    return Stop(code=Code.NO_PROGRESS, reason="left a fork")


def waits_with_a_process(session: Session) -> Stop:
    """Starts a process, says where both are, and waits: the harness is killed meanwhile."""
    child = subprocess.Popen(["sleep", "300"])
    Path(os.environ["HOSTILE_PIDS"]).write_text(f"{os.getpid()} {child.pid}")
    time.sleep(300)
    return Stop(code=Code.NO_PROGRESS, reason="waited")


def writes_over_its_row(session: Session) -> None:
    """Crashes with a message that, printed raw, would erase its own FAIL row and print a pass,
    and in Markdown, start a heading."""
    raise RuntimeError("\r\x1b[2K\x1b[1Aconstant-return/repeat  contract  pass\n\n# all passed")


FLOOD_MIB = 256
"""MiB the flooding agent writes to its stdout, a line of 1 KiB at a time."""
KEPT_MIB = 2
"""MiB of the flood the capture file may hold on disk once the harness has looked at it."""


def floods_its_output(session: Session) -> Stop:
    """Writes `FLOOD_MIB` to its stdout, waits for the capture file to hold no more than
    `KEPT_MIB` on disk (a minute at most), then says how big the file is and how much of it is
    on disk, and claims success, so that the record keeps the end of its output."""
    line = b"x" * 1023 + b"\n"
    for _ in range(FLOOD_MIB * 1024):
        os.write(1, line)
    waited = threading.Event()
    for _ in range(6000):
        if os.fstat(1).st_blocks * 512 <= KEPT_MIB << 20 or waited.wait(0.01):
            break
    status = os.fstat(1)
    print("the end", flush=True)
    partial = {"size": status.st_size, "on_disk": status.st_blocks * 512}
    return Stop(code=Code.COMPLETED, reason="flooded", partial=partial)


class _NamedToErase:
    """An agent whose name, printed raw, would ring, erase its own row and recolour the rest."""

    name = "named\x07\x1b[2K\x1b[31m\x00"

    def run(self, session: Session) -> Stop:
        return Stop(code=Code.NO_PROGRESS, reason="nothing new")

    def interpret(self, returned: object, error: BaseException | None) -> Stop | None:
        return returned if isinstance(returned, Stop) else None


named_to_erase = _NamedToErase()


def removes_the_baseline(session: Session) -> Stop:
    """Removes the baseline file the run gates on, if it is told one, while the run goes on."""
    if "HOSTILE_BASELINE" in os.environ:
        Path(os.environ["HOSTILE_BASELINE"]).unlink(missing_ok=True)
    return Stop(code=Code.NO_PROGRESS, reason="removed the baseline")


def stops_with_nan(session: Session) -> Stop:
    return Stop(code=Code.NO_PROGRESS, reason="not a number", partial=[float("nan"), 1e999])


def held(session: Session) -> Stop:
    """Waits, each run, until the test listening on the Unix socket ``HOSTILE_HOLD`` answers:
    its runs go on while the test starts another run."""
    session.call_model([], session.tools)
    with socket.socket(socket.AF_UNIX) as hold:
        hold.connect(os.environ["HOSTILE_HOLD"])
        hold.recv(1)
    return Stop(code=Code.NO_PROGRESS, reason="nothing new")


def unredacts(session: Session) -> Stop:
    """Switches its worker's redactor off, then names the key it was given."""
    from unsolvable import _redact

    _redact.Redactor.text = lambda self, text: text  # type: ignore[method-assign]
    key = os.environ["HOSTILE_API_KEY"]
    print("my key:", key)
    return Stop(code=Code.COMPLETED, reason=f"done with {key}")


def makes_the_next_agent_pass(session: Session) -> Stop:
    """Changes its worker so that every later plain agent in it runs the contract agent instead:
    a run of another agent made after it, in the same worker, would pass for it."""
    from unsolvable import agents
    from unsolvable.adapters.base import PlainAdapter

    PlainAdapter.run = lambda self, session: agents.contract(session)  # type: ignore[method-assign]
    return Stop(code=Code.NO_PROGRESS, reason="changed the worker")


def closes_its_standard_streams(session: Session) -> Stop:
    """Closes descriptors 0, 1 and 2, which its worker's next run starts from."""
    for descriptor in (0, 1, 2):
        os.close(descriptor)
    return Stop(code=Code.NO_PROGRESS, reason="closed its standard streams")


def sleeps_under_the_wake_signals_default(session: Session) -> Stop:
    """Puts back the default action of SIGUSR2, the signal that wakes a sleeping agent at the
    wall ceiling, which ends the process, then waits for a signal past the ceiling: none that
    the harness should send would end the wait, so the run ends when its worker is killed."""
    signal.signal(signal.SIGUSR2, signal.SIG_DFL)
    while True:
        signal.pause()


def _square(number: int) -> int:
    return number * number


def computes_in_a_pool(session: Session) -> Stop:
    """Spreads its work over a `multiprocessing` pool, as a framework may, and stops with it."""
    with multiprocessing.Pool(2) as pool:
        squares = pool.map(_square, [1, 2, 3])
    return Stop(code=Code.NO_PROGRESS, reason="computed", partial=squares)


def computes_in_a_forkserver_pool(session: Session) -> Stop:
    """`computes_in_a_pool`, its processes started by `multiprocessing`'s forkserver (the default
    on Linux from Python 3.14, and in a worker that a fork server started), which it starts
    once and keeps for the process's later pools."""
    with multiprocessing.get_context("forkserver").Pool(1) as pool:
        squares = pool.map(_square, [1, 2, 3])
    return Stop(code=Code.NO_PROGRESS, reason="computed", partial=squares)


def names_its_start_method(session: Session) -> Stop:
    """Stops with the start method `multiprocessing` would use for a pool it started unasked."""
    return Stop(code=Code.NO_PROGRESS, reason=multiprocessing.get_start_method())


def closes_its_workers_job_channel(session: Session) -> Stop:
    """Closes the channel its worker reads its next job from, then stops: its record is sent,
    and its worker ends before it begins the next job."""
    (channels,) = [held for held in gc.get_objects() if isinstance(held, Channels)]
    os.close(channels.jobs.fileno())
    return Stop(code=Code.NO_PROGRESS, reason="closed the job channel")
