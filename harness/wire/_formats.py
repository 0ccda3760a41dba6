"""Consumes a request's path, produces the wire format that answers it, or the token-counting
route: every format the fake model speaks and every count it answers, in two lists that the
wire and the loopback server's refusals both read."""

from __future__ import annotations

from unsolvable.wire._anthropic import ANTHROPIC_COUNT_TOKENS, ANTHROPIC_MESSAGES
from unsolvable.wire._chat import CHAT_COMPLETIONS
from unsolvable.wire._gemini import GEMINI, GEMINI_COUNT_TOKENS, GEMINI_STREAM
from unsolvable.wire._responses import RESPONSES, RESPONSES_INPUT_TOKENS
from unsolvable.wire._turn import TokenCount, WireFormat

__all__ = ["COUNTS", "FORMATS", "count_of", "format_of"]

FORMATS: tuple[WireFormat, ...] = (
    CHAT_COMPLETIONS,
    RESPONSES,
    ANTHROPIC_MESSAGES,
    GEMINI,
    GEMINI_STREAM,
)
"""Every wire format the fake model speaks, each found by the end of a request's path."""
COUNTS: tuple[TokenCount, ...] = (
    RESPONSES_INPUT_TOKENS,
    ANTHROPIC_COUNT_TOKENS,
    GEMINI_COUNT_TOKENS,
)
"""Every token-counting route the fake model answers, found as the formats are; Chat
Completions has none."""


def format_of(path: str) -> WireFormat | None:
    """The format a request's path (its query, if any, left out) asks for."""
    path = _bare(path)
    return next((fmt for fmt in FORMATS if path.endswith(fmt.path_suffix)), None)


def count_of(path: str) -> TokenCount | None:
    """The token count a request's path (its query, if any, left out) asks for."""
    path = _bare(path)
    return next((count for count in COUNTS if path.endswith(count.path_suffix)), None)


def _bare(path: str) -> str:
    """``path`` as a route's suffix ends it: no query, no trailing slash."""
    return path.partition("?")[0].rstrip("/")
