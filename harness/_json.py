"""Consumes JSON values, produces their sorted-key text: one encoder per setting for the process.

``json.dumps`` with any keyword builds a new encoder on every call, and even a kept
``JSONEncoder`` builds its C encoder anew on every ``encode``; on the step path, where a step
encodes four or five small values, that was a sizeable part of each step. These keep
one C encoder each and give the same text as the ``json.dumps`` calls they replace.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from json import encoder as _encoder
from typing import Any

__all__ = ["canonical_json", "sorted_json"]


def _sorted_encoder(default: Callable[[Any], Any] | None) -> Callable[[Any], str]:
    """``json.dumps(value, sort_keys=True, default=default)`` as one kept encoder. It does not
    check for cycles, which lets threads share it (the check's memo would be shared state): a
    value that holds itself, which no JSON and no script can, raises `RecursionError` rather
    than `ValueError`."""
    kept = json.JSONEncoder(sort_keys=True, default=default)
    make = getattr(_encoder, "c_make_encoder", None)
    if make is None:  # an interpreter built without the C accelerator
        return kept.encode
    encode = make(
        None,
        kept.default,
        _encoder.encode_basestring_ascii,
        None,
        ": ",
        ", ",
        True,
        False,
        True,
    )

    def dumps(value: Any) -> str:
        return "".join(encode(value, 0))

    return dumps


canonical_json = _sorted_encoder(str)
"""``json.dumps(value, sort_keys=True, default=str)``: what is not JSON is written as ``str``."""
sorted_json = _sorted_encoder(None)
"""``json.dumps(value, sort_keys=True)``: what is not JSON raises `TypeError`."""
