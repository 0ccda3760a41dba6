"""Consumes text an agent or a model produced, produces the bounded form a record keeps."""

from __future__ import annotations

__all__ = ["cut"]

ELLIPSIS = "…"


def cut(text: str, limit: int) -> str:
    """``text`` if it fits in ``limit`` characters, else its start and an ellipsis, ``limit``
    characters in all: records stay small and readable whatever the agent returned."""
    return text if len(text) <= limit else text[: limit - len(ELLIPSIS)] + ELLIPSIS
