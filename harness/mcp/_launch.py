"""Consumes the session served on loopback, produces the scenario's tools over MCP for an agent
in another process: the server's command and environment (stdio), a Streamable HTTP server at a
loopback URL (`McpService`) and a client config file in the ``mcpServers`` shape.

Nothing here imports `mcp`: the server runs in a process of its own (``python -m unsolvable.mcp``,
the harness's interpreter), so the agent's environment keeps whatever `mcp` its framework pins.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import select
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping
from typing import IO, TYPE_CHECKING

from unsolvable._environ import child_environ
from unsolvable._run_key import new_key
from unsolvable._session import scenario_of
from unsolvable._text import kept_end

if TYPE_CHECKING:
    from unsolvable._session import Session

__all__ = [
    "CONFIG_NAME",
    "SERVER_NAME",
    "McpService",
    "client_config",
    "is_available",
    "server_environ",
    "stdio_command",
]

SERVER_NAME = "unsolvable"
"""The server's name in client configs: Claude Code calls its tools ``mcp__unsolvable__<tool>``."""
CONFIG_NAME = "mcp.json"
LOOPBACK = "127.0.0.1"
MCP_PATH = "/mcp"
KEY_VARIABLE = "UNSOLVABLE_MCP_KEY"
"""Where the HTTP server reads the run's key, a segment of every path it answers
(`unsolvable._run_key`); in the server's environment only, never the agent's."""
POLL_SECONDS = 0.05
"""How often the watcher looks for a first connection or a stop: a client's connection waits in
the listen backlog meanwhile, so this only delays the server's start, never refuses anyone."""
STDERR_KEPT = 4_000
"""Characters of the server's stderr passed on to the harness's stderr (the record's output)."""


def is_available() -> bool:
    """Whether the harness's interpreter can run the server (the ``mcp`` extra is installed)."""
    return importlib.util.find_spec("mcp") is not None


def stdio_command() -> list[str]:
    """The command an MCP client starts for the stdio server: the harness's own interpreter."""
    return [sys.executable, "-m", "unsolvable.mcp"]


def server_environ(session: Session, tools_url: str) -> dict[str, str]:
    """What the server needs to serve ``session``'s tools: where they answer, their specs, the
    scenario's encoding of a failed call (`McpErrors`), and whether waiting answers are tasks
    and refusals are asked by elicitation (``Scenario.mcp_tasks``, ``Scenario.mcp_elicit``)."""
    scenario = scenario_of(session)
    return {
        "UNSOLVABLE_TOOLS_URL": tools_url,
        "UNSOLVABLE_TOOLS": json.dumps(session.openai_tools),
        "UNSOLVABLE_MCP_ERRORS": str(scenario.mcp_errors),
        "UNSOLVABLE_MCP_TASKS": "1" if scenario.mcp_tasks else "",
        "UNSOLVABLE_MCP_ELICIT": "1" if scenario.mcp_elicit else "",
    }


def client_config(url: str) -> dict[str, object]:
    """The ``mcpServers`` file Claude Code, Cursor and others read, naming the HTTP server."""
    return {"mcpServers": {SERVER_NAME: {"type": "http", "url": url}}}


class McpService:
    """The scenario's tools over Streamable HTTP at ``http://127.0.0.1:<port>/<key>/mcp``: a
    request without the run's key is refused (401) and never reaches the tools.

    The port is bound at `start`, but the server process (about a second of imports) starts only
    when the first client connects: an agent that never uses MCP pays nothing. That connection
    waits in the listen backlog until the server accepts it. `stop` kills the server.

    >>> with McpService(server_environ(session, server.tools_url)) as mcp:  # doctest: +SKIP
    ...     subprocess.run(["my-agent"], env={**os.environ, "MCP_URL": mcp.url})
    """

    def __init__(self, environ: Mapping[str, str]) -> None:
        self.environ = dict(environ)
        self.key = new_key()
        self._listener: socket.socket | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._stderr: IO[bytes] | None = None
        self._stopping = threading.Event()
        self._watched: threading.Event | None = None
        """Set as the watcher thread ends."""
        self.port = 0
        self.started = False
        """Whether a client connected, so the server process was started."""

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}/{self.key}{MCP_PATH}"

    def start(self) -> McpService:
        self._listener = socket.create_server((LOOPBACK, 0))
        self.port = self._listener.getsockname()[1]
        self._watched = threading.Event()
        watcher = threading.Thread(
            target=self._watch, args=(self._watched,), name="unsolvable-mcp-watcher", daemon=True
        )
        watcher.start()
        return self

    def _watch(self, watched: threading.Event) -> None:
        """Waits for a first connection (without accepting it), then starts the server on the
        listening socket, which the server accepts from from then on; sets ``watched`` as it
        ends."""
        assert self._listener is not None
        try:
            while not self._stopping.is_set():
                readable, _, _ = select.select([self._listener], [], [], POLL_SECONDS)
                if readable and not self._stopping.is_set():
                    self._spawn()
                    return
        finally:
            watched.set()

    def _spawn(self) -> None:
        assert self._listener is not None
        fd = self._listener.fileno()
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 (closed by stop)
        self._process = subprocess.Popen(
            [*stdio_command(), "--http", "--fd", str(fd)],
            env={**child_environ(), **self.environ, KEY_VARIABLE: self.key},
            stdin=subprocess.PIPE,  # closed when the harness ends, however: the server exits
            stdout=subprocess.DEVNULL,
            stderr=self._stderr,
            pass_fds=(fd,),
            start_new_session=True,  # its own process group, ended as one
        )
        self.started = True
        # The server holds the socket now; were it to die, a client is refused, not left waiting.
        self._listener.close()

    def stop(self) -> None:
        """Kills the server (if it was started) and passes its stderr on to the harness's."""
        self._stopping.set()
        # Within one poll: closing its socket under it, or starting the server after the check
        # below, would not do. An event, not a join: on CPython 3.11 a join that an interruption
        # (the watchdog's) cuts short takes the thread for ended while it still runs.
        while self._watched is not None and not self._watched.wait(POLL_SECONDS):
            pass
        if self._listener is not None:
            self._listener.close()
        if self._process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self._process.pid, signal.SIGKILL)
            self._process.wait()
            if self._process.stdin is not None:
                self._process.stdin.close()
        if self._stderr is not None:
            self._stderr.seek(0)
            said = kept_end(self._stderr.read().decode("utf-8", "replace"), STDERR_KEPT)
            self._stderr.close()
            sys.stderr.write(said)
        self._process = self._stderr = self._listener = self._watched = None

    def contract(self, folder: str) -> dict[str, str]:
        """The agent's MCP variables; writes the `client_config` file they name into ``folder``."""
        path = os.path.join(folder, CONFIG_NAME)
        with open(path, "w", encoding="utf-8") as file:
            json.dump(client_config(self.url), file, indent=2)
        return {
            "UNSOLVABLE_MCP_URL": self.url,
            "UNSOLVABLE_MCP_CONFIG": path,
            "UNSOLVABLE_MCP_COMMAND": shlex.join(stdio_command()),
            "UNSOLVABLE_MCP_ERRORS": self.environ["UNSOLVABLE_MCP_ERRORS"],
        }

    def __enter__(self) -> McpService:
        return self if self._listener is not None else self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
