"""No test may reach a network: every connection and name lookup beyond 127.0.0.1 is refused.

The wire faces must answer everything in-process or on loopback; if one ever lets a request
through, this guard turns it into a loud failure instead of a call to a real API.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest

LOOPBACK = {"127.0.0.1", "localhost", "::1"}
API_KEYS = (
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "OPENAI_BASE_URL",
    "ANTHROPIC_BASE_URL",
    "GOOGLE_GEMINI_BASE_URL",
)


class NetworkRefused(OSError):
    """A test tried to reach a host other than loopback."""


def _is_loopback(address: Any) -> bool:
    if isinstance(address, tuple) and address:
        return str(address[0]) in LOOPBACK
    return isinstance(address, str | bytes)  # AF_UNIX paths are local


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Refuses non-loopback connects and lookups, and hides any real API key or base URL. Yields
    what was refused, so a test can also catch an attempt the code under test swallowed (a
    telemetry thread that ignores its errors)."""
    real_connect, real_lookup = socket.socket.connect, socket.getaddrinfo
    refused: list[str] = []

    def connect(self: socket.socket, address: Any) -> None:
        if not _is_loopback(address):
            refused.append(f"connect {address!r}")
            raise NetworkRefused(f"test tried to connect to {address!r}")
        real_connect(self, address)

    def lookup(host: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else host
        if name is not None and name not in LOOPBACK:
            refused.append(f"resolve {host!r}")
            raise NetworkRefused(f"test tried to resolve {host!r}")
        return real_lookup(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket, "getaddrinfo", lookup)
    for name in API_KEYS:
        monkeypatch.delenv(name, raising=False)
    yield refused
