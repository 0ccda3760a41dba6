"""Consumes JSON values, produces their sorted-key text: the one spelling of a value that records,
fingerprints and token estimates compare and count."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["canonical_json", "sorted_json"]

_CANONICAL = json.JSONEncoder(sort_keys=True, default=str)
_SORTED = json.JSONEncoder(sort_keys=True)
"""One encoder per spelling, made once (``json.dumps`` with options makes one per call); an
encoder keeps nothing between calls."""


def canonical_json(value: Any) -> str:
    """``json.dumps(value, sort_keys=True, default=str)``: what is not JSON is written as
    ``str``, so a trace can show any argument an agent sends."""
    return _CANONICAL.encode(value)


def sorted_json(value: Any) -> str:
    """``json.dumps(value, sort_keys=True)``: what is not JSON raises `TypeError`."""
    return _SORTED.encode(value)
