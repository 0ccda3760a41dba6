"""Consumes the conversations an agent sends, produces their token counts: exactly what counting
each one from scratch gives, without encoding again a message already counted.

An agent re-sends its whole conversation every call. Encoding all of it every call would make a
run's cost grow with the square of its length, so each message's count is kept beside a frozen
copy of the message, position by position, and reused while the message sent at that position
still equals the copy. The copy is a value, not the agent's object: an agent that edits an
earlier message in place, trims old tool results, or starts another conversation sends messages
that differ from the copies, and those are counted again. Comparing is still one pass over the
conversation per call, but a cheap one (an equality test where encoding writes text).

Python's ``==`` takes ``1``, ``1.0`` and ``True`` for one another, where JSON writes three
different texts; a message holding a number or a boolean anywhere is therefore never reused by
equality, but counted afresh every call (chat messages hold strings, so that costs nothing in
practice). A message that is frozen already (the wire's, which it reads once and hands on again,
call after call) is its own copy: the same immutable object is the same value, whatever it
holds, and needs no walk through its members.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any, NamedTuple

from unsolvable._frozen import freeze
from unsolvable._json import canonical_json
from unsolvable._model import estimate_message_tokens
from unsolvable._types import JSON

__all__ = ["Counted", "Tally"]


class _Uncompared:
    """Stands for a message whose count is never reused: equal to nothing."""

    def __eq__(self, other: object) -> bool:
        return False

    __hash__ = None  # type: ignore[assignment]


UNCOMPARED = _Uncompared()


def comparable(value: Any) -> bool:
    """Whether ``==`` on ``value`` agrees with its canonical JSON: objects with string keys,
    arrays, strings and nulls only."""
    if isinstance(value, str) or value is None:
        return True
    if isinstance(value, dict):
        return all(isinstance(key, str) for key in value) and all(map(comparable, value.values()))
    if isinstance(value, list):
        return all(map(comparable, value))
    return False


class Counted(NamedTuple):
    """A conversation as counted: what the model is handed and what it costs."""

    messages: tuple[JSON, ...]
    """The messages sent, frozen (`unsolvable._frozen`)."""
    tokens: tuple[int, ...]
    """Each message's estimated tokens (`estimate_message_tokens`)."""
    continued: bool
    """Whether the messages open with every message the tally counted last, unchanged: the
    conversation sent last, carried on, not a fresh one or one rewritten."""

    @property
    def total(self) -> int:
        return sum(self.tokens)


class Tally:
    """The counts of one agent's conversation, kept between its calls."""

    def __init__(self) -> None:
        self._frozen: list[JSON] = []
        """The messages last counted, position by position, frozen."""
        self._keys: list[object] = []
        """What each position's next message is compared with: its frozen copy, or
        `UNCOMPARED` when ``==`` cannot tell its JSON apart (`comparable`)."""
        self._tokens: list[int] = []

    def count(self, messages: Sequence[JSON]) -> Counted:
        """The count of ``messages``: each message that is, or equals, the one counted at its
        position is taken from before, every other one counted now."""
        sent = list(messages)  # the agent's list may change once the call returns
        last = len(self._keys)
        kept = min(len(sent), last)
        continued = bool(last) and len(sent) >= last
        del self._frozen[kept:], self._keys[kept:], self._tokens[kept:]
        again = sent[:kept]
        # A frozen message handed back (the wire's, which reads an unchanged message once) is
        # its own copy, and the same object is the same value: no walk through its members.
        if not all(map(operator.is_, again, self._frozen)) and not all(
            map(operator.eq, again, self._keys)
        ):
            for at, message in enumerate(again):
                if message is not self._frozen[at] and message != self._keys[at]:
                    continued = continued and self._same_text(at, message)
                    self._note(at, message)
        for message in sent[kept:]:
            self._note(len(self._keys), message)
        return Counted(
            messages=tuple(self._frozen), tokens=tuple(self._tokens), continued=continued
        )

    def _same_text(self, at: int, message: JSON) -> bool:
        """Whether ``message``, unequal to the key at ``at``, is none the less the message
        counted there: only where ``==`` cannot tell its JSON apart (`UNCOMPARED`), so their
        canonical JSON is compared."""
        return self._keys[at] is UNCOMPARED and canonical_json(message) == canonical_json(
            self._frozen[at]
        )

    def _note(self, at: int, message: JSON) -> None:
        """Counts ``message`` and keeps its copy at position ``at`` (the next one or one
        held)."""
        frozen = freeze(message)
        key = frozen if comparable(message) else UNCOMPARED
        tokens = estimate_message_tokens(message)
        if at == len(self._keys):
            self._frozen.append(frozen)
            self._keys.append(key)
            self._tokens.append(tokens)
        else:
            self._frozen[at], self._keys[at], self._tokens[at] = frozen, key, tokens
