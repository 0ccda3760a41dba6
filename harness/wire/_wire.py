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
from types import TracebackType
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from unsolvable._errors import ContextOverflow
from unsolvable._frozen import freeze
from unsolvable._session import Session
from unsolvable._types import JSON
from unsolvable.wire import _clients
from unsolvable.wire._agents import split_agent
from unsolvable.wire._body import BodyReader
from unsolvable.wire._errors import WIRE_DOCS, HarnessFailure, StrayRequest, WireFormatError
from unsolvable.wire._exchange import WireRequest, WireResponse
from unsolvable.wire._formats import FORMATS, count_of, format_of
from unsolvable.wire._names import ToolNames
from unsolvable.wire._responses import no_call_for, no_output_for
from unsolvable.wire._server import LoopbackServer
from unsolvable.wire._strays import UNSERVED, explain_stray, explain_unknown_tool, stray_fixes
from unsolvable.wire._turn import TokenCount, Turn, WireFormat

if TYPE_CHECKING:
    import anthropic
    import httpx
    import httpx2
    import openai
    import respx
    from google import genai

__all__ = [
    "ANTHROPIC_BASE_URL",
    "FORMATS",
    "GEMINI_BASE_URL",
    "MODEL_HOSTS",
    "OPENAI_BASE_URL",
    "TOOLS_URL",
    "Attempt",
    "Wire",
]

MODEL_HOSTS = (
    "api.openai.com",
    "api.anthropic.com",
    "generativelanguage.googleapis.com",
    "model.unsolvable.test",
)
"""Hosts the fake model answers on. The vendors' own hosts are included so that a client with its
default base URL runs unmodified once its transport is the fake's — nothing leaves the process."""
TOOLS_URL = "https://tools.unsolvable.test/tools"
"""Where each scenario tool answers by default: ``POST {TOOLS_URL}/{name}`` with JSON arguments."""
OPENAI_BASE_URL = "https://api.openai.com/v1"
ANTHROPIC_BASE_URL = "https://api.anthropic.com"
GEMINI_BASE_URL = "https://generativelanguage.googleapis.com"
JSON_TYPE = "application/json"
TRANSIENT_RETRY_AFTER_MS = "1"
"""Back-off the fake asks for after an injected failure: the OpenAI and Anthropic SDKs honour
``retry-after-ms``, so a retried request costs a millisecond instead of their default half-second
back-off (google-genai reads no such header and waits its own ``retry_options``)."""


@dataclass(frozen=True, kw_only=True)
class Attempt:
    """One HTTP request the wire answered (or refused), as the harness keeps it."""

    kind: str
    """``model``, ``count`` (a token count: no step, no transport attempt), ``tool`` or
    ``stray``."""
    method: str
    url: str
    """Redacted: no credentials, no query values."""
    status: int
    """The status answered; ``0`` for a request never answered in-process: a stray one, a
    model request a ceiling or a failure of the harness ended, or a count a ceiling or a call
    after the agent returned ended (`handle`)."""
    route: str = ""
    """The wire format, the token count or the tool name that answered; for a stray, why
    nothing did (``no tool 'x'``, `UNSERVED`), or nothing when it was for another host."""

    def __str__(self) -> str:
        how = f"{self.kind} {self.route}".rstrip()
        return f"{self.method} {self.url} -> {self.status or 'refused'} ({how})"


@dataclass(kw_only=True)
class _Conversation:
    """The requests of one conversation (one format, one path: an agent's): the reader of its
    bodies, and the turn read last, whose messages a request that repeats its items takes
    again (`WireFormat.read`)."""

    reader: BodyReader
    turn: Turn | None = None


@dataclass(frozen=True, kw_only=True)
class _Stored:
    """A served response that a later request may continue (`Turn.continues`)."""

    previous: str | None
    """The response its own request continued, if any."""
    messages: tuple[JSON, ...]
    """What its request added to the conversation (instructions aside) and the reply, as the
    agent spells them on the wire, frozen."""


def _status_of(text: str) -> int:
    """A tool's JSON error names its HTTP status (``{"error": {"status": 403}}``); else 200."""
    try:
        data = json.loads(text)
    except ValueError:
        return 200
    error = data.get("error") if isinstance(data, dict) else None
    status = error.get("status") if isinstance(error, dict) else None
    return status if isinstance(status, int) and 400 <= status < 600 else 200


