"""Consumes the parts of a reply, produces the JSON texts a format's body is written from.

A reply body is a fixed shape with a few values in it. Built as a dict and encoded with sorted
keys, an Anthropic message cost about 55,000 instructions to encode; written from a template
whose members are already in sorted order, with only the values encoded, about 13,000.
Each format writes its bodies so, streamed and not, and a property test checks every such text
against `sorted_json` of the body as a dict, written in the test as the APIs document it: the
bytes are the ones sorted keys would give.
"""

from __future__ import annotations

from json.encoder import encode_basestring_ascii as string

from unsolvable._json import sorted_json

__all__ = ["SHARED_MEMO", "shared", "string", "value"]

SHARED_MEMO = 16
"""Values whose text `shared` keeps: as many as the body reader keeps texts of members."""
_shared: dict[int, tuple[object, str]] = {}


def value(data: object) -> str:
    """``sorted_json(data)``, the common scalars written without the encoder's set-up."""
    kind = type(data)
    if kind is str:
        return string(data)  # type: ignore[arg-type]
    if data is None:
        return "null"
    if kind is bool:
        return "true" if data else "false"
    if kind is int:
        return int.__repr__(data)
    return sorted_json(data)


def shared(data: object) -> str:
    """`value`, kept per object for a value the body reader shares between calls and never
    changes (`unsolvable.wire._body`: the tools a request offers), such as the tool list the
    Responses API echoes: encoding it was a third of that format's reply. Kept by
    identity (the object is held, so no other can take its id), never by equality, which takes
    ``1``, ``1.0`` and ``True`` for one another."""
    known = _shared.get(id(data))
    if known is not None:
        return known[1]
    text = value(data)
    if len(_shared) >= SHARED_MEMO:
        _shared.clear()
    _shared[id(data)] = (data, text)
    return text
