"""Consumes a `Wire`, produces what HTTP clients plug into: mock transports for httpx and httpx2,
respx routes, and the option set for an SDK client. No process-wide patching: only respx's own
router patches httpx, and only while it is active.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from harness._errors import AdapterError
from harness.wire._exchange import FAKE_API_KEY, WireRequest

if TYPE_CHECKING:
    import respx

    from harness.wire._wire import Wire

__all__ = ["mock_transport", "mount", "respx_router", "sdk_options"]

EXTRAS = {
    "httpx2": "http",
    "httpx": "http",
    "respx": "http",
    "openai": "openai",
    "anthropic": "anthropic",
}
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


def _handler(wire: Wire, module: Any) -> Callable[[Any], Any]:
    """A request handler for ``module`` (httpx or httpx2: the same API, different classes)."""

    def handle(request: Any) -> Any:
        wire_request = WireRequest(
            method=request.method,
            url=str(request.url),
            body=request.content,
            headers=dict(request.headers),
        )
        response = wire.handle(wire_request)
        return module.Response(
            response.status, headers=list(response.headers), content=response.body
        )

    return handle


def mock_transport(wire: Wire, module_name: str) -> Any:
    """``module.MockTransport`` over the wire; serves sync and async clients alike."""
    module = require_module(module_name)
    return module.MockTransport(_handler(wire, module))


def mount(wire: Wire, router: respx.Router) -> None:
    """The wire as a catch-all route: it matches by itself and raises on strays."""
    router.route(name="unsolvable-wire").mock(side_effect=_handler(wire, require_module("httpx")))


def respx_router(wire: Wire, **options: Any) -> respx.MockRouter:
    respx = require_module("respx")
    options.setdefault("assert_all_called", False)
    router = respx.MockRouter(**options)
    mount(wire, router)
    return router  # type: ignore[no-any-return]


def sdk_options(
    options: Mapping[str, Any], make_client: Callable[[], Any], base_url: str
) -> dict[str, Any]:
    """An SDK client's options: the fake key and base URL unless given, and our transport."""
    merged = {"api_key": FAKE_API_KEY, "base_url": base_url, **options}
    merged.setdefault("http_client", make_client())
    return merged
