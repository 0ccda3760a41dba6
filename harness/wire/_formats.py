"""Consumes a request's path, produces the wire format that answers it: every format the fake
model speaks, in one list that the wire and the loopback server's refusals both read."""

from __future__ import annotations

from unsolvable.wire._anthropic import ANTHROPIC_MESSAGES
from unsolvable.wire._chat import CHAT_COMPLETIONS
from unsolvable.wire._gemini import GEMINI, GEMINI_STREAM
from unsolvable.wire._responses import RESPONSES
from unsolvable.wire._turn import WireFormat

__all__ = ["FORMATS", "format_of"]

FORMATS: tuple[WireFormat, ...] = (
    CHAT_COMPLETIONS,
    RESPONSES,
    ANTHROPIC_MESSAGES,
    GEMINI,
    GEMINI_STREAM,
)
"""Every wire format the fake model speaks, each found by the end of a request's path."""


def format_of(path: str) -> WireFormat | None:
    """The format a request's path (its query, if any, left out) asks for."""
    path = path.partition("?")[0].rstrip("/")
    return next((fmt for fmt in FORMATS if path.endswith(fmt.path_suffix)), None)
