"""Consumes JSON values, produces their sorted-key text: the one spelling of a value that records,
fingerprints and token estimates compare and count."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["canonical_json", "sorted_json"]


def canonical_json(value: Any) -> str:
    """``json.dumps(value, sort_keys=True, default=str)``: what is not JSON is written as
    ``str``, so a trace can show any argument an agent sends."""
    return json.dumps(value, sort_keys=True, default=str)


def sorted_json(value: Any) -> str:
    """``json.dumps(value, sort_keys=True)``: what is not JSON raises `TypeError`."""
    return json.dumps(value, sort_keys=True)
