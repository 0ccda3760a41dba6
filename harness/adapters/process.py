"""Consumes a command line (``exec:COMMAND ARGS…``), produces a run of that process — any language —
against the session served on loopback, and the `Stop` it printed as its last stdout line.

The child is told everything through its environment (and ``{placeholders}`` in its arguments):
the model base URLs and fake keys, the task, the budget, the tools and where they answer. It runs
in its own process group, so the harness can end it, and whatever it started, at a ceiling.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator, Mapping, Sequence
from typing import IO, TYPE_CHECKING, Any
from urllib.parse import urlsplit

from unsolvable._environ import child_environ
from unsolvable._errors import AdapterError, CeilingHit
from unsolvable._leftovers import await_late_call
from unsolvable._remote import EXEC_PREFIX
from unsolvable._session import end_at_ceiling
from unsolvable._signal_names import signal_name
from unsolvable._stop import Stop
from unsolvable._text import PARTIAL_DEPTH, deeper_than, kept_end
from unsolvable.adapters._command_line import (
    DOCS,
    INTERPRETER,
    MCP_PLACEHOLDERS,
    PLACEHOLDERS,
    check_isolation,
    check_script,
    contract,
    expand,
    split_spec_command,
)
from unsolvable.adapters._stderr import StderrReader, stderr_account
from unsolvable.adapters.base import interpret_plain
from unsolvable.adapters.kit import shielded

if TYPE_CHECKING:
    from unsolvable._session import Session
    from unsolvable.mcp import McpService
    from unsolvable.wire import LoopbackServer

__all__ = [
    "EXEC_PREFIX",
    "Launch",
    "ProcessAdapter",
    "ProcessExit",
    "ProcessExited",
    "contract",
    "described_status",
    "split_spec_command",
]

OUTPUT_KEPT = 4_000
"""Characters kept of the child's stderr, and of its stdout, for the record."""
POLL_SECONDS = 0.05
"""How often the harness looks at the child and the ceilings while it runs: the same period as
the watchdog's interruptions, so a ceiling ends the child within one of them."""
STOP_LINE_LIMIT = 64 * 1024 * 1024
"""Bytes of the child's last stdout line kept whole, so that a structured exit of any length a
real agent writes (a long partial result, a long reason) is read: far more than any, and a
bound on what a child that prints without end can make the harness hold."""
STOP_DEPTH = 500
"""Levels of nesting a stop line is read to: far beyond the `PARTIAL_DEPTH` levels a record
keeps of a partial result (a deeper one is read, and noted as not kept), and half the
interpreter's default recursion limit, which reading JSON nested deeper spends from whatever
stack reads it. A fixed bound, so that a line is read, or refused, the same way in every run."""
TOO_DEEP = (
    f"the last stdout line is a JSON object nested more than {STOP_DEPTH} levels deep, too "
    "deeply to be read as a stop: print the stop with its partial result nested less deeply "
    f"(a record keeps {PARTIAL_DEPTH} levels of it)"
)
"""Why such a line is refused, where it would otherwise pass for no stop at all."""
TOO_LONG = (
    f"the last stdout line opens a JSON object longer than {STOP_LINE_LIMIT // 2**20} MiB, too "
    "long to be read as a stop: print the stop with a shorter partial result"
)
"""Why a last line past `STOP_LINE_LIMIT` that may be a stop is refused."""
REAP_SECONDS = 1.0
"""How long the readers of the child's output may take to drain after the group was killed; a
descendant that left the group (``setsid``) and keeps the pipe open is not waited for."""
REPR_KEPT = 100
"""Characters of the stdout tail shown as an unstructured run's returned value."""


_TOO_DEEP = object()
"""What `ProcessExit` reads a stop line nested too deeply as."""


class ProcessExited(Exception):
    """The agent's process ended with a non-zero status and no structured exit: a crash."""

    def __init__(self, message: str, ended: ProcessExit | None = None) -> None:
        super().__init__(message)
        self.ended = ended
        """How it ended, for an adapter that reads a CLI's own way of reporting a stop."""


