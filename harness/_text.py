"""Consumes text an agent or a model produced, produces the bounded form a record keeps and the
plain text of a message's content, however the content is written."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

__all__ = ["cut", "text_of"]

ELLIPSIS = "…"


def cut(text: str, limit: int) -> str:
    """``text`` if it fits in ``limit`` characters, else its start and an ellipsis, ``limit``
    characters in all: records stay small and readable whatever the agent returned."""
    return text if len(text) <= limit else text[: limit - len(ELLIPSIS)] + ELLIPSIS


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
