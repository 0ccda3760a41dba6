"""`McpService`: the port is bound at once, the server process starts only on a first connection,
and stopping it, or the harness dying, leaves no process behind."""

from __future__ import annotations

import contextlib
import os
import select
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import types
from pathlib import Path

import pytest

pytest.importorskip("mcp")

import unsolvable
from tests import _builders as b
from unsolvable import Ceilings, Outcome
from unsolvable.adapters.kit import shielded
from unsolvable.mcp import McpService, _launch

ENVIRON = {"UNSOLVABLE_TOOLS_URL": "http://127.0.0.1:9/tools", "UNSOLVABLE_TOOLS": "[]"}


def test_no_connection_no_server_process() -> None:
    with McpService({**ENVIRON, "UNSOLVABLE_MCP_ERRORS": "result"}) as mcp:
        assert mcp.url.startswith("http://127.0.0.1:") and mcp.url.endswith("/mcp")
    assert not mcp.started


def test_a_first_connection_starts_the_server_and_stop_kills_it() -> None:
    mcp = McpService({**ENVIRON, "UNSOLVABLE_MCP_ERRORS": "result"}).start()
    try:
        with socket.create_connection(("127.0.0.1", mcp.port), timeout=60) as conn:
            conn.sendall(b"GET /mcp HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
            assert conn.recv(12).startswith(b"HTTP/1.")  # answered by the server it started
        process = mcp._process
        assert mcp.started and process is not None
    finally:
        mcp.stop()
    assert process.poll() is not None


def _status(port: int, path: str) -> bytes:
    """The status line the server answers a POST to ``path`` with."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as conn:
        body = b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}'
        head = f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {len(body)}\r\n"
        conn.sendall(head.encode() + b"content-type: application/json\r\n\r\n" + body)
        return conn.recv(65_536).split(b"\r\n", 1)[0]


def test_a_request_without_the_runs_key_is_refused_and_the_server_holds_no_credential(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_" + "x" * 36)
    mcp = McpService({**ENVIRON, "UNSOLVABLE_MCP_ERRORS": "result"}).start()
    try:
        for path in ("/mcp", "/agents/w/mcp", f"/{'0' * 32}/mcp"):
            assert _status(mcp.port, path) == b"HTTP/1.1 401 Unauthorized"
        assert _status(mcp.port, f"/{mcp.key}/mcp") != b"HTTP/1.1 401 Unauthorized"
        assert mcp._process is not None
        environ = Path(f"/proc/{mcp._process.pid}/environ").read_bytes().split(b"\0")
    finally:
        mcp.stop()
    names = {entry.partition(b"=")[0] for entry in environ}
    assert b"GITHUB_TOKEN" not in names and b"UNSOLVABLE_MCP_KEY" in names and b"PATH" in names


def test_stopped_at_the_wall_ceiling_it_waits_for_its_watcher_whatever_the_interruptions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The watchdog's interruptions land in `stop` (an adapter's clean-up at the ceiling), and
    `stop` still waits for the watcher thread to end before it closes the socket under it."""
    stopping = threading.Event()
    went_on = threading.Event()
    watched_to_the_end = threading.Event()
    seen: list[bool] = []

    def slow_select(*args: object) -> tuple[list[object], list[object], list[object]]:
        # A poll under way when `stop` begins and slow to return: until the run has gone on,
        # or half a second.
        stopping.wait(60)
        went_on.wait(0.5)
        watched_to_the_end.set()
        return [], [], []

    monkeypatch.setattr(_launch, "select", types.SimpleNamespace(select=slow_select))

    def agent(session: unsolvable.Session) -> None:
        mcp = McpService({**ENVIRON, "UNSOLVABLE_MCP_ERRORS": "result"}).start()
        try:
            stopping.wait(60)  # set only below: the wall ceiling's interruption ends the wait
        finally:
            stopping.set()
            shielded(mcp.stop)
            seen.append(watched_to_the_end.is_set())
            went_on.set()

    record = unsolvable.run(agent, b.scenario(), ceilings=Ceilings(max_wall_seconds=0.5))
    assert (record.outcome, record.observed.ceiling) == (Outcome.DID_NOT_STOP, "wall_seconds")
    assert seen == [True], "stop went on while its watcher was still running"


HARNESS = textwrap.dedent(
    """
    import socket, sys
    from unsolvable.mcp import McpService

    environ = {"UNSOLVABLE_TOOLS_URL": "http://127.0.0.1:9/tools", "UNSOLVABLE_TOOLS": "[]",
               "UNSOLVABLE_MCP_ERRORS": "result"}
    mcp = McpService(environ).start()
    with socket.create_connection(("127.0.0.1", mcp.port), timeout=60) as conn:
        conn.sendall(b"GET /mcp HTTP/1.0\\r\\nHost: 127.0.0.1\\r\\n\\r\\n")
        conn.recv(12)  # answered: the server process is up
    print(mcp._process.pid, flush=True)
    sys.stdin.read()  # until the test kills it
    """
)
GONE_SECONDS = 60.0
"""How long a server whose harness died may take to notice: it is waited on, not slept for."""


def test_a_harness_killed_outright_leaves_no_server_process() -> None:
    """SIGKILL runs no clean-up, so `stop` never comes: the server ends on its own."""
    server = 0
    with subprocess.Popen(
        [sys.executable, "-c", HARNESS], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    ) as harness:
        try:
            assert harness.stdout is not None
            server = int(harness.stdout.readline())
            handle = os.pidfd_open(server)
            os.kill(harness.pid, signal.SIGKILL)
            harness.wait()
            try:
                ended, _, _ = select.select([handle], [], [], GONE_SECONDS)
            finally:
                os.close(handle)
            assert ended, "the MCP server outlived the harness that started it"
        finally:
            harness.kill()
            if server:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(server, signal.SIGKILL)
