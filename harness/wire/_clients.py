"""Consumes a `Handler` (a `Wire`), produces the HTTP clients that it answers: mock transports
for httpx and httpx2, their clients, respx routes, and the OpenAI, Anthropic and Gemini SDKs'
clients. No process-wide patching: only respx's own router patches httpx, and only while it is
active.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from unsolvable._errors import AdapterError
from unsolvable.wire._agents import agent_url, check_agent
from unsolvable.wire._exchange import FAKE_API_KEY, Handler, WireRequest, WireResponse

if TYPE_CHECKING:
    import anthropic
    import httpx
    import httpx2
    import openai
    import respx
    from google import genai

__all__ = [
    "ANTHROPIC_BASE_URL",
    "GEMINI_BASE_URL",
    "OPENAI_BASE_URL",
    "Clients",
    "mock_transport",
    "probe_platform",
    "sdk_options",
]

OPENAI_BASE_URL = "https://api.openai.com/v1"
ANTHROPIC_BASE_URL = "https://api.anthropic.com"
GEMINI_BASE_URL = "https://generativelanguage.googleapis.com"

EXTRAS = MappingProxyType(
    {
        "httpx2": "http",
        "httpx": "http",
        "respx": "http",
        "openai": "openai",
        "anthropic": "anthropic",
        "google.genai": "gemini",
    }
)
"""Which extra installs each optional client library."""


def require_module(name: str) -> Any:
    """Imports ``name`` or says which extra installs it (httpx does the same for ``http2``)."""
    try:
        return importlib.import_module(name)
    except ImportError as error:
        extra = EXTRAS.get(name, name)
        raise AdapterError(
            f"unsolvable: the wire face needs {name!r}, which is not installed; "
            f"pip install 'pytest-unsolvable[{extra}]'"
        ) from error


def _handler(wire: Handler, module: Any, agent: str | None) -> Callable[[Any], Any]:
    """A request handler for ``module`` (httpx or httpx2: the same API, different classes); with
    ``agent``, every request it forwards names that agent in its path."""

    def handle(request: Any) -> Any:
        try:
            url = str(request.url) if agent is None else agent_url(str(request.url), agent)
        except ValueError as contradiction:
            error = {"error": {"type": "invalid_request_error", "message": str(contradiction)}}
            response = WireResponse.json(error, status=400, headers={"x-should-retry": "false"})
        else:
            response = wire.handle(
                WireRequest(
                    method=request.method,
                    url=url,
                    body=request.content,
                    headers=dict(request.headers),
                )
            )
        return module.Response(response.status, headers=response.headers, content=response.body)

    return handle


def mock_transport(wire: Handler, module_name: str, agent: str | None = None) -> Any:
    """``module.MockTransport`` over the wire; serves sync and async clients alike. With
    ``agent``, its model calls are that agent's steps (`unsolvable.wire._agents`)."""
    agent = None if agent is None else check_agent(agent)
    module = require_module(module_name)
    return module.MockTransport(_handler(wire, module, agent))


def sdk_options(
    options: Mapping[str, Any],
    make_client: Callable[[], Any],
    base_url: str,
    agent: str | None = None,
) -> dict[str, Any]:
    """An SDK client's options: the fake key and base URL unless given, and our transport. With
    ``agent``, the base URL names that agent, so the binding holds whatever ``http_client`` the
    caller passes."""
    merged = {"api_key": FAKE_API_KEY, "base_url": base_url, **options}
    if agent is not None:
        try:
            merged["base_url"] = agent_url(str(merged["base_url"]), agent)
        except ValueError as contradiction:
            raise AdapterError(str(contradiction)) from None
    merged.setdefault("http_client", make_client())
    return merged


def probe_platform(client: Any) -> None:
    """Finds the platform an async client of a Stainless-built SDK (openai, anthropic) names in
    its headers now, on this thread. The SDK finds it at the client's first request, on a worker
    thread: first requests made at once (a lead's workers starting together) would otherwise
    reach the wire in the order those threads end, which varies from run to run, and with it the
    record."""
    package = type(client).__module__.split(".")[0]
    client._platform = importlib.import_module(f"{package}._base_client").get_platform()


