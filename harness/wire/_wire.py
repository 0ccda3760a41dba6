"""Consumes HTTP requests an agent makes during a scenario, produces the fake model's and tools'
answers, and counts every attempt apart from steps.

One `Wire` per session. Its `handle` is transport-neutral; the clients it makes (`_clients`)
mount it on httpx, httpx2, respx and the SDKs, and `_server` serves it from 127.0.0.1 to agents
in other processes.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import threading
from collections.abc import Mapping
from types import TracebackType
from urllib.parse import urlsplit

from unsolvable._errors import ContextOverflow, SessionClosed
from unsolvable._offered import OfferedTool
from unsolvable._session import Session
from unsolvable._types import JSON
from unsolvable.wire._agents import split_agent
from unsolvable.wire._attempts import Attempt, AttemptLog
from unsolvable.wire._clients import ANTHROPIC_BASE_URL, GEMINI_BASE_URL, OPENAI_BASE_URL, Clients
from unsolvable.wire._clock import CLOCK_PATH, SLEEP_PATH, answer_clock
from unsolvable.wire._conversations import Conversations
from unsolvable.wire._errors import (
    StrayRequest,
    WireFormatError,
    json_object,
    require_body,
    shape_error,
)
from unsolvable.wire._exchange import WireRequest, WireResponse
from unsolvable.wire._formats import FORMATS, count_of, format_of
from unsolvable.wire._names import ToolNames
from unsolvable.wire._response_store import ResponseStore
from unsolvable.wire._server import LoopbackServer
from unsolvable.wire._strays import UNSERVED, explain_stray, explain_unknown_tool
from unsolvable.wire._turn import TokenCount, WireFormat

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
JSON_TYPE = "application/json"
TRANSIENT_RETRY_AFTER_MS = "1"
"""Back-off the fake asks for after an injected failure: the OpenAI and Anthropic SDKs honour
``retry-after-ms``, so a retried request costs a millisecond instead of their default half-second
back-off (google-genai reads no such header and waits its own ``retry_options``)."""


RETRIED_LATER = frozenset({429, 503})
"""The statuses HTTP lets a server say when to try again on (``Retry-After``: RFC 9110 for 503,
RFC 6585 for 429)."""


def _tool_response(text: str) -> WireResponse:
    """A tool's answer over HTTP. Its JSON error names its HTTP status (``{"error": {"status":
    503}}``; else 200) and, on a 503 or a 429, its hint of when to try again (``"retry_after":
    1``), which an HTTP client reads from the ``Retry-After`` header, as a real service sends
    it (curl's ``--retry``, urllib3's ``Retry`` honour it); the body stays the tool's own."""
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    error = data.get("error") if isinstance(data, dict) else None
    status = error.get("status") if isinstance(error, dict) else None
    if not isinstance(error, dict) or not (isinstance(status, int) and 400 <= status < 600):
        return WireResponse.text(text, content_type=JSON_TYPE)
    response = WireResponse.text(text, status=status, content_type=JSON_TYPE)
    hint = error.get("retry_after")
    later = status in RETRIED_LATER and type(hint) is int and hint >= 0  # no bool, no float
    return response.with_headers({"retry-after": str(hint)}) if later else response


FORBIDDEN = 403
PROBES = frozenset({"HEAD", "OPTIONS"})
"""Methods that ask about a URL without acting on it (RFC 9110: safe), as a reachability check
(``curl -I``) or a CORS preflight does: a tool's URL answers them without running the tool."""
TOOL_METHODS = "GET, POST, PUT, PATCH, DELETE"
"""The methods that run a tool: a POST of its arguments, or any other a routed service takes."""
NOT_ALLOWED = 405


def _not_run(method: str, tool: str) -> WireResponse:
    """The answer to a `PROBES` request at a tool's URL: 405 with the methods that run it, so no
    call is made, counted or charged, and no world changes, for a request that asked for none."""
    message = f"unsolvable: {method} does not run the tool {tool!r}; POST its arguments to run it"
    body = {"error": {"status": NOT_ALLOWED, "message": message}}
    return WireResponse.json(body, status=NOT_ALLOWED, headers={"allow": TOOL_METHODS})


