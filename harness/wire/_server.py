"""Consumes a `Handler` (a `Wire`), produces a loopback HTTP server (127.0.0.1, ephemeral port)
serving it, so an agent in another process — a CLI, another language — is pointed at the fake by
a base URL.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import MappingProxyType, TracebackType

from unsolvable._errors import CeilingHit, SessionClosed
from unsolvable.wire._agents import AGENTS_SEGMENT
from unsolvable.wire._errors import StrayRequest
from unsolvable.wire._exchange import FAKE_API_KEY, Handler, WireRequest, WireResponse

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


def _refusal(status: int, kind: str, message: str) -> WireResponse:
    body = {"error": {"type": kind, "message": message}, "type": "error"}
    return WireResponse.json(body, status=status, headers=NO_RETRY)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    wire: Handler
    netloc: str


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = IDLE_SECONDS
    server: _Server

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        request = WireRequest(
            method=self.command,
            url=f"http://{self.server.netloc}{self.path}",
            body=self.rfile.read(length) if length else b"",
            headers=dict(self.headers.items()),
        )
        self._send(self._answer(request))

    do_GET = do_PUT = do_PATCH = do_DELETE = do_POST

    def _answer(self, request: WireRequest) -> WireResponse:
        """The wire's answer; what would end an in-process agent becomes a final HTTP error."""
        try:
            return self.server.wire.handle(request)
        except StrayRequest as error:
            return _refusal(404, "stray_request", str(error))
        except CeilingHit as error:
            return _refusal(400, "harness_ceiling", str(error))
        except SessionClosed as error:  # a call from work the agent left running
            return _refusal(410, "run_ended", str(error))
        except Exception as error:
            return _refusal(500, "harness_error", f"{type(error).__name__}: {error}")

    def _send(self, response: WireResponse) -> None:
        self.send_response(response.status)
        for name, value in response.headers:
            self.send_header(name, value)
        self.send_header("content-length", str(len(response.body)))
        self.end_headers()
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
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> LoopbackServer:
        server = _Server((LOOPBACK, 0), _Handler)
        server.wire = self.wire
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
            self._server.server_close()
            self.wire.remove_host(self._server.netloc)
        if self._thread is not None:
            self._thread.join()
        self._server = self._thread = None

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>``."""
        if self._server is None:
            raise RuntimeError("unsolvable: the loopback server is not running; call start()")
        return f"http://{self._server.netloc}"

    @property
    def openai_base_url(self) -> str:
        return f"{self.base_url}/v1"

    @property
    def anthropic_base_url(self) -> str:
        return self.base_url

    @property
    def tools_url(self) -> str:
        """Each scenario tool answers at ``{tools_url}/<name>``."""
        return f"{self.base_url}/tools"

    @property
    def agents_url(self) -> str:
        """Where each sub-agent of a multi-agent system is served under its own name:
        ``{agents_url}/<name>/v1`` (OpenAI), ``{agents_url}/<name>`` (Anthropic) and
        ``{agents_url}/<name>/tools``; its model calls are that agent's steps."""
        return f"{self.base_url}/{AGENTS_SEGMENT}"

    def environ(self) -> dict[str, str]:
        """Environment variables that point an unmodified ``openai``/``anthropic`` SDK agent in
        a child process at this server (the SDKs read them when built without arguments)."""
        return {
            "OPENAI_BASE_URL": self.openai_base_url,
            "OPENAI_API_KEY": FAKE_API_KEY,
            "ANTHROPIC_BASE_URL": self.anthropic_base_url,
            "ANTHROPIC_API_KEY": FAKE_API_KEY,
            "UNSOLVABLE_TOOLS_URL": self.tools_url,
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
