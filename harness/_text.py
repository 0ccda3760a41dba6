"""Consumes text an agent, a model or a user produced, produces the forms the harness keeps: the
bounded form a record holds, the plain text of a message's content however it is written, the
form a folder name can hold."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

__all__ = ["cut", "slug", "text_of"]

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


def text_of(content: object) -> str | None:
    """The text of a message's content, in any of the shapes the APIs and frameworks use: a
    string as it is; a list of content parts (or one part) as the texts of its parts joined, a
    part being a string or an object with a ``"text"`` string (images and the like have none);
    ``None`` for no content; anything else as its ``str``."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, Mapping):
        content = [content]
    if not isinstance(content, Iterable):
        return str(content)
    texts = [part.get("text") if isinstance(part, Mapping) else part for part in content]
    return "".join(text for text in texts if isinstance(text, str))