@dataclasses.dataclass(frozen=True, kw_only=True, repr=False)
class ProcessExit:
    """How the child ended: what `ProcessAdapter.run` returns, and `interpret` reads."""

    status: int
    """The exit status; ``-N`` when signal N ended it (as `subprocess` reports it)."""
    stdout: str
    """The last `OUTPUT_KEPT` characters the child wrote to stdout."""
    stderr: str
    """The last `OUTPUT_KEPT` characters the child wrote to stderr."""
    last_line: str = ""
    """The last line the child wrote to stdout that is not blank, whole (up to
    `STOP_LINE_LIMIT` bytes): where its structured exit is."""
    node_error: str
    """The line naming the error of a Node report of an uncaught error at the end of its stderr,
    read as stderr was written (`StderrReader`): the report may open before `stderr` does."""
    error_line: str | None = None
    """The last line of its stderr that names an error (`ERROR_LINE`), read as it was written."""
    last_line_cut: bool = False
    """Whether the last stdout line that is not blank was past `STOP_LINE_LIMIT` and opened a
    JSON object: a stop, perhaps, too long to be read (`last_line` is then empty)."""

    @property
    def structured(self) -> Mapping[str, object] | None:
        """The last stdout line, if it is a JSON object with a ``code`` nested at most
        `STOP_DEPTH` levels: the child's stop."""
        last = self._last_json
        return last if isinstance(last, dict) and "code" in last else None

    @property
    def unreadable(self) -> str | None:
        """Why the last stdout line cannot be told from a stop: it opens a JSON object longer
        than `STOP_LINE_LIMIT` (`TOO_LONG`), or nested more than `STOP_DEPTH` levels
        (`TOO_DEEP`); ``None`` when it can."""
        if self.last_line_cut:
            return TOO_LONG
        return TOO_DEEP if self._last_json is _TOO_DEEP else None

    @functools.cached_property
    def _last_json(self) -> object:
        """The last stdout line read as JSON: ``None`` when it is not JSON, `_TOO_DEEP` when it is
        an object nested more than `STOP_DEPTH` levels, or one too deep to read at all."""
        line = self.last_line.strip()
        try:
            last = json.loads(line) if line else None
        except RecursionError:
            return _TOO_DEEP if line.startswith("{") else None
        except ValueError:
            return None
        return _TOO_DEEP if isinstance(last, dict) and deeper_than(last, STOP_DEPTH) else last

    def __repr__(self) -> str:
        """The stdout tail: what an unstructured run's record shows as its returned value."""
        return repr(self.stdout.strip()[-REPR_KEPT:])


@dataclasses.dataclass(frozen=True, kw_only=True)
class Launch:
    """What `ProcessAdapter.prepared` hands the caller that starts the child."""

    argv: list[str]
    """The command line, placeholders filled in (and wrapped for a network namespace)."""
    environ: dict[str, str]
    """The variables of the contract (`contract`), to add to the child's environment."""
    folder: str
    """A private folder of the run, removed at its end (the MCP config lives there)."""


