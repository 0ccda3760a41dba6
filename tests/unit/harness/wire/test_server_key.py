"""The loopback server against other processes on the machine: a request without the run's key
is refused in its face's shape and never counted; a body past the limit and a length that is not
a number are answered at once, in the same words on every Python, a chunked body is read to its
end; a burst of connections is taken in without waiting."""

from __future__ import annotations

import select
import socket
import time

import httpx
import pytest

from unsolvable import Session
from unsolvable._run_key import unkeyed
from unsolvable.wire import Wire
from unsolvable.wire._server import (
    BACKLOG,
    BODY_LIMIT,
    CHUNK_LINE_LIMIT,
    LOOPBACK,
    _Handler,
    _Server,
)

ASK = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
FACES = {
    "/v1/chat/completions": lambda body: body["error"]["code"] == "invalid_api_key",
    "/v1/responses": lambda body: body["error"]["code"] == "invalid_api_key",
    "/v1/messages": lambda body: body["error"]["type"] == "authentication_error",
    "/v1beta/models/m:generateContent": lambda body: body["error"]["status"] == "UNAUTHENTICATED",
    "/v1beta/models/m:streamGenerateContent?alt=sse": (
        lambda body: body["error"]["status"] == "UNAUTHENTICATED"
    ),
    "/v1/responses/input_tokens": lambda body: body["error"]["code"] == "invalid_api_key",
    "/v1/messages/count_tokens": lambda body: body["error"]["type"] == "authentication_error",
    "/v1beta/models/m:countTokens": lambda body: body["error"]["status"] == "UNAUTHENTICATED",
    "/tools/search_invoices": lambda body: body["error"]["status"] == 401,
    "/agents/w-1/v1/chat/completions": lambda body: body["error"]["code"] == "invalid_api_key",
}
BURST = 200
"""Connections opened at once: forty times the default backlog."""
BURST_SECONDS = 30.0


def _raw(port: int, request: bytes) -> bytes:
    """What the server answers ``request``, to the end: it closes a connection it refused."""
    with socket.create_connection((LOOPBACK, port), timeout=30) as conn:
        conn.sendall(request)
        return b"".join(iter(lambda: conn.recv(65_536), b""))


@pytest.mark.parametrize("key", ["", "0" * 32], ids=["no-key", "wrong-key"])
def test_a_request_without_the_runs_key_is_refused_in_its_shape_and_not_counted(
    session: Session, key: str
) -> None:
    with Wire(session) as wire, wire.serve() as server:
        base = f"http://{LOOPBACK}:{server.port}" + (f"/{key}" if key else "")
        answers = {path: httpx.post(base + path, json=ASK) for path in FACES}
        assert server.refused == len(FACES)
    assert {path: a.status_code for path, a in answers.items()} == dict.fromkeys(FACES, 401)
    assert all(FACES[path](answer.json()) for path, answer in answers.items())
    observed = session.finish()
    assert (observed.steps, observed.tool_calls, observed.transport_attempts) == (0, 0, 0)


def test_the_key_is_read_wherever_a_client_put_it() -> None:
    key = "k" * 32
    assert unkeyed(f"/{key}/agents/w/v1/messages", key) == "/agents/w/v1/messages"
    assert unkeyed(f"/agents/w/{key}/v1/messages?x=1", key) == "/agents/w/v1/messages?x=1"
    assert unkeyed(f"/{key}", key) == "/"
    assert unkeyed("/agents/w/v1/messages", key) is None
    assert unkeyed(f"/{key}x/v1", key) is None


def test_a_body_past_the_limit_is_answered_413_unread(session: Session) -> None:
    with Wire(session) as wire, wire.serve() as server:
        path = f"/{server.key}/v1/chat/completions"
        head = f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: {BODY_LIMIT + 1}\r\n\r\n"
        answer = _raw(server.port, head.encode())
    assert answer.startswith(b"HTTP/1.0 413") or answer.startswith(b"HTTP/1.1 413")
    record = session.finish()  # a request the agent made, refused: an attempt, not a step
    assert (record.steps, record.transport_attempts) == (0, 1)


@pytest.mark.parametrize("length", ["ten", "-1", "1e3"])
def test_a_content_length_that_is_not_a_number_is_answered_400(
    session: Session, length: str
) -> None:
    with Wire(session) as wire, wire.serve() as server:
        head = f"POST /{server.key}/tools/search_invoices HTTP/1.1\r\nHost: x\r\n"
        answer = _raw(server.port, f"{head}Content-Length: {length}\r\n\r\n{{}}".encode())
    assert answer.split(b"\r\n", 1)[0].endswith(b"400 Bad Request")
    assert b"is not a number" in answer


