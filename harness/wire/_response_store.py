"""Consumes the responses a wire serves in a format with ids to continue by (the Responses API's),
produces the conversation a later request that continues one of them (`Turn.continues`) stands
for, or the API's refusal.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from unsolvable._frozen import freeze
from unsolvable._types import JSON
from unsolvable.wire._errors import WireFormatError
from unsolvable.wire._responses import no_call_for, no_output_for
from unsolvable.wire._turn import Turn

__all__ = ["ResponseStore"]


@dataclass(frozen=True, kw_only=True)
class _Stored:
    """A served response that a later request may continue (`Turn.continues`)."""

    previous: str | None
    """The response its own request continued, if any."""
    messages: tuple[JSON, ...]
    """What its request added to the conversation (instructions aside) and the reply, as the
    agent spells them on the wire, frozen."""


class ResponseStore:
    """The responses of one wire that a later request may continue, by id, guarded by its own
    lock, since transports and the loopback server serve from several threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stored: dict[str, _Stored] = {}

    def conversation(self, turn: Turn) -> list[JSON]:
        """The turn's messages, after those of the responses it continues
        (`Turn.continues`), which its request does not send again; instructions (system
        messages) are not carried over, as in the Responses API."""
        if turn.continues is None:
            return turn.messages
        earlier: list[tuple[JSON, ...]] = []
        with self._lock:
            previous: str | None = turn.continues
            while previous is not None:
                stored = self._stored.get(previous)
                if stored is None:  # never served, or served with "store": false
                    raise WireFormatError(
                        f"Previous response with id '{previous}' not found.",
                        param="previous_response_id",
                        code="previous_response_not_found",
                    )
                earlier.append(stored.messages)
                previous = stored.previous
        history = [message for added in reversed(earlier) for message in added]
        system = [m for m in turn.messages if m.get("role") == "system"]
        rest = [m for m in turn.messages if m.get("role") != "system"]
        _require_outputs(history, rest)
        return [*system, *history, *rest]

    def keep(self, response_id: str | None, turn: Turn, reply: JSON) -> None:
        """Keeps what a later request needs to continue this response, if its format has ids
        to continue by."""
        if response_id is None:
            return
        added = [m for m in turn.messages if m.get("role") != "system"]
        stored = _Stored(previous=turn.continues, messages=tuple(freeze([*added, reply])))
        with self._lock:
            self._stored[response_id] = stored


def _require_outputs(history: list[JSON], added: list[JSON]) -> None:
    """The calls of the response a request continues (the last of its ``history``) each answered
    by a result among what the request ``added``, and each result answering a call made, or the
    Responses API's refusal: an agent that continues a response and drops a result is refused
    in production. (The format checks a request's own items, `Turn.continues` aside.)"""
    answered = {str(m.get("tool_call_id")) for m in added if m.get("role") == "tool"}
    asked = [
        str(call.get("id")) for call in (history[-1] if history else {}).get("tool_calls") or ()
    ]
    unanswered = [call for call in asked if call not in answered]
    if unanswered:
        raise no_output_for(unanswered[0])
    made = {str(call.get("id")) for m in (*history, *added) for call in m.get("tool_calls") or ()}
    orphans = sorted(answered - made)
    if orphans:
        raise no_call_for(orphans[0])