class _Tail(threading.Thread):
    """Drains one of the child's pipes, keeping its last `OUTPUT_KEPT` characters and its last
    line that is not blank (`STOP_LINE_LIMIT` bytes of it at most), so that a chatty child never
    blocks on a full pipe and never fills the harness's memory."""

    def __init__(self, stream: IO[bytes], report: StderrReader | None = None) -> None:
        super().__init__(name="unsolvable-exec-output", daemon=True)
        self.stream, self.kept, self.report = stream, bytearray(), report
        self.line: bytearray | None = bytearray()
        """The line being written; ``None`` once it is past `STOP_LINE_LIMIT`."""
        self.opening = b""
        """The first byte of the line being written that is not white space, if any yet: a line
        past `STOP_LINE_LIMIT` without one is blank, and one opened by a brace may be a stop."""
        self.last = b""
        self.last_cut = False
        """Whether the last line that is not blank was past `STOP_LINE_LIMIT` and opened a JSON
        object (`ProcessExit.last_line_cut`)."""

    def run(self) -> None:
        with self.stream:
            for chunk in iter(lambda: os.read(self.stream.fileno(), 65_536), b""):
                if self.report is not None:
                    self.report.write(chunk)
                self.kept += chunk
                del self.kept[: -4 * OUTPUT_KEPT]  # bytes: up to 4 per character of UTF-8
                self._read(chunk)
        self._end_line()
        if self.report is not None:
            self.report.close()

    def _read(self, chunk: bytes) -> None:
        """Reads the lines ``chunk`` ends and begins. Of the lines it holds whole after the first,
        only the last that is not blank can be the last line, so that one alone is read: a child
        writing short lines without end costs a search of each chunk, not a step of each line."""
        first, final = chunk.find(b"\n"), chunk.rfind(b"\n")
        if first < 0:
            self._add(chunk)
            return
        self._add(chunk[:first])
        self._end_line()
        between = chunk[first + 1 : final]  # the whole lines after the first, if final > first
        shown = between.rstrip()  # up to the end of the last of them that is not blank
        if shown:
            end = between.find(b"\n", len(shown))
            self._add(between[shown.rfind(b"\n") + 1 : len(between) if end < 0 else end])
            self._end_line()
        self._add(chunk[final + 1 :])

    def _add(self, piece: bytes) -> None:
        if not self.opening:
            self.opening = piece.lstrip()[:1]
        if self.line is not None and len(self.line) + len(piece) > STOP_LINE_LIMIT:
            self.line = None  # too long to be read: the rest of it is skipped
        if self.line is not None:
            self.line += piece

    def _end_line(self) -> None:
        line, opening = self.line, self.opening
        self.line, self.opening = bytearray(), b""
        if line is None and opening:  # too long to be read, and not blank
            self.last, self.last_cut = b"", opening == b"{"
        elif line is not None and line.strip():
            self.last, self.last_cut = bytes(line), False

    @property
    def text(self) -> str:
        return kept_end(self.kept.decode("utf-8", "replace"), OUTPUT_KEPT)

    @property
    def last_line(self) -> str:
        return self.last.decode("utf-8", "replace")


