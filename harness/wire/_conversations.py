"""Consumes the model requests of a wire's conversations (one format, one path: an agent's),
produces each request's `Turn`, parsing and converting only what its body adds to its
conversation's previous body, so a request's cost does not grow with the conversation.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from unsolvable.wire._body import BodyReader
from unsolvable.wire._errors import WireFormatError, json_object, require_body, shape_error
from unsolvable.wire._exchange import WireRequest
from unsolvable.wire._turn import Turn, WireFormat

__all__ = ["Conversations"]


@dataclass(kw_only=True)
class _Conversation:
    """The requests of one conversation (one format, one path: an agent's): the reader of its
    bodies, and the turn read last, whose messages a request that repeats its items takes
    again (`WireFormat.read`)."""

    reader: BodyReader
    turn: Turn | None = None


class Conversations:
    """The conversations of one wire, each with its last reading, guarded by their own lock,
    since transports and the loopback server serve from several threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._conversations: dict[tuple[str, str], _Conversation] = {}

    def read(self, fmt: WireFormat, request: WireRequest) -> Turn:
        """The request's turn, read by its conversation's reader: only what its body adds to the
        conversation's previous body is parsed and converted. A body that cannot be read ends
        the conversation (the next is read afresh)."""
        require_body(request)
        key = (fmt.name, request.path)
        with self._lock:
            conversation = self._conversations.get(key)
            if conversation is None:
                conversation = _Conversation(reader=BodyReader(fmt.conversation))
                self._conversations[key] = conversation
            try:
                reading = conversation.reader.read(request.body)
                earlier = conversation.turn
                if earlier is not None and reading.repeated != earlier.items:
                    earlier = None
                conversation.turn = fmt.read(json_object(reading.body), earlier, url=request.url)
            except (ValueError, WireFormatError):
                del self._conversations[key]
                raise
            except (AttributeError, KeyError, TypeError) as error:
                # A member of another type than its API takes (a string where it takes an
                # object) is the agent's error, answered as the API answers it: a final 400.
                del self._conversations[key]
                raise WireFormatError(shape_error(fmt.name, error)) from None
            return conversation.turn
