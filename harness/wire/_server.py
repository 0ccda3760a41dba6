"""Consumes a `Handler` (a `Wire`), produces a loopback HTTP server (127.0.0.1, ephemeral port)
serving it, so an agent in another process — a CLI, another language — is pointed at the fake by
a base URL.

Any process on the machine can reach 127.0.0.1, so the server answers only requests that carry
its run's key: a random path segment first in every URL it hands out (``/<key>/v1``,
``/<key>/tools``, ``/<key>/agents``), which every client keeps because it is part of its base
URL. A request without it is refused (401, in the format's own shape), never reaches the wire
and is not counted in the record; `LoopbackServer.refused` counts them. A body is read only up
to `BODY_LIMIT`, and only whole: one cut short (its client gone mid-request) is refused, never
answered by a tool or the model, and so is a compressed one (``Content-Encoding``); the wire is
told of each (`Handler.refused`), and counts one for the model as a transport attempt.
"""

from __future__ import annotations

import contextlib
import socket
import sys
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import MappingProxyType, TracebackType
from typing import Any

from unsolvable._errors import RUN_ENDED, CeilingHit, SessionClosed
from unsolvable._run_key import new_key, unkeyed
from unsolvable.wire._agents import AGENTS_SEGMENT
from unsolvable.wire._errors import StrayRequest
from unsolvable.wire._exchange import FAKE_API_KEY, Handler, WireRequest, WireResponse
from unsolvable.wire._formats import count_of, format_of

__all__ = ["LoopbackServer"]

LOOPBACK = "127.0.0.1"
IDLE_SECONDS = 5.0
"""How long a kept-alive connection may sit idle before its handler thread gives up: far longer
than any gap between two calls of a running agent, short enough not to pile threads up."""
POLL_SECONDS = 0.05
"""How often the serving loop looks for `stop`: the default (0.5 s) would make every scenario
that serves over loopback half a second slower to tear down."""
NO_RETRY = MappingProxyType({"x-should-retry": "false"})
"""Errors the server makes itself are final: SDKs honour ``x-should-retry`` and do not retry."""
BODY_LIMIT = 32 * 1024 * 1024
"""Bytes of a request body the server reads: Anthropic's own limit on a Messages request (32 MB),
far above a long conversation re-sent whole; a larger one is answered 413 unread."""
IDENTITY = "identity"
"""The Content-Encoding of a body sent as it is: the only one the server reads."""
CHUNK_LINE_LIMIT = 65_537
"""Bytes read of a chunk's size line or a trailer: what the standard library's server allows a
request line."""
PHRASES = MappingProxyType(
    {
        413: ("Request Entity Too Large", "Entity is too large"),
        414: ("Request-URI Too Long", "URI is too long"),
    }
)
"""The reason phrases (and the explanations of an error page) of the refusals the server sends
whose standard-library names Python 3.13 changed to RFC 9110's (``Content Too Large``, ``URI Too
Long``): an agent's error quotes the phrase, so it is the same whatever Python runs the harness."""
BACKLOG = 1024
"""Connections the kernel holds before the server accepts them: an agent that opens many at
once (a fan-out of workers, a burst of retries) waits for none; the default of 5 made a burst
wait about a second for the kernel's retransmission."""


def _refusal(status: int, kind: str, message: str) -> WireResponse:
    body = {"error": {"type": kind, "message": message}, "type": "error"}
    return WireResponse.json(body, status=status, headers=NO_RETRY)


def _shaped(path: str, status: int, message: str) -> WireResponse:
    """A refusal in the shape the request's face answers errors in: a model format's own error
    body (a token count's being the format's of the request it counts), a tool's
    ``{"error": {"status", "message"}}``, or the server's."""
    count = count_of(path)
    fmt = format_of(path) or (None if count is None else count.generating)
    if fmt is not None:
        return fmt.error(status, message).with_headers(NO_RETRY)
    if "/tools/" in path.partition("?")[0]:
        body = {"error": {"status": status, "message": message}}
        return WireResponse.json(body, status=status, headers=NO_RETRY)
    return _refusal(status, "request_refused", message)


