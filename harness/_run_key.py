"""Consumes a run, produces its key — a random path segment in every loopback URL the run hands
an agent — and reads requests back without it, or refuses them.

Any process on the machine can reach 127.0.0.1: the wire's loopback server and the MCP server
answer only a request whose path holds the run's key as one of its segments, wherever a client
put it (first, as in the URLs handed out, or after an agent's name, where naming an agent on a
base URL puts it). Both servers read it here, so the two faces refuse alike.
"""

from __future__ import annotations

import hmac
import secrets

__all__ = ["KEY_BYTES", "new_key", "unkeyed"]

KEY_BYTES = 16
"""Random bytes of a run's key: guessing it is out of reach, and it fits in one path segment."""


def new_key() -> str:
    return secrets.token_hex(KEY_BYTES)


def unkeyed(path: str, key: str) -> str | None:
    """``path`` (and its query) without the segment that is ``key``; ``None`` when it holds no
    such segment. Each segment is compared in constant time: how long a refusal takes tells
    nothing of the key."""
    head, mark, query = path.partition("?")
    segments = head.split("/")
    for index, segment in enumerate(segments):
        if hmac.compare_digest(segment.encode(), key.encode()):
            rest = "/".join(segments[:index] + segments[index + 1 :])
            return (rest if rest.startswith("/") else "/" + rest) + mark + query
    return None
