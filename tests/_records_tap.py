"""A session's record stream as an event to wait on: the harness writes each finished record as
one line of ``<json path>.jsonl``; made a named pipe beforehand, each line is read the moment it
is written, so an interrupt test waits for records written, not for a while.

A session started in a process group of its own is reaped in a ``finally``: a session that
outlives its test would load the machine and warn later in another test, far from its cause.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

__all__ = ["REAP_SECONDS", "RecordTap", "session"]

REAP_SECONDS = 300
"""How long a session may take to write the records a test waits for, and, interrupted, to write
its files and exit: a guard against a hung one, far above the seconds it takes on a loaded
machine, never a wait for something to happen."""


class RecordTap:
    """The lines of ``<json path>.jsonl``, read from a named pipe as the session writes them."""

    def __init__(self, json_path: Path) -> None:
        self.path = json_path.with_name(json_path.name + ".jsonl")
        os.mkfifo(self.path)
        self.lines: list[str] = []
        self._arrived = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        """Every line until the session closes its end (it must never block on a full pipe)."""
        with self.path.open(encoding="utf-8") as stream:  # waits for the session to open it
            for line in stream:
                with self._arrived:
                    self.lines.append(line)
                    self._arrived.notify_all()
        with self._arrived:
            self._arrived.notify_all()

    def wait_for(self, count: int, child: subprocess.Popen[bytes]) -> None:
        """Returns once ``count`` records are written; fails if the session ends first, or has
        not written them within `REAP_SECONDS`."""
        deadline = time.monotonic() + REAP_SECONDS
        with self._arrived:
            while len(self.lines) < count:
                assert child.poll() is None, "the session ended before it wrote the records"
                assert time.monotonic() < deadline, f"{count} records not written in time"
                self._arrived.wait(timeout=1)  # wakes at once on a record; else looks at child

    def close(self) -> None:
        """Waits for the reader; one still waiting for a session that never opened the pipe is
        let go by opening (and closing) the writing end."""
        with contextlib.suppress(OSError):
            os.close(os.open(self.path, os.O_WRONLY | os.O_NONBLOCK))
        self._reader.join(timeout=REAP_SECONDS)
        with contextlib.suppress(FileNotFoundError):  # the session removes it once done
            self.path.unlink()


@contextlib.contextmanager
def session(command: Sequence[str], **options: object) -> Iterator[subprocess.Popen[bytes]]:
    """``command`` in a process group of its own, its output piped; killed and reaped on the
    way out if it is still running then."""
    child = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True, **options
    )  # type: ignore[call-overload]
    try:
        yield child
    finally:
        if child.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.pid, signal.SIGKILL)
        child.communicate()
