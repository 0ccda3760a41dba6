"""Consumes JSON values, produces their sorted-key text: one encoder per setting for the process.

``json.dumps`` with any keyword builds a new encoder on every call; on the step path that was a
sizeable part of each step (issue 14). These give the same text as the ``json.dumps`` calls they
replace.
"""

from __future__ import annotations

import json

__all__ = ["canonical_json", "sorted_json"]

canonical_json = json.JSONEncoder(sort_keys=True, default=str).encode
"""``json.dumps(value, sort_keys=True, default=str)``: what is not JSON is written as ``str``."""
sorted_json = json.JSONEncoder(sort_keys=True).encode
"""``json.dumps(value, sort_keys=True)``: what is not JSON raises `TypeError`."""
