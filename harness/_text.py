"""Consumes text an agent, a model or a user produced, and the objects an agent handed back,
produces the forms the harness keeps: the bounded form a record holds, the plain text of a
message's content however it is written, the form a folder name can hold, the form a terminal
shows."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from html import escape

__all__ = [
    "ERROR_CUT",
    "MISSING_CUT",
    "REASON_CUT",
    "cut",
    "cut_counted",
    "deeper_than",
    "described",
    "html_text",
    "kept_end",
    "plain_partial",
    "printable",
    "slug",
    "text_of",
]

ELLIPSIS = "…"
SLUG = r"[^A-Za-z0-9_.-]+"
"""What a folder name replaces; compiled on first use (``re`` caches it), not by every pytest
run that imports the plugin."""
PARTIAL_CUT = 100_000
"""Characters of a partial result's JSON kept in the record (of a text partial, of the text):
more is cut, and kept as text."""
ERROR_CUT = 2000
"""Characters of an exception's ``Type: message`` a record keeps: an agent's exception may carry
megabytes, which every report and terminal line would repeat."""
REASON_CUT = 10_000
"""Characters of a stop's reason, and of each input it names as missing, that a record keeps: a
reason is a sentence or a paragraph; an agent that puts its transcript there would make every
report and the record repeat megabytes."""
MISSING_CUT = 100
"""Inputs a stop may name as missing; more are cut, and an item says how many."""
PARTIAL_DEPTH = 64
"""Levels of nesting a partial result keeps: far beyond any real result, and far below the depth
at which encoding, copying or reading the record back would run out of stack."""


def cut(text: str, limit: int) -> str:
    """``text`` if it fits in ``limit`` characters, else its start and an ellipsis, ``limit``
    characters in all: records stay small and readable whatever the agent returned."""
    return text if len(text) <= limit else text[: limit - len(ELLIPSIS)] + ELLIPSIS


def kept_end(text: str, limit: int) -> str:
    """``text`` if it fits in ``limit`` characters, else an ellipsis and its end, ``limit``
    characters in all: the end of a stream is where it says why it stopped, and the ellipsis
    says where a cut was (the redactor looks there for a piece of a secret)."""
    return text if len(text) <= limit else ELLIPSIS + text[len(text) - limit + len(ELLIPSIS) :]


def slug(text: str) -> str:
    """``text`` as a folder name: ``pkg.module:agent`` → ``pkg.module.agent``."""
    return re.sub(SLUG, ".", text).strip(".") or "agent"


def text_of(content: object) -> str | None:
    """The text of a message's content, in any of the shapes the APIs and frameworks use: a
    string as it is; a list of content parts (or one part) as the texts of its parts joined, a
    part being a string or an object with a ``"text"`` string (images and the like have none);
    ``None`` for no content; anything else as its ``str``."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, Mapping):
        content = [content]
    if not isinstance(content, Iterable):
        return str(content)
    texts = [part.get("text") if isinstance(part, Mapping) else part for part in content]
    return "".join(text for text in texts if isinstance(text, str))


def cut_counted(text: str, limit: int) -> str:
    """``text`` if it fits in ``limit`` characters, else its first ``limit`` and how many more
    were cut: a record that keeps part of what an agent sent says so."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}{ELLIPSIS} ({len(text) - limit} more characters cut)"


ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def html_text(text: str) -> str:
    """``text`` as an HTML report shows it: `printable`, then escaped as markup, so that what an
    agent wrote (its name, a reason) reaches the page neither as markup nor as raw control
    characters."""
    return escape(printable(text))


def printable(text: str) -> str:
    """``text`` as a terminal or a report may show it: every character that does not print —
    a carriage return that would let a line be overwritten, an ANSI escape sequence that would
    recolour or erase it, a newline inside a cell, a right-to-left override — written as its
    escape (``\\r``, ``\\x1b``, ``\\u202e``), visible and inert."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else _escaped(ch) for ch in text)


def _escaped(ch: str) -> str:
    code = ord(ch)
    return ESCAPES.get(ch) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def described(value: object) -> str:
    """``repr(value)``, or what stands for it when the agent's ``__repr__`` raises."""
    try:
        return repr(value)
    except Exception as error:  # the agent's own code, run for the record
        return f"<{type(value).__name__} object; its repr raised {type(error).__name__}>"


def deeper_than(value: object, limit: int) -> bool:
    """Whether lists and dicts inside ``value`` nest more than ``limit`` levels, looked at level
    by level, without the recursion such a value would exhaust."""
    level: list[object] = [value]
    for _ in range(limit + 1):
        level = [
            item
            for held in level
            if isinstance(held, list | tuple | dict)
            for item in (held.values() if isinstance(held, dict) else held)
        ]
        if not level:
            return False
    return True


def plain_partial(partial: object) -> object:
    """A partial result as a record keeps it: itself when it is JSON (no ``NaN``, keys that
    sort), nested at most `PARTIAL_DEPTH` levels and at most `PARTIAL_CUT` characters written;
    otherwise its JSON or its repr, cut, as text. Text is cut to `PARTIAL_CUT` characters of
    its own, never written as JSON: a record read back (a worker's, a ``--json`` file's) passes
    here again, and its JSON would escape the quotes of the text kept once more each time."""
    if isinstance(partial, str):
        return cut(partial, PARTIAL_CUT)
    if deeper_than(partial, PARTIAL_DEPTH):
        return f"(a {type(partial).__name__} nested more than {PARTIAL_DEPTH} levels; not kept)"
    try:
        text = json.dumps(partial, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError):
        return cut(described(partial), PARTIAL_CUT)
    return partial if len(text) <= PARTIAL_CUT else cut(text, PARTIAL_CUT)
