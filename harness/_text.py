"""Consumes text an agent, a model or a user produced, produces the forms the harness keeps: the
bounded form a record holds, the form a folder name can hold."""

from __future__ import annotations

import re

__all__ = ["cut", "slug"]

ELLIPSIS = "…"
SLUG = r"[^A-Za-z0-9_.-]+"
"""What a folder name replaces; compiled on first use (``re`` caches it), not by every pytest
run that imports the plugin."""


def cut(text: str, limit: int) -> str:
    """``text`` if it fits in ``limit`` characters, else its start and an ellipsis, ``limit``
    characters in all: records stay small and readable whatever the agent returned."""
    return text if len(text) <= limit else text[: limit - len(ELLIPSIS)] + ELLIPSIS


def slug(text: str) -> str:
    """``text`` as a folder name: ``pkg.module:agent`` → ``pkg.module.agent``."""
    return re.sub(SLUG, ".", text).strip(".") or "agent"
