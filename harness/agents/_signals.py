"""Consumes tool results and a conversation, produces what the `contract` agent reads from them
beyond novelty: the error a result reports, a wait (a pending job, or a dependency that says when
to come back), how long a dependency asks to be left alone, an action only a person may
approve, a record that does not exist, and a conversation compacted to fit a context window.

Result fields are read wherever a seed's dialect puts them (camelCase, nested under ``data``).
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from unsolvable._types import JSON
from unsolvable.agents._fingerprint import parse, snake

__all__ = [
    "NotFound",
    "compacted",
    "error_details",
    "is_waiting",
    "needs_a_person",
    "not_found",
    "wait_hint",
]

CONFIRMATION = "confirmation_required"
"""The ``status`` of an action waiting for ``confirm=true``."""
NOT_FOUND_STATUS = 404
QUOTED = re.compile(r"'([^']+)'")
"""What a not-found message names, in quotes."""
WAITING_STATUSES = frozenset({"pending", "queued", "running", "in_progress"})
"""Job states that promise an answer later: polling them is waiting, not looping."""
COMPACTED_CHARS = 400
"""Characters of a tool result a compaction keeps: its head (what most results open with: a
title, a summary, a status), about a hundred tokens."""


def _details(body: Any) -> dict[str, Any]:
    details = body.get("error") if isinstance(body, dict) else None
    return details if isinstance(details, dict) else {}


def _found(body: Any, key: str) -> Any:
    """The value of the first member named ``key`` (in any spelling) at any depth."""
    if isinstance(body, dict):
        for name, value in body.items():
            if snake(name) == key:
                return value
        for value in body.values():
            found = _found(value, key)
            if found is not None:
                return found
    return None


def error_details(result: str) -> dict[str, Any]:
    """The ``error`` a result reports (empty when it reports none)."""
    return _details(parse(result))


def is_waiting(result: str) -> bool:
    """A pending job, or a dependency that says when to come back."""
    body = parse(result)
    status = body.get("status") if isinstance(body, dict) else None
    return status in WAITING_STATUSES or "retry_after" in _details(body)


def wait_hint(result: str) -> float:
    """Seconds a dependency asks to be left alone: a 503's ``retry_after``, or a job's."""
    body = parse(result)
    hint = _details(body).get("retry_after")
    if hint is None and isinstance(body, dict):
        hint = body.get("retry_after")
    return float(hint) if isinstance(hint, int | float) else 0.0


def needs_a_person(result: str) -> str | None:
    """The message of an action that waits for a confirmation and cannot be undone: only a
    person may give that one. ``None`` for anything else (a reversible action is the agent's
    to confirm)."""
    body = parse(result)
    if not isinstance(body, dict) or body.get("status") != CONFIRMATION:
        return None
    if _found(body, "irreversible") is not True:
        return None
    return str(_found(body, "message") or "an irreversible action waits for approval")


class NotFound(NamedTuple):
    """A lookup answered "not found"."""

    message: str
    names: tuple[str, ...]
    """What the message quotes: what the system of record does not hold."""


def not_found(result: str) -> NotFound | None:
    """A 404's message and the names it quotes."""
    details = error_details(result)
    if details.get("status") != NOT_FOUND_STATUS:
        return None
    message = str(details.get("message", "not found"))
    return NotFound(message=message, names=tuple(QUOTED.findall(message)))


def compacted(messages: list[JSON]) -> list[JSON]:
    """``messages`` with each long tool result cut to its head, the way agents compact a
    conversation that no longer fits: the task and the turns stay, bulk goes."""
    kept = []
    for message in messages:
        content = message.get("content")
        if message.get("role") == "tool" and isinstance(content, str):
            message = {**message, "content": _head(content)}
        kept.append(message)
    return kept


def _head(text: str) -> str:
    if len(text) <= COMPACTED_CHARS:
        return text
    return f"{text[:COMPACTED_CHARS]} … [compacted: {len(text) - COMPACTED_CHARS} characters]"
