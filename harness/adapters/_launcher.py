"""Consumes the command line of an agent's CLI that a framework starts itself, produces one
executable file to give the framework in its place: a launcher that puts the CLI in a process
group of its own and, where asked, in a network namespace with only the harness's loopback
address (`unsolvable.adapters._netns`).

For frameworks that take the CLI's path but start it themselves (claude-agent-sdk's
``cli_path``): the harness cannot pass ``start_new_session`` to that call, so the launcher does
it, and writes the group's id where the harness can read it to end the group at the end of the
run, whatever the framework did or did not reap.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import stat
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Launcher", "launcher"]

SCRIPT = """#!/bin/sh
# Written by pytest-unsolvable for one run: a process group of its own, id in {pid}.
echo $$ > {pid}
exec setsid {argv} "$@"
"""
"""``setsid`` in a process that is not a group leader (the framework's child is not) makes it the
leader of a new group in place, keeping its pid: the pid written is the group's id."""


@dataclass(frozen=True, kw_only=True)
class Launcher:
    """The launcher of one run: its path, and the folder it lives in (the CLI's config home)."""

    path: str
    """The executable to hand the framework as the CLI."""
    folder: str
    """A private folder for the run, removed at the end: the launcher, its relay socket, and
    whatever the caller keeps there (a config folder, a working directory)."""

    def end(self) -> None:
        """Kills the CLI's whole process group (``SIGKILL``), if it still runs."""
        pid_file = Path(self.folder, "pid")
        with contextlib.suppress(OSError, ValueError):
            group = int(pid_file.read_text().strip())
            os.killpg(group, signal.SIGKILL)


@contextlib.contextmanager
def launcher(argv: Sequence[str], *, port: int, isolate_network: bool) -> Iterator[Launcher]:
    """A launcher for ``argv`` (the CLI and its fixed leading arguments), relayed to the
    harness's loopback ``port`` inside a network namespace when ``isolate_network``; the group
    it started is killed and the folder removed on exit."""
    from unsolvable.adapters._netns import close_relay, isolated, serve_unix

    with tempfile.TemporaryDirectory(prefix="unsolvable-cli-") as folder:
        relay = os.path.join(folder, "wire.sock")
        command = isolated([(relay, port)], argv) if isolate_network else list(argv)
        listener = serve_unix(relay, port) if isolate_network else None
        path = os.path.join(folder, "launch")
        pid = shlex.quote(os.path.join(folder, "pid"))
        Path(path).write_text(SCRIPT.format(pid=pid, argv=shlex.join(command)))
        os.chmod(path, stat.S_IRWXU)
        started = Launcher(path=path, folder=folder)
        try:
            yield started
        finally:
            started.end()
            if listener is not None:
                close_relay(listener)
