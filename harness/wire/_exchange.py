"""Consumes HTTP requests from any client library, produces transport-neutral requests/responses.

The fake wire speaks plain bytes so that httpx, httpx2, respx and the loopback server share one
handler; nothing here imports an HTTP library.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from unsolvable._json import sorted_json
from unsolvable._types import JSON

__all__ = [
    "FAKE_API_KEY",
    "Address",
    "WireRequest",
    "WireResponse",
    "address",
    "encode_sse",
    "redact_url",
]

FAKE_API_KEY = "sk-unsolvable-fake-key"
"""The key fake clients are built with: SDKs refuse to start without one, and it is worthless.
It lives here, not beside `Wire`, so the clients and the server can name it without importing
the module that imports them."""

REDACTED = "redacted"
"""What a query value becomes in anything the harness keeps: some APIs take keys as ``?key=``."""
ADDRESS_MEMO = 256
"""URLs whose parts are kept (`address`): an agent calls the same few URLs again and again."""


def redact_url(url: str) -> str:
    """``url`` without credentials: userinfo dropped, every query value replaced."""
    return address(url).safe_url


class Address(NamedTuple):
    """What routing and the record read from a URL."""

    host: str
    path: str
    query: str
    safe_url: str


@lru_cache(maxsize=ADDRESS_MEMO)
def address(url: str) -> Address:
    """``url``'s parts, split once per URL rather than once per request: a model request's URL
    is the same every call, and splitting and redacting it took nearly a tenth of the wire's
    time."""
    parts = urlsplit(url)
    netloc = parts.hostname or ""
    if parts.port is not None:
        netloc = f"{netloc}:{parts.port}"
    query = "&".join(f"{key}={REDACTED}" for key, _ in parse_qsl(parts.query, True))
    safe_url = urlunsplit((parts.scheme, netloc, parts.path, query, ""))
    return Address(netloc.lower(), parts.path or "/", parts.query, safe_url)


@dataclass(slots=True)
class WireRequest:
    """One HTTP request as the fake wire sees it; headers are used for matching only.

    Slotted, not frozen, and built by position: the wire makes one every call, a frozen
    dataclass costs twice as much to build, and keywords to a class reach its ``__init__``
    through a dict (these four were 23,000 instructions of a call)."""

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
        return json.loads(self.body) if self.body.strip() else None


@dataclass(slots=True)
class WireResponse:
    """What the fake wire answers: a status, headers and the whole body (SSE included).

    Slotted, not frozen, and built by position: the wire makes one every call, a frozen
    dataclass costs twice as much to build, and keywords to a class reach its ``__init__``
    through a dict (these four were 23,000 instructions of a call)."""

    status: int
    body: bytes
    headers: tuple[tuple[str, str], ...] = ()

    @classmethod
    def json(
        cls, data: object, *, status: int = 200, headers: Mapping[str, str] | None = None
    ) -> WireResponse:
        return cls.json_text(sorted_json(data), status=status, headers=headers)

    @classmethod
    def json_text(
        cls, text: str, *, status: int = 200, headers: Mapping[str, str] | None = None
    ) -> WireResponse:
        """A JSON body already written (`unsolvable.wire._json_text`)."""
        extra = _JSON_HEADERS if headers is None else _headers("application/json", headers)
        return cls(status, text.encode(), extra)

    @classmethod
    def text(
        cls, text: str, *, status: int = 200, content_type: str = "text/plain"
    ) -> WireResponse:
        return cls(status, text.encode(), _headers(content_type, {}))

    @classmethod
    def sse(cls, events: Iterable[tuple[str | None, JSON | str]]) -> WireResponse:
        return cls.sse_text(encode_sse(events))

    @classmethod
    def sse_text(cls, text: str) -> WireResponse:
        """A stream of server-sent events already written, as `encode_sse` writes them."""
        return cls(200, text.encode(), _SSE_HEADERS)


def _headers(content_type: str, extra: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    return (("content-type", content_type), *extra.items())


_JSON_HEADERS = _headers("application/json", {})
_SSE_HEADERS = _headers("text/event-stream", {"cache-control": "no-cache"})


def encode_sse(events: Iterable[tuple[str | None, JSON | str]]) -> str:
    """Server-sent events: an optional ``event:`` line, one ``data:`` line, a blank line."""
    lines = []
    for event, data in events:
        if event is not None:
            lines.append(f"event: {event}")
        payload = data if isinstance(data, str) else sorted_json(data)
        lines.extend((f"data: {payload}", ""))
    return "\n".join(lines) + "\n"