def test_a_burst_of_connections_is_taken_in_before_any_is_accepted() -> None:
    """The kernel completes each handshake into the listen backlog: with room for all, every
    connection is made though the server has not accepted one yet."""
    server = _Server((LOOPBACK, 0), _Handler)
    clients = [socket.socket() for _ in range(BURST)]
    try:
        for client in clients:
            client.setblocking(False)
            client.connect_ex(server.server_address)
        pending, deadline = list(clients), time.monotonic() + BURST_SECONDS
        while pending and time.monotonic() < deadline:
            _, writable, _ = select.select([], pending, [], 0.1)
            pending = [c for c in pending if c not in writable]
        assert not pending and BURST <= BACKLOG
    finally:
        for client in clients:
            client.close()
        server.server_close()


@pytest.mark.parametrize(
    ("chunks", "status"),
    [
        ("zz\r\n{}\r\n0\r\n\r\n", 400),
        (f"{BODY_LIMIT + 1:x}\r\n", 413),
        ("2\r\n{}\r\n0\r\n\r\n", 200),
    ],
    ids=["not-hexadecimal", "past-the-limit", "whole"],
)
def test_a_chunked_body_is_read_to_its_end_or_refused_at_once(
    session: Session, chunks: str, status: int
) -> None:
    with Wire(session) as wire, wire.serve() as server:
        head = f"POST /{server.key}/tools/search_invoices HTTP/1.1\r\nHost: x\r\n"
        request = f"{head}Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n{chunks}"
        answer = _raw(server.port, request.encode())
    assert answer.split(b" ", 2)[1] == str(status).encode()
    assert session.finish().tool_calls == (status == 200)


@pytest.mark.parametrize(
    ("request_text", "status_line"),
    [
        (
            "POST /{key}/v1/messages HTTP/1.1\r\nHost: x\r\n"
            f"Content-Length: {BODY_LIMIT + 1}\r\n\r\n",
            b"HTTP/1.1 413 Request Entity Too Large",
        ),
        # Exactly the bytes the server reads of a request line: nothing is left unread, so the
        # connection closes cleanly after the answer.
        ("GET /" + "x" * (CHUNK_LINE_LIMIT - len("GET /")), b"HTTP/1.1 414 Request-URI Too Long"),
    ],
    ids=["body-past-the-limit", "request-line-past-the-limit"],
)
def test_a_refusal_reads_the_same_whatever_python_runs_the_harness(
    session: Session, request_text: str, status_line: bytes
) -> None:
    """Python 3.13 renamed the standard library's reason phrases of 413 and 414 (to RFC 9110's
    ``Content Too Large`` and ``URI Too Long``), and an agent's error quotes the phrase (httpx's
    ``raise_for_status``): what the agent reads must not depend on the harness's interpreter."""
    with Wire(session) as wire, wire.serve() as server:
        answer = _raw(server.port, request_text.format(key=server.key).encode())
    assert answer.split(b"\r\n", 1)[0] == status_line


def test_a_client_gone_before_its_answer_leaves_nothing_on_the_harnesss_stderr(
    session: Session, capsys: pytest.CaptureFixture[str]
) -> None:
    """An agent killed at a ceiling mid-request: the standard library's traceback went to the
    harness's stderr, which a worker keeps as the record's ``output``, the agent's own words."""
    with Wire(session) as wire, wire.serve() as server:
        ours, theirs = socket.socketpair()
        head = f"POST /{server.key}/tools/search_invoices HTTP/1.1\r\nContent-Length: 2\r\n\r\n"
        theirs.sendall(f"{head}{{}}".encode())
        theirs.close()  # gone: the answer meets a broken pipe
        server._server.process_request_thread(ours, (LOOPBACK, 0))  # type: ignore[union-attr]
    assert capsys.readouterr().err == ""
    assert session.finish().tool_calls == 1


def test_every_request_of_a_kept_alive_client_without_the_key_is_refused_and_counted(
    session: Session,
) -> None:
    """Its body is never read, so its connection is closed: left open, the body was read as
    the next request, answered 501 and not counted."""
    with Wire(session) as wire, wire.serve() as server, httpx.Client() as client:
        url = f"http://{LOOPBACK}:{server.port}/v1/chat/completions"
        statuses = [client.post(url, json=ASK).status_code for _ in range(3)]
        assert (statuses, server.refused) == ([401, 401, 401], 3)
