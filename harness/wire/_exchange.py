"""Consumes HTTP requests from any client library, produces transport-neutral requests/responses.

The fake wire speaks plain bytes so that httpx, httpx2, respx and the loopback server share one
handler; nothing here imports an HTTP library.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from unsolvable._json import sorted_json
from unsolvable._types import JSON

__all__ = [
    "FAKE_API_KEY",
    "Address",
    "Handler",
    "WireRequest",
    "WireResponse",
    "address",
    "encode_sse",
    "reading_json",
    "redact_url",
]

FAKE_API_KEY = "sk-unsolvable-fake-key"
"""The key fake clients are built with: SDKs refuse to start without one, and it is worthless.
It lives here, not beside `Wire`, so the clients and the server can name it without importing
the module that imports them."""

TOO_DEEP = (
    "unsolvable: the JSON body is nested too deeply for the harness to read; send it nested "
    "less deeply"
)
"""Why a body nested past what the interpreter's recursion reaches is refused."""
REDACTED = "redacted"
"""What a query value becomes in anything the harness keeps: some APIs take keys as ``?key=``."""


@contextlib.contextmanager
def reading_json() -> Iterator[None]:
    """Reads a request's JSON, raising `ValueError` as malformed JSON does for a body nested too
    deeply to read, not `RecursionError`: the agent's mistake, to be refused 400 as the APIs
    refuse a body they cannot parse, never a failure of the harness."""
    try:
        yield
    except RecursionError:
        raise ValueError(TOO_DEEP) from None


def redact_url(url: str) -> str:
    """``url`` without credentials: userinfo dropped, every query value replaced."""
    return address(url).safe_url


class Address(NamedTuple):
    """What routing and the record read from a URL."""

    host: str
    path: str
    query: str
    safe_url: str


def address(url: str) -> Address:
    """``url``'s parts: the host (with its port) lower-cased, the path (``/`` at least), the
    query, and the URL as it may be kept (no credentials, no query values)."""
    parts = urlsplit(url)
    netloc = parts.hostname or ""
    if parts.port is not None:
        netloc = f"{netloc}:{parts.port}"
    query = "&".join(f"{key}={REDACTED}" for key, _ in parse_qsl(parts.query, True))
    safe_url = urlunsplit((parts.scheme, netloc, parts.path, query, ""))
    return Address(netloc.lower(), parts.path or "/", parts.query, safe_url)


@dataclass(frozen=True, kw_only=True)
class WireRequest:
    """One HTTP request as the fake wire sees it."""

    method: str
    url: str
    body: bytes = b""
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    """Never copied into a record or a message: ``Authorization`` and ``x-api-key`` live here."""

    @property
    def host(self) -> str:
        """``host`` or ``host:port`` as written in the URL, lower-cased."""
        return address(self.url).host

    @property
    def path(self) -> str:
        return address(self.url).path

    @property
    def query(self) -> dict[str, str]:
        return dict(parse_qsl(address(self.url).query, True))

    @property
    def safe_url(self) -> str:
        """The URL as it may appear in a record or an error message."""
        return address(self.url).safe_url

    def json(self) -> object:
        """The body parsed as JSON; an empty body is ``None``."""
        if not self.body.strip():
            return None
        with reading_json():
            return json.loads(self.body)


@dataclass(frozen=True, kw_only=True)
class WireResponse:
    """What the fake wire answers: a status, headers and the whole body (SSE included)."""

    status: int
    body: bytes
    headers: tuple[tuple[str, str], ...] = ()

    @classmethod
    def json(
        cls, data: object, *, status: int = 200, headers: Mapping[str, str] | None = None
    ) -> WireResponse:
        """``data`` as its sorted JSON: the same reply gives the same bytes."""
        extra = _headers("application/json", headers or {})
        return cls(status=status, body=sorted_json(data).encode(), headers=extra)

    @classmethod
    def text(
        cls, text: str, *, status: int = 200, content_type: str = "text/plain"
    ) -> WireResponse:
        return cls(status=status, body=text.encode(), headers=_headers(content_type, {}))

    @classmethod
    def sse(cls, events: Iterable[tuple[str | None, JSON | str]]) -> WireResponse:
        """A stream of server-sent events (`encode_sse`), sent whole."""
        headers = _headers("text/event-stream", {"cache-control": "no-cache"})
        return cls(status=200, body=encode_sse(events).encode(), headers=headers)

    def with_headers(self, headers: Mapping[str, str]) -> WireResponse:
        """This response with ``headers`` added."""
        return WireResponse(
            status=self.status, body=self.body, headers=(*self.headers, *headers.items())
        )


def _headers(content_type: str, extra: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    return (("content-type", content_type), *extra.items())


def encode_sse(events: Iterable[tuple[str | None, JSON | str]]) -> str:
    """Server-sent events: an optional ``event:`` line, one ``data:`` line, a blank line."""
    lines = []
    for event, data in events:
        if event is not None:
            lines.append(f"event: {event}")
        payload = data if isinstance(data, str) else sorted_json(data)
        lines.extend((f"data: {payload}", ""))
    return "\n".join(lines) + "\n"


class Handler(Protocol):
    """What the mock transports and the loopback server serve (a `Wire`): they know it by this
    alone, so the wire imports them and they never import it."""

    def handle(self, request: WireRequest) -> WireResponse:
        """The answer to ``request``; raises `StrayRequest` when no fake route matches it."""
        ...

    def refused(self, request: WireRequest, response: WireResponse) -> None:
        """``request`` was refused with ``response`` before its body could be read (too large,
        compressed, cut short): the wire did not answer it, but it was made all the same."""
        ...

    def add_host(self, netloc: str) -> None:
        """Answers on ``netloc`` too (a loopback server's address)."""
        ...

    def remove_host(self, netloc: str) -> None:
        """Stops answering on ``netloc``."""
        ...