class ProcessAdapter:
    """Runs a command line as the agent, over the loopback wire (``exec:python agent.py``).

    ``command`` is the program and its arguments, with ``{placeholders}`` from `contract`;
    ``name`` defaults to the spec, ``face`` (``exec:``) and the command line; ``face`` is the
    form the command was given in, which a missing program's error shows: a spec's prefix (an
    ``acp:`` agent's process runs here too), or none for a command given in code alone (an A2A
    server's, which has no spec). ``isolate_network`` runs the
    child in a network namespace of its own (Linux, ``unshare``), where only the harness's
    loopback address answers: an agent that ignores its base URL fails at once instead of
    reaching a real API. ``wire`` passes options to the `Wire` (e.g. ``tool_names``). The child's
    environment is the contract's variables and the part of the harness's that
    `unsolvable._environ.child_environ` lets through, plus the names in ``pass_env``.
    """

    def __init__(
        self,
        command: Sequence[str],
        *,
        name: str | None = None,
        face: str = EXEC_PREFIX,
        isolate_network: bool = False,
        wire: Mapping[str, Any] | None = None,
        pass_env: Sequence[str] = (),
    ) -> None:
        if not command:
            raise AdapterError(
                f"exec agent: no command; write it as {EXEC_PREFIX}python agent.py. See {DOCS}"
            )
        self.command = tuple(command)
        self.face = face
        self.name = name or face + shlex.join(self.command)
        self.isolate_network = isolate_network
        self.wire_options = dict(wire or {})
        self.pass_env = tuple(pass_env)
        if isolate_network:
            check_isolation(self.name)

    @classmethod
    def from_spec(cls, spec: str, *, isolate_network: bool = False) -> ProcessAdapter:
        """``exec:COMMAND ARGS…``, split as a POSIX shell would (`split_spec_command`)."""
        command = split_spec_command(spec, EXEC_PREFIX)
        return cls(command, name=spec, isolate_network=isolate_network)

    def preflight(self) -> None:
        """What every run needs, checked once before any (`unsolvable.load_agent`): the program
        exists, and so does the script an interpreter is pointed at, so a typo is one usage
        error rather than one crashed record per scenario; so are its placeholders."""
        from unsolvable.mcp import is_available

        known = PLACEHOLDERS | (MCP_PLACEHOLDERS if is_available() else frozenset())
        expand(self.name, self.command, dict.fromkeys(known, ""))
        program = self.command[0]
        if "{" in program:
            return  # a placeholder: known only when a run fills it in
        if shutil.which(program) is None:
            where = "is not an executable file" if os.sep in program else "is not on PATH"
            raise AdapterError(
                f"agent {self.name!r}: the program {program!r} {where}; install it, or give its "
                f"path (e.g. {self.face}/usr/bin/{os.path.basename(program)} …). See {DOCS}"
            )
        if INTERPRETER.fullmatch(os.path.basename(program)):
            check_script(self.name, self.command)

    def run(self, session: Session) -> ProcessExit:
        with self.prepared(session) as launch:
            ended = self._run_child(session, launch.argv, launch.environ)
        if ended.status != 0 and ended.structured is None:
            raise ProcessExited(self._crash(ended), ended)
        return ended

    @contextlib.contextmanager
    def prepared(self, session: Session) -> Iterator[Launch]:
        """The session served on loopback (the wire, and the MCP server where the extra is
        installed) and the command line filled in, run in its own network namespace where asked;
        all of it stopped on exit, and the wire checked for stray requests."""
        from unsolvable.wire import Wire  # the wire is imported only when a process is run

        wire = Wire(session, **self.wire_options)
        server = wire.serve()
        mcp = _mcp_service(session, server)
        try:
            with tempfile.TemporaryDirectory(prefix="unsolvable-") as folder:
                # An empty folder of the run's own, for an agent that must not read the user's
                # settings where it would read its HOME's (`{home}`).
                home = os.path.join(folder, "home")
                os.mkdir(home)
                environ = contract(session, server, home, mcp.contract(folder) if mcp else None)
                ports = [_port(server.base_url), *([mcp.port] if mcp else [])]
                argv = expand(self.name, self.command, environ)
                with self._network(folder, ports, argv) as launched:
                    yield Launch(argv=launched, environ=environ, folder=folder)
        finally:
            # The servers first, each on its own: wire.close() forgets a server before stopping
            # it, so a CeilingHit landing mid-stop would leave its socket open were it retried.
            if mcp is not None:
                shielded(mcp.stop)
            shielded(server.stop)
            shielded(wire.close)
        wire.check()

    def interpret(self, returned: object, error: BaseException | None) -> Stop | None:
        """The last stdout line as a `Stop`; ``None`` otherwise (crashed, or unstructured); a
        `ValueError` when that line cannot be told from a stop (`ProcessExit.unreadable`: too
        long, or nested too deeply)."""
        if error is None and isinstance(returned, ProcessExit):
            if returned.unreadable is not None:
                raise ValueError(returned.unreadable)
            return interpret_plain(returned.structured)
        return None

    @contextlib.contextmanager
    def _network(self, folder: str, ports: Sequence[int], argv: list[str]) -> Iterator[list[str]]:
        """``argv`` as is, or run in its own network namespace with the harness's loopback
        ``ports`` (the wire's, the MCP server's) relayed into it through sockets in ``folder``."""
        if not self.isolate_network:
            yield argv
            return
        from unsolvable.adapters._netns import close_relay, isolated, serve_unix

        relays = [(os.path.join(folder, f"{port}.sock"), port) for port in ports]
        listeners = [serve_unix(path, port) for path, port in relays]
        try:
            yield isolated(relays, argv)
        finally:
            for listener in listeners:
                shielded(functools.partial(close_relay, listener))

    def _run_child(
        self, session: Session, argv: list[str], environ: Mapping[str, str]
    ) -> ProcessExit:
        child = self._start(argv, environ)
        assert child.stdout is not None and child.stderr is not None  # both are pipes
        report = StderrReader()
        tails = (_Tail(child.stdout), _Tail(child.stderr, report))
        for tail in tails:
            tail.start()
        try:
            status = _wait(child, session)
            session.returned()  # before its group is ended: what it left running calls late
            await_late_call(session, functools.partial(_group_alive, child.pid))
        finally:
            shielded(lambda: _end(child, tails))
            # The agent's own output, as a worker keeps it (`output`): whatever ended the run,
            # a ceiling too, since a run that did not stop is the one whose output is wanted.
            shielded(functools.partial(_pass_on, tails[1].text))
        return ProcessExit(
            status=status,
            stdout=tails[0].text,
            stderr=tails[1].text,
            last_line=tails[0].last_line,
            node_error=report.named,
            error_line=report.error_line,
            last_line_cut=tails[0].last_cut,
        )

    def _start(self, argv: list[str], environ: Mapping[str, str]) -> subprocess.Popen[bytes]:
        try:
            return subprocess.Popen(
                argv,
                env={**child_environ(pass_env=self.pass_env), **environ},
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,  # its own process group, ended as one
            )
        except OSError as error:
            raise AdapterError(
                f"agent {self.name!r}: cannot start {argv[0]!r} ({error.strerror}); check that "
                "it is installed and on PATH, or give its path"
            ) from None

    def _crash(self, ended: ProcessExit) -> str:
        advice = ". To stop on purpose, print a JSON object with a code as the last stdout line"
        if ended.unreadable is not None:
            advice = f"; {ended.unreadable}"
        return (
            f"agent {self.name!r} {described_status(ended.status)} without a structured exit; "
            f"its stderr {stderr_account(ended.stderr, ended.node_error)}{advice}"
        )