class _Server(ThreadingHTTPServer):
    request_queue_size = BACKLOG
    wire: Handler
    netloc: str
    key: str
    refused: int
    lock: threading.Lock
    connections: set[socket.socket]
    """The connections a handler thread still serves, kept alive between requests."""
    handlers: list[threading.Thread]
    """The threads serving a connection, those that ended let go as the next one starts."""

    def count_refusal(self) -> None:
        with self.lock:
            self.refused += 1

    def process_request(
        self, request: socket.socket | tuple[bytes, socket.socket], client_address: Any
    ) -> None:
        """Serves the connection on a thread of its own, kept in `handlers` for `join` (daemon,
        so a harness that never stops the server can still exit)."""
        thread = threading.Thread(
            target=self.process_request_thread,
            args=(request, client_address),
            name="unsolvable-wire-request",
            daemon=True,
        )
        with self.lock:
            if isinstance(request, socket.socket):
                self.connections.add(request)
            self.handlers = [*(each for each in self.handlers if each.is_alive()), thread]
        thread.start()

    def shutdown_request(self, request: socket.socket | tuple[bytes, socket.socket]) -> None:
        if isinstance(request, socket.socket):
            with self.lock:
                self.connections.discard(request)
        super().shutdown_request(request)

    def join(self) -> None:
        """Waits for every handler thread to end: the standard library joins none that is a
        daemon, so a request under way when the server stopped (a tool call, an answer being
        written) went on after the run, its thread still there. A thread is let go only once
        it has ended (`process_request`), never as it closes its connection, which it outlives
        by a few instructions."""
        with self.lock:
            handlers = list(self.handlers)
        for thread in handlers:
            thread.join()

    def hang_up(self) -> None:
        """Ends the connections still open: a client kept alive after `LoopbackServer.stop` would
        otherwise be answered by its handler thread, on a wire that no longer serves this host,
        as a stray request; ended, it finds no server, as a new connection does."""
        with self.lock:
            connections = list(self.connections)
        for connection in connections:
            with contextlib.suppress(OSError):  # it closed meanwhile
                connection.shutdown(socket.SHUT_RDWR)

    def handle_error(
        self, request: socket.socket | tuple[bytes, socket.socket], client_address: Any
    ) -> None:
        """Silent when the client went away (an agent killed at a ceiling mid-request): no error
        of the harness, and its traceback on stderr would land in the record's ``output`` as if
        the agent had written it. Any other error is reported as the standard library does."""
        if not isinstance(sys.exc_info()[1], OSError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    responses = MappingProxyType({**BaseHTTPRequestHandler.responses, **PHRASES})
    timeout = IDLE_SECONDS
    server: _Server

    def do_POST(self) -> None:
        path = self._keyed_path()
        if path is None:  # not the agent's, as far as anyone knows: never shown to the wire
            self.server.count_refusal()
            why = "unsolvable: this run's key is missing from the URL; use the URLs it was given"
            self.close_connection = True
            self._send(_shaped(self.path, 401, why))
            return
        body = self._body(path)
        if body is None:
            return
        request = WireRequest(
            method=self.command,
            url=f"http://{self.server.netloc}{path}",
            body=body,
            headers=dict(self.headers.items()),
        )
        self._send(self._answer(request))

    # Every method reaches the wire, which answers what it serves no route for as a stray
    # request: the standard library's own 501 page for the rest would reach no SDK and no record.
    do_GET = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = do_POST

    def _keyed_path(self) -> str | None:
        """The request's path without the run's key; ``None`` when it does not carry it."""
        return unkeyed(self.path, self.server.key)

    def _body(self, path: str) -> bytes | None:
        """The request's body, whole; ``None`` once a request whose body cannot be read has been
        answered. A chunked body (what Node's ``http.request`` and Go's ``http.Post`` send for a
        body of unknown length) is read chunk by chunk, as HTTP/1.1 requires of a server: left
        unread, it was taken for an empty body and then for the connection's next request."""
        coding = self.headers.get("transfer-encoding")
        if coding is None:
            length = self._length(path)
            body = None if length is None else self._exactly(path, length)
        elif coding.strip().lower() != "chunked":
            why = f"unsolvable: Transfer-Encoding {coding!r} is not read here; send it chunked"
            self._refuse_unread(path, 501, why)
            return None
        else:
            body = self._chunked(path)
        return None if body is None else self._decoded(path, body)

    def _decoded(self, path: str, body: bytes) -> bytes | None:
        """``body``, or ``None`` once a compressed one has been refused (415): read as it came,
        it was refused for the bytes of its compression (``'utf-8' codec can't decode byte
        0x8b``), which named nothing the agent could fix. Read whole, it leaves the connection
        usable."""
        coding = self.headers.get("content-encoding", IDENTITY).strip().lower()
        if coding in ("", IDENTITY):
            return body
        why = f"unsolvable: a body with Content-Encoding {coding!r} is not read here; send it as is"
        self._refuse(path, 415, why)
        return None

    def _chunked(self, path: str) -> bytes | None:
        """A chunked body up to `BODY_LIMIT`; ``None`` once a malformed or larger one has been
        answered (and its connection is closed: the rest of it was never read)."""
        body = bytearray()
        while True:
            line = self.rfile.readline(CHUNK_LINE_LIMIT)
            size_text = line.split(b";", 1)[0].strip()
            try:
                size = int(size_text, 16)
            except ValueError:
                size = -1
            if size < 0 or not line.endswith(b"\n"):
                why = f"unsolvable: a chunk's size line {bytes(line[:40])!r} is not hexadecimal"
                self._refuse_unread(path, 400, why)
                return None
            if len(body) + size > BODY_LIMIT:
                why = f"unsolvable: a chunked body past the limit of {BODY_LIMIT} bytes"
                self._refuse_unread(path, 413, why)
                return None
            if size == 0:
                while self.rfile.readline(CHUNK_LINE_LIMIT).strip():  # trailers, then CRLF
                    pass
                return bytes(body)
            chunk = self._exactly(path, size)
            if chunk is None:
                return None
            body += chunk
            self.rfile.readline(CHUNK_LINE_LIMIT)  # the CRLF that ends the chunk

    def _exactly(self, path: str, size: int) -> bytes | None:
        """The next ``size`` bytes of the body; ``None`` once a body that ended before them (its
        client went away mid-request, or closed its side early) has been refused: what arrived
        is not the request the client meant, and no tool or model may answer it."""
        data = self.rfile.read(size) if size else b""
        if len(data) < size:
            why = f"unsolvable: the body ended after {len(data)} of the {size} bytes it promised"
            self._refuse_unread(path, 400, why)
            return None
        return data

    def _length(self, path: str) -> int | None:
        """The body's length as the request declares it; ``None`` once a request whose length
        is not a number, or is past `BODY_LIMIT`, has been answered (and its connection is
        closed: its body was never read)."""
        given = self.headers.get("content-length") or "0"
        if not (given.isascii() and given.isdigit()):
            why = f"unsolvable: Content-Length {given!r} is not a number"
            self._refuse_unread(path, 400, why)
            return None
        if int(given) > BODY_LIMIT:
            why = f"unsolvable: a body of {given} bytes is past the limit of {BODY_LIMIT}"
            self._refuse_unread(path, 413, why)
            return None
        return int(given)

    def _refuse_unread(self, path: str, status: int, why: str) -> None:
        """Answers a request whose body is left unread, and closes its connection: what is left
        of the body would otherwise be read as the connection's next request."""
        self.close_connection = True
        self._refuse(path, status, why)

    def _refuse(self, path: str, status: int, why: str) -> None:
        """Answers a request of the run whose body is not read, shown to the wire
        (`Handler.refused`): a refused model request is a transport attempt all the same."""
        response = _shaped(path, status, why)
        request = WireRequest(
            method=self.command,
            url=f"http://{self.server.netloc}{path}",
            body=b"",
            headers=dict(self.headers.items()),
        )
        self.server.wire.refused(request, response)
        self._send(response)

    def _answer(self, request: WireRequest) -> WireResponse:
        """The wire's answer; what would end an in-process agent becomes a final HTTP error."""
        try:
            return self.server.wire.handle(request)
        except StrayRequest as error:
            return _refusal(404, "stray_request", str(error))
        except CeilingHit as error:
            return _refusal(400, "harness_ceiling", str(error))
        except SessionClosed as error:  # a call from work the agent left running
            return _refusal(HTTPStatus.GONE, RUN_ENDED, str(error))
        except Exception as error:
            return _refusal(500, "harness_error", f"{type(error).__name__}: {error}")

    def _send(self, response: WireResponse) -> None:
        self.send_response(response.status)
        if self.close_connection:
            self.send_header("connection", "close")
        for name, value in response.headers:
            self.send_header(name, value)
        self.send_header("content-length", str(len(response.body)))
        self.end_headers()
        if self.command != "HEAD":  # whose answer is the headers a GET would have had
            self.wfile.write(response.body)

    def log_message(self, format: str, *args: object) -> None:
        """Silent: the wire keeps its own log of attempts (`Wire.attempts`)."""


class LoopbackServer:
    """A `Wire` served on 127.0.0.1 at an ephemeral port, for agents in other processes.

    >>> with Wire(session) as wire, wire.serve() as server:             # doctest: +SKIP
    ...     subprocess.run(["my-agent"], env={**os.environ, **server.environ()})
    """

    def __init__(self, wire: Handler) -> None:
        self.wire = wire
        self.key = new_key()
        """The run's key, the first segment of every URL this server hands out."""
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def refused(self) -> int:
        """Requests refused for want of the run's key: never counted in the record."""
        return self._server.refused if self._server is not None else 0

    def start(self) -> LoopbackServer:
        server = _Server((LOOPBACK, 0), _Handler)
        server.wire, server.key, server.lock = self.wire, self.key, threading.Lock()
        server.refused, server.connections, server.handlers = 0, set(), []
        server.netloc = f"{LOOPBACK}:{server.server_address[1]}"
        self.wire.add_host(server.netloc)
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever,
            kwargs={"poll_interval": POLL_SECONDS},
            name="unsolvable-wire-server",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.hang_up()  # a handler waiting on its connection ends at once
            self._server.join()
            self._server.server_close()
            self.wire.remove_host(self._server.netloc)
        if self._thread is not None:
            self._thread.join()
        self._server = self._thread = None

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>/<key>``: every URL the server answers starts with it."""
        if self._server is None:
            raise RuntimeError("unsolvable: the loopback server is not running; call start()")
        return f"http://{self._server.netloc}/{self.key}"

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("unsolvable: the loopback server is not running; call start()")
        return int(self._server.server_address[1])

    @property
    def openai_base_url(self) -> str:
        return f"{self.base_url}/v1"

    @property
    def anthropic_base_url(self) -> str:
        return self.base_url

    @property
    def gemini_base_url(self) -> str:
        return self.base_url

    @property
    def tools_url(self) -> str:
        """Each scenario tool answers at ``{tools_url}/<name>``."""
        return f"{self.base_url}/tools"

    @property
    def clock_url(self) -> str:
        """The session clock: ``GET`` reads it, ``POST {clock_url}/sleep`` waits on it
        (`unsolvable.wire._clock`)."""
        return f"{self.base_url}/clock"

    @property
    def agents_url(self) -> str:
        """Where each sub-agent of a multi-agent system is served under its own name:
        ``{agents_url}/<name>/v1`` (OpenAI), ``{agents_url}/<name>`` (Anthropic, Gemini) and
        ``{agents_url}/<name>/tools``; its model calls are that agent's steps."""
        return f"{self.base_url}/{AGENTS_SEGMENT}"

    def environ(self) -> dict[str, str]:
        """Environment variables that point an unmodified ``openai``/``anthropic`` SDK agent, or
        Gemini CLI, in a child process at this server (they read them when built without
        arguments)."""
        return {
            "OPENAI_BASE_URL": self.openai_base_url,
            "OPENAI_API_KEY": FAKE_API_KEY,
            "ANTHROPIC_BASE_URL": self.anthropic_base_url,
            "ANTHROPIC_API_KEY": FAKE_API_KEY,
            "GOOGLE_GEMINI_BASE_URL": self.gemini_base_url,
            "GEMINI_API_KEY": FAKE_API_KEY,
            "UNSOLVABLE_TOOLS_URL": self.tools_url,
            "UNSOLVABLE_CLOCK_URL": self.clock_url,
            "UNSOLVABLE_AGENTS_URL": self.agents_url,
        }

    def __enter__(self) -> LoopbackServer:
        return self if self._server is not None else self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()
