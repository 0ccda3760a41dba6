"""Consumes recorded calls and answers, produces the importer's own rule of sameness, which every
step of an import keys on: which answers belong to one call, which steps brought something new,
and which answers are merged.

A recording is replayed as it was: a call is its tool and its arguments exactly, and an answer
is its text exactly, but for the one field the harness itself adds to every answer of its tools
and leaves out of what it judges on a live run — the top-level ``request_id``. Nothing else is
taken for volatile (an ``order_id`` that pages, a ``checked_at`` that moves are the recording's
content), so a replay never merges what its recording told apart.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from unsolvable._json import canonical_json

__all__ = ["RULE", "answer_key", "call_key"]

VOLATILE = "request_id"
"""The one field left out of an answer: the id the harness's tools add to every answer."""
RULE = (
    "a call is its tool and its arguments exactly; two answers are the same when they are equal "
    f"— as JSON, a JSON object's top-level {VOLATILE} left out, or as text"
)
"""The rule in words, as the import prints it."""


def call_key(name: str, arguments: Mapping[str, Any]) -> str:
    """The tool and its arguments, exactly."""
    return f"{name}:{canonical_json(dict(arguments))}"


def answer_key(text: str) -> str:
    """The answer as JSON (keys sorted), a JSON object's top-level request id left out; the text
    itself when it is not JSON."""
    try:
        body = json.loads(text)
    except json.JSONDecodeError:
        return text
    if isinstance(body, dict):
        body.pop(VOLATILE, None)
    return canonical_json(body)
