"""Consumes a `Handler` (a `Wire`), produces what HTTP clients plug into: mock transports for
httpx and httpx2, respx routes, and the option set for an SDK client. No process-wide patching:
only respx's own router patches httpx, and only while it is active.
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
    import respx

__all__ = ["mock_transport", "mount", "respx_router", "sdk_options"]

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


def mount(wire: Handler, router: respx.Router) -> None:
    """The wire as a catch-all route: it matches by itself and raises on strays."""
    handler = _handler(wire, require_module("httpx"), None)
    router.route(name="unsolvable-wire").mock(side_effect=handler)


def respx_router(wire: Handler, **options: Any) -> respx.MockRouter:
    respx = require_module("respx")
    options.setdefault("assert_all_called", False)
    router = respx.MockRouter(**options)
    mount(wire, router)
    return router  # type: ignore[no-any-return]


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