def described_status(status: int) -> str:
    """How a process ended, from its exit status (``-N`` for signal N, as `subprocess` has it)."""
    if status < 0:
        return f"was killed by signal {signal_name(-status)}"
    return f"exited with status {status}"


def _mcp_service(session: Session, server: LoopbackServer) -> McpService | None:
    """The tools over Streamable HTTP, started on the agent's first connection; ``None`` when the
    harness's interpreter lacks the mcp extra (the MCP variables are then left out)."""
    from unsolvable.mcp import McpService, is_available, server_environ

    if not is_available():
        return None
    return McpService(server_environ(session, server.tools_url)).start()


def _port(url: str) -> int:
    return urlsplit(url).port or 0


def _wait(child: subprocess.Popen[bytes], session: Session) -> int:
    """The child's exit status; `CeilingHit` once a ceiling is reached while it still runs."""
    while True:
        try:
            return child.wait(timeout=POLL_SECONDS)
        except subprocess.TimeoutExpired:
            pass
        if session.ceiling is None and session.time_left() <= 0:
            end_at_ceiling(session, "wall_seconds")
        if session.ceiling is not None:
            raise CeilingHit(f"unsolvable: harness ceiling {session.ceiling} reached")


def _pass_on(said: str) -> None:
    sys.stderr.write(said)


def _group_alive(group: int) -> bool:
    """Whether a process of the child's group (something it started) still runs."""
    try:
        os.killpg(group, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _end(child: subprocess.Popen[bytes], tails: Sequence[_Tail]) -> None:
    """Kills the child's process group (what it started too) and reaps the child; a child still
    running is ended with every process below it, whatever group or session each moved to
    (`unsolvable._descendants`). What a child that exited left in another session is ended by
    the worker process, whose orphans they become."""
    from unsolvable._descendants import end_tree

    if child.poll() is None:
        end_tree(child.pid)
    with contextlib.suppress(ProcessLookupError):  # the child and all it started had ended
        os.killpg(child.pid, signal.SIGKILL)
    child.wait()
    for tail in tails:
        tail.join(REAP_SECONDS)