def _refusal(error: PermissionError) -> WireResponse:
    """A raised refusal answered over HTTP: the body the tool's answer held when the error
    carries it (the fake tools' `PermissionDenied` does), so an agent on the wire receives what
    the record keeps, byte for byte; else one made from the error's message."""
    body = getattr(error, "body", "")
    if isinstance(body, str) and body:
        return WireResponse.text(body, status=FORBIDDEN, content_type=JSON_TYPE)
    made = {"error": {"status": FORBIDDEN, "code": "forbidden", "message": str(error)}}
    return WireResponse.json(made, status=FORBIDDEN)


class Wire(Clients):
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

    What the wire keeps between requests is its own, each part guarded by a lock of its own,
    since transports and the loopback server call it from several threads: its hosts and
    counts, its attempts (`AttemptLog`), each conversation's last reading (`Conversations`, so
    a request's cost does not grow with the conversation), and the responses a later request
    may continue (`ResponseStore`).
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
        self._conversations = Conversations()
        self._stored = ResponseStore()
        self._attempts = AttemptLog()
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
            self._attempts.failed(request, error)
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
        if tool is not None and request.method in PROBES:
            return self._attempts.log("tool", request, _not_run(request.method, tool), tool)
        if tool is not None:
            return self._answer_tool(tool, request)
        clock = self._clock_for(request)
        if clock is not None:
            return self._attempts.log(
                "clock", request, answer_clock(self.session, request, clock), clock
            )
        unknown = self._unknown_tool(request)
        if unknown is not None:
            self._attempts.log("stray", request, None, f"no tool {unknown!r}")
            raise StrayRequest(explain_unknown_tool(request, unknown, self._tool_names))
        self._attempts.log("stray", request, None, UNSERVED if on_model_host else "")
        raise StrayRequest(self._explain_stray(request, unserved=on_model_host))

    def refused(self, request: WireRequest, response: WireResponse) -> None:
        """A request the loopback server refused unread (`Handler.refused`). One for the model is
        logged, and counted as the transport attempt it is, as a model request the wire refuses
        is (a malformed body, ``n`` > 1): a run whose agent was refused and gave up shows the
        requests it made. One made after the agent returned is noted as a late call."""
        with self._lock:
            on_model_host = request.host in self._model_hosts
        fmt = format_of(request.path) if request.method == "POST" and on_model_host else None
        if fmt is None:
            return
        self._attempts.log("model", request, response, fmt.name)
        with contextlib.suppress(SessionClosed):
            self.session.count_transport_attempt()

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
        return self._attempts.attempts()

    @property
    def stray(self) -> list[Attempt]:
        """Requests that matched no route (each already failed the call that made it)."""
        return self._attempts.stray()

    def check(self) -> None:
        """Raises `HarnessFailure` if the harness failed to answer a request, then
        `StrayRequest` if any request went unmatched, even if the agent swallowed either."""
        self._attempts.check(self._tool_names)

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

    def _clock_for(self, request: WireRequest) -> str | None:
        """The session clock's path a request to the tools' host names (`unsolvable.wire._clock`),
        whichever agent's URL it came by: the run has one clock."""
        path = split_agent(request.path)[1].rstrip("/")
        with self._lock:
            on_tool_host = request.host in self._tool_hosts
        return path if on_tool_host and path in (CLOCK_PATH, SLEEP_PATH) else None

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
            return self._attempts.log("model", request, failure, fmt.name)
        try:
            turn = self._conversations.read(fmt, request)
            messages = self._stored.conversation(turn)
        except ValueError as error:
            return self._attempts.log("model", request, _refused(fmt, error), fmt.name)
        tools = turn.tools
        names = self._spelling(tools)
        if names is not None:
            try:
                messages, tools = names.read(messages, tools)
            except (AttributeError, KeyError, TypeError) as error:
                # the agent's error, as in `Conversations.read`
                refused = _refused(fmt, WireFormatError(shape_error(fmt.name, error)))
                return self._attempts.log("model", request, refused, fmt.name)
        try:
            answer = self.session.answer(messages, tools, agent=_agent_of(request.path))
        except ContextOverflow as overflow:  # the session counted it as a step
            refusal = fmt.context_error(overflow.tokens, overflow.window)
            return self._attempts.log("model", request, refusal, fmt.name)
        except BaseException:  # a ceiling, a failure: an attempt all the same, unanswered
            self._attempts.log("model", request, None, fmt.name)
            raise
        with self._lock:
            step = next(self._served)
        reply = answer.message if names is None else names.write(answer.message)
        self._stored.keep(fmt.response_id(step, turn), turn, reply)
        rendered = fmt.render(reply, answer.usage, turn, step=step)
        return self._attempts.log("model", request, rendered, fmt.name)

    def _answer_count(self, count: TokenCount, request: WireRequest) -> WireResponse:
        """The input tokens of the generating request ``request`` counts, as its step's usage
        would give them now (`Session.count_tokens`), or that request's own refusal. A count is
        no step, no transport attempt and no injected failure's target: the run is recorded as
        it would be without it."""
        fmt = count.generating
        try:
            messages, tools = self._counted(count, request)
        except ValueError as error:
            return self._attempts.log("count", request, _refused(fmt, error), count.name)
        try:
            tokens = self.session.count_tokens(messages, tools, agent=_agent_of(request.path))
        except BaseException:  # a ceiling, a late call: an attempt all the same, unanswered
            self._attempts.log("count", request, None, count.name)
            raise
        return self._attempts.log("count", request, count.render(tokens), count.name)

    def _counted(
        self, count: TokenCount, request: WireRequest
    ) -> tuple[list[JSON], tuple[OfferedTool, ...]]:
        """The conversation and the tools offered that the generating request ``request``
        counts would hand the session, in the scenario's names. Its body is read whole, apart
        from the conversations of the generating requests, which a count leaves as they were."""
        fmt = count.generating
        require_body(request)
        try:
            body = count.request(json_object(request.json()))
            turn = fmt.read(body, url=request.url, counted=True)
            messages, names = self._stored.conversation(turn), self._spelling(turn.tools)
            return (messages, turn.tools) if names is None else names.read(messages, turn.tools)
        except (AttributeError, KeyError, TypeError) as error:
            # the agent's error, as in `Conversations.read`
            raise WireFormatError(shape_error(fmt.name, error)) from None

    def _spelling(self, offered: tuple[OfferedTool, ...]) -> ToolNames | None:
        """How a request offering ``offered`` spells the scenario's tools, or None when the
        agent spells them as the scenario does."""
        if self._names is None:
            return None
        return self._names.spelling([tool.name for tool in offered])

    def _failing(self) -> bool:
        """Whether this request is one of the ``transient_failures`` still to inject."""
        with self._lock:
            failing, self._failures_left = self._failures_left > 0, max(0, self._failures_left - 1)
        return failing

    def _answer_tool(self, name: str, request: WireRequest) -> WireResponse:
        try:
            arguments = json_object(request.json()) if request.body.strip() else dict(request.query)
        except (ValueError, WireFormatError) as error:
            body = {"error": {"status": 400, "message": f"unsolvable: {name}: {error}"}}
            return self._attempts.log("tool", request, WireResponse.json(body, status=400), name)
        try:
            text = self.session.call_tool(name, arguments, agent=_agent_of(request.path))
        except PermissionError as error:
            return self._attempts.log("tool", request, _refusal(error), name)
        except Exception as error:
            self._attempts.failed(request, error)
            body = {"error": {"status": 500, "message": f"{type(error).__name__}: {error}"}}
            return self._attempts.log("tool", request, WireResponse.json(body, status=500), name)
        return self._attempts.log("tool", request, _tool_response(text), name)

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


def _refused(fmt: WireFormat, error: ValueError) -> WireResponse:
    """The API's 400 for a request it cannot take, with the ``param`` and ``code`` a
    `WireFormatError` names, marked final: the SDKs honour ``x-should-retry`` and do not retry
    it, as the API's 400s are not retried."""
    if isinstance(error, WireFormatError):
        refusal = fmt.error(400, str(error), param=error.param, code=error.code)
    else:
        refusal = fmt.error(400, str(error))
    return refusal.with_headers({"x-should-retry": "false"})


def _agent_of(path: str) -> str:
    """The sub-agent a request's path names, else the session's own default agent."""
    return split_agent(path)[0] or "main"


def _route_key(url: str) -> tuple[str, str]:
    """A tool route's key, read from its URL as a request's is (`_tool_for`), so that the two
    compare alike: the host without credentials, lower-cased, and the path."""
    route = WireRequest(method="POST", url=url)
    return route.host, route.path.rstrip("/")
