"""Consumes a sub-agent's name or a request's URL, produces which agent of a multi-agent system a
request speaks for: the name is the path's first two segments, ``/agents/<name>/…``.

The path is the one carrier of the name, so every face binds an agent the same way: an SDK client
by its base URL, an httpx transport by the URLs it forwards, a process by the base URL it is
told. A request that names no agent is the session's default agent (``main``).
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

from unsolvable._errors import AdapterError
from unsolvable.wire._errors import WIRE_DOCS
from unsolvable.wire._exchange import redact_url

__all__ = ["AGENTS_SEGMENT", "agent_url", "check_agent", "split_agent"]

AGENTS_SEGMENT = "agents"
"""The path segment before an agent's name: ``https://api.openai.com/agents/worker-1/v1``."""
AGENT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
"""A name that is one URL path segment as written, so it reads back unchanged from any client."""


def check_agent(name: object) -> str:
    """``name`` if it can name an agent in a URL path; an `AdapterError` saying why not."""
    if not isinstance(name, str) or not AGENT_NAME.fullmatch(name):
        raise AdapterError(
            f"unsolvable: {name!r} cannot name an agent on the wire; use 1 to 64 letters, "
            f"digits, '.', '_' or '-', starting with a letter or digit (agent='worker-1'). "
            f"See {WIRE_DOCS}"
        )
    return name


def split_agent(path: str) -> tuple[str | None, str]:
    """The agent a path names and the path without it: ``/agents/w-1/v1/x`` → ``("w-1",
    "/v1/x")``; a path that names none is returned as it is, with ``None``."""
    segments = path.split("/", 3)
    if len(segments) < 3 or segments[0] or segments[1] != AGENTS_SEGMENT:
        return None, path
    if not AGENT_NAME.fullmatch(segments[2]):
        return None, path
    return segments[2], "/" + (segments[3] if len(segments) > 3 else "")


def agent_url(url: str, agent: str) -> str:
    """``url`` with ``agent`` named in its path (``https://h/v1`` → ``https://h/agents/a/v1``).

    A URL that already names ``agent`` is returned unchanged; one that names another agent is a
    contradiction, refused with a `ValueError` naming both."""
    check_agent(agent)
    parts = urlsplit(url)
    named, _ = split_agent(parts.path or "/")
    if named == agent:
        return url
    if named is not None:
        raise ValueError(
            f"unsolvable: {redact_url(url)} names agent {named!r}, but its client is bound "
            f"to {agent!r}; bind the client with agent= or give it the agent's base URL, not both"
        )
    rest = parts.path if parts.path not in ("", "/") else ""
    path = f"/{AGENTS_SEGMENT}/{agent}{rest}"
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, parts.fragment))