FORBIDDEN = 403


def _refusal(error: PermissionError) -> WireResponse:
    """A raised refusal answered over HTTP: the body the tool's answer held when the error
    carries it (the fake tools' `PermissionDenied` does), so an agent on the wire receives what
    the record keeps, byte for byte; else one made from the error's message."""
    body = getattr(error, "body", "")
    if isinstance(body, str) and body:
        return WireResponse.text(body, status=FORBIDDEN, content_type=JSON_TYPE)
    made = {"error": {"status": FORBIDDEN, "code": "forbidden", "message": str(error)}}
    return WireResponse.json(made, status=FORBIDDEN)


class Wire:
    """The scripted model and the tools of one session, served over HTTP.

    >>> with Wire(session) as wire:                                      # doctest: +SKIP
    ...     client = openai.OpenAI(api_key="x", http_client=wire.httpx2_client())
    ...     run_my_agent(client)                    # an ordinary openai-SDK agent, unmodified

    ``model_hosts`` are the hosts the model answers on; ``tool_routes`` maps extra URLs to scenario
    tool names (by default each tool answers at ``TOOLS_URL/<name>``); ``transient_failures``
    makes the first N model requests fail as the API fails one for a moment (a retryable 503;
    Anthropic's 529 ``overloaded_error``), to show SDK retries being counted as transport
    attempts and never as steps. ``tool_names`` maps how the agent spells
    the scenario's tools on the wire (`ToolNames`: Claude Code's ``mcp__<server>__`` prefix).
    Each client it makes takes ``agent="worker-1"`` for a sub-agent of a multi-agent system
    (`unsolvable.wire._agents`).

    What the wire keeps between requests is its own and guarded by its lock, since transports
    and the loopback server call it from several threads: its attempts, each conversation's
    last reading (so a request's cost does not grow with the conversation), and the responses a
    later request may continue.
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
        spells = tool_names is not None and bool(tool_names.prefix or tool_names.others)
        self._names = tool_names if spells else None
        """None when the agent spells the tools as the scenario does: nothing to map."""
        self._model_hosts = {host.lower() for host in model_hosts}
        self._tool_hosts = {urlsplit(TOOLS_URL).netloc}
        self._tool_urls = {_route_key(url): name for url, name in (tool_routes or {}).items()}
        self._tool_names = {spec.name for spec in session.tools}
        self._lock = threading.Lock()
        self._failures_left = transient_failures
        self._served = itertools.count(1)
        """The number of each model request answered."""
        self._identities = itertools.count(1)
        """The number of each answer given on a model host, refusals and counts included."""
        self._conversations: dict[tuple[str, str], _Conversation] = {}
        self._stored: dict[str, _Stored] = {}
        self._attempts: list[Attempt] = []
        self._failures: list[tuple[str, Exception]] = []
        """Each request the harness failed to answer (`HarnessFailure`), and why."""
        self._servers: list[LoopbackServer] = []

    # -- the handler ------------------------------------------------------------------------
    def handle(self, request: WireRequest) -> WireResponse:
        """Answers ``request``; raises `StrayRequest` when no fake route matches it.

        `CeilingHit` from the session propagates, so an in-process agent is ended by it. Any
        other exception is the harness's failure (the scenario's model raised, say), kept for
        `check` as it propagates: the loopback server answers it 500.
        """
        try:
            return self._route(request)
        except Exception as error:
            self._failed(request, error)
            raise

    def _route(self, request: WireRequest) -> WireResponse:
        with self._lock:
            on_model_host = request.host in self._model_hosts
        for_model = request.method == "POST" and on_model_host
        fmt = format_of(request.path) if for_model else None
        if fmt is not None:
            return self._identified(fmt, self._answer_model(fmt, request))
        count = count_of(request.path) if for_model else None
        if count is not None:
            return self._identified(count.generating, self._answer_count(count, request))
        tool = self._tool_for(request)
        if tool is not None:
            return self._answer_tool(tool, request)
        unknown = self._unknown_tool(request)
        if unknown is not None:
            self._log("stray", request, None, f"no tool {unknown!r}")
            raise StrayRequest(explain_unknown_tool(request, unknown, self._tool_names))
        self._log("stray", request, None, UNSERVED if on_model_host else "")
        raise StrayRequest(self._explain_stray(request, unserved=on_model_host))

    def _identified(self, fmt: WireFormat, response: WireResponse) -> WireResponse:
        """``response`` with the request id its API names every answer by, refusals included:
        the number of the model request answered, so the same run gives the same ids."""
        if fmt.request_id_header is None:
            return response
        with self._lock:
            number = next(self._identities)
        return response.with_headers({fmt.request_id_header: f"req_unsolvable_{number}"})

    @property
    def attempts(self) -> list[Attempt]:
        """Every request the wire saw, in order (model, count, tool and stray)."""
        with self._lock:
            return list(self._attempts)

    @property
    def stray(self) -> list[Attempt]:
        """Requests that matched no route (each already failed the call that made it)."""
        return [a for a in self.attempts if a.kind == "stray"]

    def check(self) -> None:
        """Raises `HarnessFailure` if the harness failed to answer a request, then
        `StrayRequest` if any request went unmatched, even if the agent swallowed either."""
        with self._lock:
            failures = list(self._failures)
        if failures:
            lines = "\n".join(f"  - {where}: {type(e).__name__}: {e}" for where, e in failures)
            raise HarnessFailure(
                f"unsolvable: the harness failed to answer {len(failures)} request(s), each "
                f"answered 500, so what the agent did next answered no scenario:\n{lines}\nFix "
                "the scenario's model or tool that raised (the traceback shows where). See "
                f"{WIRE_DOCS}"
            ) from failures[0][1]
        stray = self.stray
        if stray:
            lines = "\n".join(f"  - {a}" for a in stray)
            raise StrayRequest(
                f"unsolvable: {len(stray)} request(s) matched no fake route during the "
                f"scenario:\n{lines}\n{stray_fixes((a.route for a in stray), self._tool_names)}. "
                f"See {WIRE_DOCS}"
            )

    def _tool_for(self, request: WireRequest) -> str | None:
        key = (request.host, split_agent(request.path)[1].rstrip("/"))
        if key in self._tool_urls:
            return self._tool_urls[key]
        prefix, _, name = key[1].rpartition("/")
        with self._lock:
            on_tool_host = request.host in self._tool_hosts
        if on_tool_host and prefix == "/tools" and name in self._tool_names:
            return name
        return None

    def _unknown_tool(self, request: WireRequest) -> str | None:
        """The name a request to the tools' own URL gives when the scenario has no such tool:
        the agent's mistake, not a request that would have left the harness."""
        prefix, _, name = split_agent(request.path)[1].rstrip("/").rpartition("/")
        with self._lock:
            on_tool_host = request.host in self._tool_hosts
        return name if on_tool_host and prefix == "/tools" and name else None

    def _answer_model(self, fmt: WireFormat, request: WireRequest) -> WireResponse:
        """Every request is one transport attempt, whether the model answers it or not."""
        self.session.count_transport_attempt()
        if self._failing():
            message = "unsolvable: transient failure injected by the harness (transient_failures)"
            headers = {"retry-after-ms": TRANSIENT_RETRY_AFTER_MS, "x-should-retry": "true"}
            failure = fmt.transient_error(message).with_headers(headers)
            return self._log("model", request, failure, fmt.name)
        try:
            turn = self._read(fmt, request)
            messages = self._conversation(turn)
        except ValueError as error:
            return self._log("model", request, _refused(fmt, error), fmt.name)
        tools = turn.tools
        names = self._spelling(tools)
        if names is not None:
            try:
                messages, tools = names.read(messages, tools)
            except (AttributeError, KeyError, TypeError) as error:  # the agent's, as in `_read`
                refused = _refused(fmt, WireFormatError(_shape_error(fmt, error)))
                return self._log("model", request, refused, fmt.name)
        try:
            answer = self.session.answer(messages, tools, agent=_agent_of(request.path))
        except ContextOverflow as overflow:  # the session counted it as a step
            refusal = fmt.context_error(overflow.tokens, overflow.window)
            return self._log("model", request, refusal, fmt.name)
        except BaseException:  # a ceiling, a failure: an attempt all the same, unanswered
            self._log("model", request, None, fmt.name)
            raise
        with self._lock:
            step = next(self._served)
        reply = answer.message if names is None else names.write(answer.message)
        self._store(fmt.response_id(step, turn), turn, reply)
        rendered = fmt.render(reply, answer.usage, turn, step=step)
        return self._log("model", request, rendered, fmt.name)

    def _answer_count(self, count: TokenCount, request: WireRequest) -> WireResponse:
        """The input tokens of the generating request ``request`` counts, as its step's usage
        would give them now (`Session.count_tokens`), or that request's own refusal. A count is
        no step, no transport attempt and no injected failure's target: the run is recorded as
        it would be without it."""
        fmt = count.generating
        try:
            messages, tools = self._counted(count, request)
        except ValueError as error:
            return self._log("count", request, _refused(fmt, error), count.name)
        try:
            tokens = self.session.count_tokens(messages, tools, agent=_agent_of(request.path))
        except BaseException:  # a ceiling, a late call: an attempt all the same, unanswered
            self._log("count", request, None, count.name)
            raise
        return self._log("count", request, count.render(tokens), count.name)

    def _counted(
        self, count: TokenCount, request: WireRequest
    ) -> tuple[list[JSON], tuple[str, ...]]:
        """The conversation and the tools offered that the generating request ``request``
        counts would hand the session, in the scenario's names. Its body is read whole, apart
        from the conversations of the generating requests, which a count leaves as they were."""
        fmt = count.generating
        _require_body(request)
        try:
            body = count.request(_json_object(json.loads(request.body)))
            turn = fmt.read(body, url=request.url, counted=True)
            messages, names = self._conversation(turn), self._spelling(turn.tools)
            return (messages, turn.tools) if names is None else names.read(messages, turn.tools)
        except (AttributeError, KeyError, TypeError) as error:  # the agent's, as in `_read`
            raise WireFormatError(_shape_error(fmt, error)) from None

    def _spelling(self, offered: tuple[str, ...]) -> ToolNames | None:
        """How a request offering ``offered`` spells the scenario's tools, or None when the
        agent spells them as the scenario does."""
        return None if self._names is None else self._names.spelling(offered)

    def _read(self, fmt: WireFormat, request: WireRequest) -> Turn:
        """The request's turn, read by its conversation's reader: only what its body adds to the
        conversation's previous body is parsed and converted. A body that cannot be read ends
        the conversation (the next is read afresh)."""
        _require_body(request)
        key = (fmt.name, request.path)
        with self._lock:
            conversation = self._conversations.get(key)
            if conversation is None:
                conversation = _Conversation(reader=BodyReader(fmt.conversation))
                self._conversations[key] = conversation
            try:
                reading = conversation.reader.read(request.body)
                earlier = conversation.turn
                if earlier is not None and reading.repeated != earlier.items:
                    earlier = None
                conversation.turn = fmt.read(_json_object(reading.body), earlier, url=request.url)
            except (ValueError, WireFormatError):
                del self._conversations[key]
                raise
            except (AttributeError, KeyError, TypeError) as error:
                # A member of another type than its API takes (a string where it takes an
                # object) is the agent's error, answered as the API answers it: a final 400.
                del self._conversations[key]
                raise WireFormatError(_shape_error(fmt, error)) from None
            return conversation.turn

    def _failing(self) -> bool:
        """Whether this request is one of the ``transient_failures`` still to inject."""
        with self._lock:
            failing, self._failures_left = self._failures_left > 0, max(0, self._failures_left - 1)
        return failing

    def _conversation(self, turn: Turn) -> list[JSON]:
        """The turn's messages, after those of the responses it continues
        (`Turn.continues`), which its request does not send again; instructions (system
        messages) are not carried over, as in the Responses API."""
        if turn.continues is None:
            return turn.messages
        earlier: list[tuple[JSON, ...]] = []
        with self._lock:
            previous: str | None = turn.continues
            while previous is not None:
                stored = self._stored.get(previous)
                if stored is None:  # never served, or served with "store": false
                    raise WireFormatError(
                        f"Previous response with id '{previous}' not found.",
                        param="previous_response_id",
                        code="previous_response_not_found",
                    )
                earlier.append(stored.messages)
                previous = stored.previous
        history = [message for added in reversed(earlier) for message in added]
        system = [m for m in turn.messages if m.get("role") == "system"]
        rest = [m for m in turn.messages if m.get("role") != "system"]
        _require_outputs(history, rest)
        return [*system, *history, *rest]

    def _store(self, response_id: str | None, turn: Turn, reply: JSON) -> None:
        """Keeps what a later request needs to continue this response, if its format has ids
        to continue by."""
        if response_id is None:
            return
        added = [m for m in turn.messages if m.get("role") != "system"]
        stored = _Stored(previous=turn.continues, messages=tuple(freeze([*added, reply])))
        with self._lock:
            self._stored[response_id] = stored

    def _answer_tool(self, name: str, request: WireRequest) -> WireResponse:
        try:
            arguments = (
                _json_object(request.json()) if request.body.strip() else dict(request.query)
            )
        except (ValueError, WireFormatError) as error:
            body = {"error": {"status": 400, "message": f"unsolvable: {name}: {error}"}}
            return self._log("tool", request, WireResponse.json(body, status=400), name)
        try:
            text = self.session.call_tool(name, arguments, agent=_agent_of(request.path))
        except PermissionError as error:
            return self._log("tool", request, _refusal(error), name)
        except Exception as error:
            self._failed(request, error)
            body = {"error": {"status": 500, "message": f"{type(error).__name__}: {error}"}}
            return self._log("tool", request, WireResponse.json(body, status=500), name)
        response = WireResponse.text(text, status=_status_of(text), content_type=JSON_TYPE)
        return self._log("tool", request, response, name)

    def _failed(self, request: WireRequest, error: Exception) -> None:
        with self._lock:
            self._failures.append((f"{request.method} {request.safe_url}", error))

    def _log(
        self, kind: str, request: WireRequest, response: WireResponse | None, route: str
    ) -> WireResponse:
        """Keeps the attempt (redacted URL, never headers) and passes the response through."""
        status = 0 if response is None else response.status
        attempt = Attempt(
            kind=kind, method=request.method, url=request.safe_url, status=status, route=route
        )
        with self._lock:
            self._attempts.append(attempt)
        return response or WireResponse.text("", status=0)

    def _explain_stray(self, request: WireRequest, *, unserved: bool) -> str:
        with self._lock:
            hosts = sorted(self._model_hosts)
        return explain_stray(
            request, unserved=unserved, hosts=hosts, tools=self._tool_names, tools_url=TOOLS_URL
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
    # Each is required first (`_clients.require_module`), so a missing one names its extra.
    # Every client takes ``agent="worker-1"``: its model calls are then that sub-agent's steps
    # (``steps_by_agent``; the agent `FanOut` tells apart), its tool calls its own.
    def httpx2_transport(self, *, agent: str | None = None) -> httpx2.MockTransport:
        """An ``httpx2`` transport answering from this wire: what ``openai``>=3 and
        ``anthropic``>=1 send through when given ``http_client=``."""
        return _clients.mock_transport(self, "httpx2", agent)  # type: ignore[no-any-return]

    def httpx2_client(self, *, agent: str | None = None, **options: Any) -> httpx2.Client:
        _clients.require_module("httpx2")
        import httpx2

        return httpx2.Client(transport=self.httpx2_transport(agent=agent), **options)

    def httpx2_async_client(
        self, *, agent: str | None = None, **options: Any
    ) -> httpx2.AsyncClient:
        _clients.require_module("httpx2")
        import httpx2

        return httpx2.AsyncClient(transport=self.httpx2_transport(agent=agent), **options)

    def httpx_transport(self, *, agent: str | None = None) -> httpx.MockTransport:
        """An ``httpx`` transport answering from this wire, for httpx-based clients."""
        return _clients.mock_transport(self, "httpx", agent)  # type: ignore[no-any-return]

    def httpx_client(self, *, agent: str | None = None, **options: Any) -> httpx.Client:
        _clients.require_module("httpx")
        import httpx

        return httpx.Client(transport=self.httpx_transport(agent=agent), **options)

    def httpx_async_client(self, *, agent: str | None = None, **options: Any) -> httpx.AsyncClient:
        _clients.require_module("httpx")
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
        _clients.require_module("openai")
        import openai

        options = _clients.sdk_options(options, self.httpx2_client, OPENAI_BASE_URL, agent)
        return openai.OpenAI(**options)

    def async_openai_client(
        self, *, agent: str | None = None, **options: Any
    ) -> openai.AsyncOpenAI:
        _clients.require_module("openai")
        import openai

        options = _clients.sdk_options(options, self.httpx2_async_client, OPENAI_BASE_URL, agent)
        return openai.AsyncOpenAI(**options)

    def anthropic_client(self, *, agent: str | None = None, **options: Any) -> anthropic.Anthropic:
        _clients.require_module("anthropic")
        import anthropic

        options = _clients.sdk_options(options, self.httpx2_client, ANTHROPIC_BASE_URL, agent)
        return anthropic.Anthropic(**options)

    def async_anthropic_client(
        self, *, agent: str | None = None, **options: Any
    ) -> anthropic.AsyncAnthropic:
        _clients.require_module("anthropic")
        import anthropic

        make = self.httpx2_async_client
        options = _clients.sdk_options(options, make, ANTHROPIC_BASE_URL, agent)
        return anthropic.AsyncAnthropic(**options)

    def gemini_client(self, *, agent: str | None = None, **options: Any) -> genai.Client:
        """A ``google.genai.Client`` (and its ``.aio``) whose every request is answered here;
        ``http_options``, a ``types.HttpOptions`` or a dict (``HttpOptionsDict``), is completed
        with this wire's base URL and httpx2 clients. An ``HttpOptions`` holds every field, most
        of them ``None``: those are left out, or its ``httpx_client=None`` would send the
        requests past the wire to the real API."""
        _clients.require_module("google.genai")
        from google import genai
        from google.genai import types

        given = dict(options.pop("http_options", None) or {})
        http: dict[str, Any] = {key: value for key, value in given.items() if value is not None}
        if "base_url" in http:
            options["base_url"] = http.pop("base_url")
        merged = _clients.sdk_options(options, self.httpx2_client, GEMINI_BASE_URL, agent)
        http.setdefault("base_url", merged.pop("base_url"))
        http.setdefault("httpx_client", merged.pop("http_client"))
        http.setdefault("httpx_async_client", self.httpx2_async_client())
        return genai.Client(http_options=types.HttpOptions(**http), **merged)


def _require_outputs(history: list[JSON], added: list[JSON]) -> None:
    """The calls of the response a request continues (the last of its ``history``) each answered
    by a result among what the request ``added``, and each result answering a call made, or the
    Responses API's refusal: an agent that continues a response and drops a result is refused
    in production. (The format checks a request's own items, `Turn.continues` aside.)"""
    answered = {str(m.get("tool_call_id")) for m in added if m.get("role") == "tool"}
    asked = [
        str(call.get("id")) for call in (history[-1] if history else {}).get("tool_calls") or ()
    ]
    unanswered = [call for call in asked if call not in answered]
    if unanswered:
        raise no_output_for(unanswered[0])
    made = {str(call.get("id")) for m in (*history, *added) for call in m.get("tool_calls") or ()}
    orphans = sorted(answered - made)
    if orphans:
        raise no_call_for(orphans[0])


def _require_body(request: WireRequest) -> None:
    if not request.body.strip():
        raise WireFormatError("unsolvable: expected a JSON object body, got an empty one")


def _refused(fmt: WireFormat, error: ValueError) -> WireResponse:
    """The API's 400 for a request it cannot take, with the ``param`` and ``code`` a
    `WireFormatError` names, marked final: the SDKs honour ``x-should-retry`` and do not retry
    it, as the API's 400s are not retried."""
    if isinstance(error, WireFormatError):
        refusal = fmt.error(400, str(error), param=error.param, code=error.code)
    else:
        refusal = fmt.error(400, str(error))
    return refusal.with_headers({"x-should-retry": "false"})


def _shape_error(fmt: WireFormat, error: Exception) -> str:
    """Why a request whose members hold values of other types than its API takes is refused."""
    return (
        f"unsolvable: this {fmt.name} request is not in the shape its API takes: a member "
        f"holds a value of another type ({error}); send each member as the API's reference "
        f"gives it. See {WIRE_DOCS}"
    )


def _agent_of(path: str) -> str:
    """The sub-agent a request's path names, else the session's own default agent."""
    return split_agent(path)[0] or "main"


def _route_key(url: str) -> tuple[str, str]:
    """A tool route's key, read from its URL as a request's is (`_tool_for`), so that the two
    compare alike: the host without credentials, lower-cased, and the path."""
    route = WireRequest(method="POST", url=url)
    return route.host, route.path.rstrip("/")


def _json_object(data: object) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise WireFormatError(f"unsolvable: expected a JSON object body, got {data!r:.80}")
    return data
