"""Consumes tool calls and tool results, produces fingerprints that ignore what does not matter.

Volatile ids, case and spacing change the bytes of a call or a result but not its meaning; a
fingerprint that kept them would let a stuck model look busy forever.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

__all__ = [
    "action_fingerprint",
    "information_fingerprint",
    "observation_fingerprint",
    "parse",
    "progress_figures",
    "snake",
]

VOLATILE_KEY = re.compile(r"(^|_)(id|ids|uuid|timestamp|time|at|nonce|etag)$", re.IGNORECASE)
"""Keys such as ``request_id``, ``trace_id``, ``created_at``: set per call, never progress."""
PROGRESS_KEY = re.compile(r"(^|_)(progress|percent|percentage|pct|completion)($|_)", re.IGNORECASE)
"""Keys that name their number a share of the work done, as APIs that report progress name it
(a job's ``progress``, an upload's ``percent``, ``pct_done``, ``completion``): when it rises, the
work is really getting somewhere, though the rest of the answer looks the same."""
WORD_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
"""Where a camelCase key starts a new word: ``percentIndexed`` and ``requestId`` are read as
``percent_indexed`` and ``request_id``, since APIs spell the same field both ways."""


def snake(key: object) -> str:
    """``key`` in snake case, however an API spells it."""
    return WORD_BOUNDARY.sub("_", str(key))


def parse(text: str) -> Any:
    """JSON when the text is JSON, else the text itself."""
    try:
        return json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return text


def _normalised(value: Any) -> Any:
    if isinstance(value, str):
        return " ".join(value.split()).casefold()
    if isinstance(value, dict):
        return {k: _normalised(v) for k, v in value.items() if not VOLATILE_KEY.search(snake(k))}
    if isinstance(value, list):
        return [_normalised(v) for v in value]
    return value


def _digest(value: Any) -> str:
    data = json.dumps(_normalised(value), sort_keys=True, default=str)
    return hashlib.sha256(data.encode()).hexdigest()[:16]


def action_fingerprint(name: str, arguments: Any) -> str:
    """Tool name plus normalised arguments (arguments may arrive as a JSON string)."""
    return f"{name}:{_digest(parse(arguments) if isinstance(arguments, str) else arguments)}"


def observation_fingerprint(text: str) -> str:
    """A tool result with volatile fields dropped."""
    return _digest(parse(text))


def _masked(value: Any) -> Any:
    """Numbers zeroed and progress figures dropped: what is left is the answer's content."""
    if isinstance(value, bool) or not isinstance(value, int | float | dict | list):
        return value
    if isinstance(value, dict):
        return {k: _masked(v) for k, v in value.items() if not PROGRESS_KEY.search(snake(k))}
    if isinstance(value, list):
        return [_masked(v) for v in value]
    return 0


def information_fingerprint(text: str) -> str:
    """A tool result with volatile fields dropped and numbers masked: a counter that ticks
    (``open_items`` 3, 6, 9) is no new information; a progress figure is read apart."""
    return _digest(_masked(parse(text)))


def progress_figures(value: Any, path: str = "") -> dict[str, float]:
    """Every numeric progress figure in a tool result (parsed or text), by its key path."""
    value = parse(value) if isinstance(value, str) else value
    figures: dict[str, float] = {}
    items = value.items() if isinstance(value, dict) else ()
    for key, item in items:
        where = f"{path}.{key}"
        if PROGRESS_KEY.search(snake(key)) and isinstance(item, int | float):
            figures[where] = float(item)
        else:
            figures.update(progress_figures(item, where))
    return figures
