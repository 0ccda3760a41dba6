"""Consumes HTTP requests an agent makes during a scenario, produces the fake model's and tools'
answers, and counts every attempt apart from steps.

One `Wire` per session. Its `handle` is transport-neutral; `_clients` mounts it on httpx, httpx2
and respx, and `_server` serves it from 127.0.0.1 to agents in other processes.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from types import TracebackType
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from unsolvable._errors import ContextOverflow
from unsolvable._session import Session
from unsolvable._types import JSON
from unsolvable.wire import _clients
from unsolvable.wire._agents import AGENTS_SEGMENT, split_agent
from unsolvable.wire._anthropic import ANTHROPIC_MESSAGES
from unsolvable.wire._body import BodyReader
from unsolvable.wire._chat import CHAT_COMPLETIONS
from unsolvable.wire._errors import WIRE_DOCS, StrayRequest, WireFormatError
from unsolvable.wire._exchange import ADDRESS_MEMO, Address, WireRequest, WireResponse, address
from unsolvable.wire._names import ToolNames
from unsolvable.wire._responses import RESPONSES, response_id
from unsolvable.wire._server import LoopbackServer
from unsolvable.wire._turn import Turn, WireFormat

if TYPE_CHECKING:
    import anthropic
    import httpx
    import httpx2
    import openai
    import respx

__all__ = [
    "ANTHROPIC_BASE_URL",
    "FORMATS",
    "MODEL_HOSTS",
    "OPENAI_BASE_URL",
    "TOOLS_URL",
    "Attempt",
    "Wire",
]

MODEL_HOSTS = ("api.openai.com", "api.anthropic.com", "model.unsolvable.test")
"""Hosts the fake model answers on. The vendors' own hosts are included so that a client with its
default base URL runs unmodified once its transport is the fake's — nothing leaves the process."""
TOOLS_URL = "https://tools.unsolvable.test/tools"
"""Where each scenario tool answers by default: ``POST {TOOLS_URL}/{name}`` with JSON arguments."""
OPENAI_BASE_URL = "https://api.openai.com/v1"
ANTHROPIC_BASE_URL = "https://api.anthropic.com"
FORMATS: tuple[WireFormat, ...] = (CHAT_COMPLETIONS, RESPONSES, ANTHROPIC_MESSAGES)
JSON_TYPE = "application/json"
TRANSIENT_RETRY_AFTER_MS = "1"
"""Back-off the fake asks for after an injected failure: SDKs honour ``retry-after-ms``, so a
retried request costs a millisecond instead of the SDKs' default half-second back-off."""


@dataclass(slots=True)
class Attempt:
    """One HTTP request the wire answered (or refused), as the harness keeps it.

    Slotted, not frozen, and built by position: the wire makes one every call, a frozen
    dataclass costs twice as much to build, and keywords to a class reach its ``__init__``
    through a dict (these four were 23,000 instructions of a call)."""

    kind: str
    """``model``, ``tool`` or ``stray``."""
    method: str
    url: str
    """Redacted: no credentials, no query values."""
    status: int
    """The status answered; ``0`` for a stray request, which is never answered in-process."""
    route: str = ""
    """The wire format or the tool name that answered."""

    def __str__(self) -> str:
        return f"{self.method} {self.url} -> {self.status or 'refused'} ({self.kind} {self.route})"


def _status_of(text: str) -> int:
    """A tool's JSON error names its HTTP status (``{"error": {"status": 403}}``); else 200."""
    try:
        data = json.loads(text)
    except ValueError:
        return 200
    error = data.get("error") if isinstance(data, dict) else None
    status = error.get("status") if isinstance(error, dict) else None
    return status if isinstance(status, int) and 400 <= status < 600 else 200