class Clients(Handler):
    """The clients a `Wire` makes, each answering from it; httpx, httpx2 and the SDKs are
    imported only when one is asked for, each required first (`require_module`), so a missing
    one names its extra. Every client takes ``agent="worker-1"``: its model calls are then that
    sub-agent's steps (``steps_by_agent``; the agent `FanOut` tells apart), its tool calls its
    own."""

    def httpx2_transport(self, *, agent: str | None = None) -> httpx2.MockTransport:
        """An ``httpx2`` transport answering from this wire: what ``openai``>=3 and
        ``anthropic``>=1 send through when given ``http_client=``."""
        return mock_transport(self, "httpx2", agent)  # type: ignore[no-any-return]

    def httpx2_client(self, *, agent: str | None = None, **options: Any) -> httpx2.Client:
        require_module("httpx2")
        import httpx2

        return httpx2.Client(transport=self.httpx2_transport(agent=agent), **options)

    def httpx2_async_client(
        self, *, agent: str | None = None, **options: Any
    ) -> httpx2.AsyncClient:
        require_module("httpx2")
        import httpx2

        return httpx2.AsyncClient(transport=self.httpx2_transport(agent=agent), **options)

    def httpx_transport(self, *, agent: str | None = None) -> httpx.MockTransport:
        """An ``httpx`` transport answering from this wire, for httpx-based clients."""
        return mock_transport(self, "httpx", agent)  # type: ignore[no-any-return]

    def httpx_client(self, *, agent: str | None = None, **options: Any) -> httpx.Client:
        require_module("httpx")
        import httpx

        return httpx.Client(transport=self.httpx_transport(agent=agent), **options)

    def httpx_async_client(self, *, agent: str | None = None, **options: Any) -> httpx.AsyncClient:
        require_module("httpx")
        import httpx

        return httpx.AsyncClient(transport=self.httpx_transport(agent=agent), **options)

    def respx_router(self, **options: Any) -> respx.MockRouter:
        """A respx router that sends every httpx request to this wire while it is active
        (``with wire.respx_router():``); unmatched requests fail as `StrayRequest`."""
        respx = require_module("respx")
        options.setdefault("assert_all_called", False)
        router = respx.MockRouter(**options)
        self.mount(router)
        return router  # type: ignore[no-any-return]

    def mount(self, router: respx.Router) -> None:
        """Adds this wire as the catch-all route of an existing respx router (``respx_mock``):
        it matches by itself and raises on strays."""
        handler = _handler(self, require_module("httpx"), None)
        router.route(name="unsolvable-wire").mock(side_effect=handler)

    def openai_client(self, *, agent: str | None = None, **options: Any) -> openai.OpenAI:
        """An ``openai.OpenAI`` whose every request is answered here (default retries kept);
        with ``agent``, its base URL names that sub-agent."""
        require_module("openai")
        import openai

        options = sdk_options(options, self.httpx2_client, OPENAI_BASE_URL, agent)
        return openai.OpenAI(**options)

    def async_openai_client(
        self, *, agent: str | None = None, **options: Any
    ) -> openai.AsyncOpenAI:
        require_module("openai")
        import openai

        options = sdk_options(options, self.httpx2_async_client, OPENAI_BASE_URL, agent)
        client = openai.AsyncOpenAI(**options)
        probe_platform(client)
        return client

    def anthropic_client(self, *, agent: str | None = None, **options: Any) -> anthropic.Anthropic:
        require_module("anthropic")
        import anthropic

        options = sdk_options(options, self.httpx2_client, ANTHROPIC_BASE_URL, agent)
        return anthropic.Anthropic(**options)

    def async_anthropic_client(
        self, *, agent: str | None = None, **options: Any
    ) -> anthropic.AsyncAnthropic:
        require_module("anthropic")
        import anthropic

        make = self.httpx2_async_client
        options = sdk_options(options, make, ANTHROPIC_BASE_URL, agent)
        client = anthropic.AsyncAnthropic(**options)
        probe_platform(client)
        return client

    def gemini_client(self, *, agent: str | None = None, **options: Any) -> genai.Client:
        """A ``google.genai.Client`` (and its ``.aio``) whose every request is answered here;
        ``http_options``, a ``types.HttpOptions`` or a dict (``HttpOptionsDict``), is completed
        with this wire's base URL and httpx2 clients. An ``HttpOptions`` holds every field, most
        of them ``None``: those are left out, or its ``httpx_client=None`` would send the
        requests past the wire to the real API."""
        require_module("google.genai")
        from google import genai
        from google.genai import types

        given = dict(options.pop("http_options", None) or {})
        http: dict[str, Any] = {key: value for key, value in given.items() if value is not None}
        if "base_url" in http:
            options["base_url"] = http.pop("base_url")
        merged = sdk_options(options, self.httpx2_client, GEMINI_BASE_URL, agent)
        http.setdefault("base_url", merged.pop("base_url"))
        http.setdefault("httpx_client", merged.pop("http_client"))
        http.setdefault("httpx_async_client", self.httpx2_async_client())
        return genai.Client(http_options=types.HttpOptions(**http), **merged)
