"""Consumes tool calls and tool results, produces fingerprints that ignore what does not matter.

Volatile ids, case and spacing change the bytes of a call or a result but not its meaning; a
fingerprint that kept them would let a stuck model look busy forever.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

__all__ = ["action_fingerprint", "observation_fingerprint", "parse"]

VOLATILE_KEY = re.compile(r"(^|_)(id|ids|uuid|timestamp|time|at|nonce|etag)$", re.IGNORECASE)
"""Keys such as ``request_id``, ``trace_id``, ``created_at``: set per call, never progress."""


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
        return {k: _normalised(v) for k, v in value.items() if not VOLATILE_KEY.search(str(k))}
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