class Wire:
    """The scripted model and the tools of one session, served over HTTP.

    >>> with Wire(session) as wire:                                      # doctest: +SKIP
    ...     client = openai.OpenAI(api_key="x", http_client=wire.httpx2_client())
    ...     run_my_agent(client)                    # an ordinary openai-SDK agent, unmodified

    ``model_hosts`` are the hosts the model answers on; ``tool_routes`` maps extra URLs to scenario
    tool names (by default each tool answers at ``TOOLS_URL/<name>``); ``transient_failures``
    makes the first N model requests fail with a retryable 503, to show SDK retries being
    counted as transport attempts and never as steps. ``tool_names`` maps how the agent spells
    the scenario's tools on the wire (`ToolNames`: Claude Code's ``mcp__<server>__`` prefix).
    Each client it makes takes ``agent="worker-1"`` for a sub-agent of a multi-agent system
    (`unsolvable.wire._agents`).
    """

    __test__ = False

    def __init__(
        self,
        session: Session,
        *,
        model_hosts: tuple[str, ...] = MODEL_HOSTS,
        tool_routes: Mapping[str, str] | None = None,
        transient_failures: int = 0,
        tool_names: ToolNames | None = None,
    ) -> None:
        self.session = session
        self._names = tool_names if tool_names is not None and tool_names.prefix else None
        """None when the agent spells the tools as the scenario does: nothing to map."""
        self._model_hosts = {host.lower() for host in model_hosts}
        self._tool_hosts = {urlsplit(TOOLS_URL).netloc}
        self._tool_urls = {_route_key(url): name for url, name in (tool_routes or {}).items()}
        self._tool_names = {spec.name for spec in session.tools}
        self._failures_left = transient_failures
        self._served = itertools.count(1)
        """The number of each model request served: `next` on it is one step of C, atomic under
        the GIL, so no lock is taken for it."""
        self._lock = threading.Lock()
        self._servers: list[LoopbackServer] = []
        self._conversations: dict[str, list[JSON]] = {}
        self._readers = {
            (f.name, f"/v1{f.path_suffix}"): BodyReader(f.conversation) for f in FORMATS
        }
        """One per format and path: each agent's conversation is read apart (`_body`). Those of
        the vendors' own paths are made with the wire, rather than by its first request."""
        self._attempts: list[tuple[str, str, str, int, str]] = []
        """Every request the wire saw, in order, as the fields of its `Attempt`."""

    # -- the neutral handler ----------------------------------------------------------------
    def handle(self, request: WireRequest) -> WireResponse:
        """Answers ``request``; raises `StrayRequest` when no fake route matches it.

        `CeilingHit` from the session propagates, so an in-process agent is ended by it.
        """
        return self.answer(request.method, request.url, request.body)

    def answer(self, method: str, url: str, body: bytes) -> WireResponse:
        """`handle` of the request's parts, as the mock transports hand them over: the wire reads
        no header, and a model request's URL is split once."""
        parts = address(url)
        if method == "POST" and parts.host in self._model_hosts:
            fmt = _format_of(parts.path)
            if fmt is not None:
                return self._answer_model(fmt, method, parts, body)
        request = WireRequest(method, url, body)
        tool = self._tool_for(request)
        if tool is not None:
            return self._answer_tool(tool, request)
        self._log("stray", method, parts.safe_url, None, "")
        raise StrayRequest(self._explain_stray(request))

    @property
    def attempts(self) -> list[Attempt]:
        """Every request the wire saw, in order (model, tool and stray); made when asked for,
        not by every request."""
        return [Attempt(*fields) for fields in list(self._attempts)]  # copied at once

    @property
    def stray(self) -> list[Attempt]:
        """Requests that matched no route (each already failed the call that made it)."""
        return [a for a in self.attempts if a.kind == "stray"]

    def check(self) -> None:
        """Raises `StrayRequest` if any request went unmatched, even if the agent swallowed it."""
        if self.stray:
            lines = "\n".join(f"  - {a}" for a in self.stray)
            raise StrayRequest(
                f"unsolvable: {len(self.stray)} request(s) matched no fake route during the "
                f"scenario; they would have left the harness:\n{lines}\nSee {WIRE_DOCS}"
            )

    def _tool_for(self, request: WireRequest) -> str | None:
        key = (request.host, split_agent(request.path)[1].rstrip("/"))
        if key in self._tool_urls:
            return self._tool_urls[key]
        prefix, _, name = key[1].rpartition("/")
        if request.host in self._tool_hosts and prefix == "/tools" and name in self._tool_names:
            return name
        return None

    def _answer_model(
        self, fmt: WireFormat, method: str, parts: Address, body: bytes
    ) -> WireResponse:
        """Every request is one transport attempt: counted with the step that answers it, or
        by itself when it is refused."""
        path = parts.path
        if self._failures_left and self._failing():  # none is ever added once it is spent
            self.session.count_transport_attempt()
            message = "unsolvable: transient failure injected by the harness (transient_failures)"
            response = _with_headers(
                fmt.error(503, message),
                {"retry-after-ms": TRANSIENT_RETRY_AFTER_MS, "x-should-retry": "true"},
            )
            return self._log("model", method, parts.safe_url, response, fmt.name)
        try:
            data = self._body(fmt, body, path)
            turn = fmt.read(data if type(data) is dict else _json_object(data))
            messages, tools = turn.messages, turn.tools
            if turn.body.get("previous_response_id"):
                messages = self._conversation(turn)
        except (ValueError, WireFormatError) as error:
            self.session.count_transport_attempt()
            response = _with_headers(fmt.error(400, str(error)), {"x-should-retry": "false"})
            return self._log("model", method, parts.safe_url, response, fmt.name)
        if self._names is not None:
            messages, tools = self._names.read(messages, tools)
        agent = _agent_named(path)
        session = self.session
        try:
            if agent is None:
                reply, sent, said = session.answer(messages, tools, transport=True)
            else:
                reply, sent, said = session.answer(messages, tools, agent, transport=True)
        except ContextOverflow as overflow:  # the session counted it as a step and an attempt
            refusal = fmt.context_error(overflow.tokens, overflow.window)
            return self._log("model", method, parts.safe_url, refusal, fmt.name)
        step = next(self._served)
        if fmt is RESPONSES:
            with self._lock:
                self._conversations[response_id(step)] = [*messages, reply]
        if self._names is not None:
            reply = self._names.write(reply)
        rendered = fmt.render(reply, (sent, said), turn, step=step)
        return self._log("model", method, parts.safe_url, rendered, fmt.name)

    def _failing(self) -> bool:
        """Whether this request is one of the ``transient_failures`` still to inject."""
        with self._lock:
            failing, self._failures_left = self._failures_left > 0, max(0, self._failures_left - 1)
        return failing

    def _body(self, fmt: WireFormat, body: bytes, path: str) -> object:
        """The request's JSON, read by its conversation's `BodyReader`: an agent re-sends the
        whole conversation every call, and only what it added is parsed."""
        if not body or body.isspace():
            return None
        key = (fmt.name, path)
        reader = self._readers.get(key)  # made once per key, under the lock; then only read
        if reader is None:
            with self._lock:
                reader = self._readers.setdefault(key, BodyReader(fmt.conversation))
        return reader.read(body)

    def _conversation(self, turn: Turn) -> list[JSON]:
        """The whole conversation when a Responses API request continues a stored response
        (``previous_response_id``) and sends only the new items; instructions are not carried
        over, as in the real API."""
        previous = turn.body["previous_response_id"]
        with self._lock:
            history = self._conversations.get(str(previous))
        if history is None:
            raise WireFormatError(f"unsolvable: previous_response_id {previous!r} was not served")
        system = [m for m in turn.messages if m.get("role") == "system"]
        rest = [m for m in turn.messages if m.get("role") != "system"]
        return [*system, *(m for m in history if m.get("role") != "system"), *rest]

    def _answer_tool(self, name: str, request: WireRequest) -> WireResponse:
        def log(response: WireResponse) -> WireResponse:
            return self._log("tool", request.method, request.safe_url, response, name)

        try:
            arguments = (
                _json_object(request.json()) if request.body.strip() else dict(request.query)
            )
        except (ValueError, WireFormatError) as error:
            body = {"error": {"status": 400, "message": f"unsolvable: {name}: {error}"}}
            return self._log(
                "tool", request.method, request.safe_url, WireResponse.json(body, status=400), name
            )
        try:
            agent = _agent_named(request.path)
            session = self.session
            text = (
                session.call_tool(name, arguments)
                if agent is None
                else session.call_tool(name, arguments, agent=agent)
            )
        except PermissionError as error:
            body = {"error": {"status": 403, "code": "forbidden", "message": str(error)}}
            return self._log(
                "tool", request.method, request.safe_url, WireResponse.json(body, status=403), name
            )
        except Exception as error:
            body = {"error": {"status": 500, "message": f"{type(error).__name__}: {error}"}}
            return self._log(
                "tool", request.method, request.safe_url, WireResponse.json(body, status=500), name
            )
        response = WireResponse.text(text, status=_status_of(text), content_type=JSON_TYPE)
        return log(response)

    def _log(
        self, kind: str, method: str, safe_url: str, response: WireResponse | None, route: str
    ) -> WireResponse:
        """Keeps the attempt (redacted URL, never headers) and passes the response through."""
        status = 0 if response is None else response.status
        self._attempts.append((kind, method, safe_url, status, route))  # atomic under the GIL
        return response or WireResponse.text("", status=0)

    def _explain_stray(self, request: WireRequest) -> str:
        hosts = ", ".join(sorted(self._model_hosts))
        tools = ", ".join(sorted(self._tool_names))
        return (
            f"unsolvable: {request.method} {request.safe_url} matched no fake route; the agent "
            "would have left the harness for a real host during the scenario.\n"
            f"  - the fake model answers POST …/chat/completions, …/responses, …/messages on: "
            f"{hosts}\n"
            f"  - the tools answer at {TOOLS_URL}/<name> for: {tools}\n"
            f"  - a sub-agent is named first in the path: /{AGENTS_SEGMENT}/<name>/v1/…\n"
            "Point the client at the fake (base_url, or http_client=wire.httpx2_client()), or "
            f"route the URL with Wire(tool_routes={{url: tool}}). See {WIRE_DOCS}"
        )

    # -- faces ------------------------------------------------------------------------------
    def add_host(self, netloc: str) -> None:
        """Answers the model and the tools on ``netloc`` too (the loopback server's address)."""
        with self._lock:
            self._model_hosts.add(netloc.lower())
            self._tool_hosts.add(netloc.lower())

    def remove_host(self, netloc: str) -> None:
        """Stops answering on ``netloc`` (a loopback server that was stopped)."""
        with self._lock:
            self._model_hosts.discard(netloc.lower())
            self._tool_hosts.discard(netloc.lower())

    def serve(self) -> LoopbackServer:
        """Starts a loopback HTTP server on 127.0.0.1 (ephemeral port); stopped by `close`."""
        server = LoopbackServer(self).start()
        self._servers.append(server)
        return server

    def close(self) -> None:
        """Stops every server this wire started."""
        while self._servers:
            self._servers.pop().stop()

    def __enter__(self) -> Wire:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
        if exc_type is None:
            self.check()

    # -- clients (httpx, httpx2 and the SDKs are imported only when asked for) ---------------
    # Every client takes ``agent="worker-1"``: its model calls are then that sub-agent's steps
    # (``steps_by_agent``; the agent `FanOut` tells apart), its tool calls its own.
    def httpx2_transport(self, *, agent: str | None = None) -> httpx2.MockTransport:
        """An ``httpx2`` transport answering from this wire: what ``openai``>=3 and
        ``anthropic``>=1 send through when given ``http_client=``."""
        return _clients.mock_transport(self, "httpx2", agent)  # type: ignore[no-any-return]

    def httpx2_client(self, *, agent: str | None = None, **options: Any) -> httpx2.Client:
        import httpx2

        return httpx2.Client(transport=self.httpx2_transport(agent=agent), **options)

    def httpx2_async_client(
        self, *, agent: str | None = None, **options: Any
    ) -> httpx2.AsyncClient:
        import httpx2

        return httpx2.AsyncClient(transport=self.httpx2_transport(agent=agent), **options)

    def httpx_transport(self, *, agent: str | None = None) -> httpx.MockTransport:
        """An ``httpx`` transport answering from this wire, for httpx-based clients."""
        return _clients.mock_transport(self, "httpx", agent)  # type: ignore[no-any-return]

    def httpx_client(self, *, agent: str | None = None, **options: Any) -> httpx.Client:
        import httpx

        return httpx.Client(transport=self.httpx_transport(agent=agent), **options)

    def httpx_async_client(self, *, agent: str | None = None, **options: Any) -> httpx.AsyncClient:
        import httpx

        return httpx.AsyncClient(transport=self.httpx_transport(agent=agent), **options)

    def respx_router(self, **options: Any) -> respx.MockRouter:
        """A respx router that sends every httpx request to this wire while it is active
        (``with wire.respx_router():``); unmatched requests fail as `StrayRequest`."""
        return _clients.respx_router(self, **options)

    def mount(self, router: respx.Router) -> None:
        """Adds this wire as the catch-all route of an existing respx router (``respx_mock``)."""
        _clients.mount(self, router)

    def openai_client(self, *, agent: str | None = None, **options: Any) -> openai.OpenAI:
        """An ``openai.OpenAI`` whose every request is answered here (default retries kept);
        with ``agent``, its base URL names that sub-agent."""
        import openai

        options = _clients.sdk_options(options, self.httpx2_client, OPENAI_BASE_URL, agent)
        return openai.OpenAI(**options)

    def async_openai_client(
        self, *, agent: str | None = None, **options: Any
    ) -> openai.AsyncOpenAI:
        import openai

        options = _clients.sdk_options(options, self.httpx2_async_client, OPENAI_BASE_URL, agent)
        return openai.AsyncOpenAI(**options)

    def anthropic_client(self, *, agent: str | None = None, **options: Any) -> anthropic.Anthropic:
        import anthropic

        options = _clients.sdk_options(options, self.httpx2_client, ANTHROPIC_BASE_URL, agent)
        return anthropic.Anthropic(**options)

    def async_anthropic_client(
        self, *, agent: str | None = None, **options: Any
    ) -> anthropic.AsyncAnthropic:
        import anthropic

        make = self.httpx2_async_client
        options = _clients.sdk_options(options, make, ANTHROPIC_BASE_URL, agent)
        return anthropic.AsyncAnthropic(**options)


@lru_cache(maxsize=ADDRESS_MEMO)
def _agent_named(path: str) -> str | None:
    """The sub-agent a request's path names, found once per path (`ADDRESS_MEMO`); else
    ``None``, so the session's own default agent is the one counted."""
    return split_agent(path)[0]


@lru_cache(maxsize=ADDRESS_MEMO)
def _format_of(path: str) -> WireFormat | None:
    """The format a model request's path asks for, found once per path (`ADDRESS_MEMO`)."""
    path = path.rstrip("/")
    for fmt in FORMATS:
        if path.endswith(fmt.path_suffix):
            return fmt
    return None


def _route_key(url: str) -> tuple[str, str]:
    """A tool route's key, read from its URL as a request's is (`_tool_for`), so that the two
    compare alike: the host without credentials, lower-cased, and the path."""
    route = WireRequest(method="POST", url=url)
    return route.host, route.path.rstrip("/")


def _json_object(data: object) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise WireFormatError(f"unsolvable: expected a JSON object body, got {data!r:.80}")
    return data


def _with_headers(response: WireResponse, headers: Mapping[str, str]) -> WireResponse:
    return WireResponse(
        status=response.status, body=response.body, headers=(*response.headers, *headers.items())
    )
