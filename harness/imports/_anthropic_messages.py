"""Consumes an Anthropic Messages transcript — a request body (``system``, ``messages``,
``tools``) as a user dumps it, optionally with the last response (``content``) — produces a
`Trace`: one turn per assistant message, ``tool_result`` blocks matched by ``tool_use_id``."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from unsolvable._text import text_of
from unsolvable._types import JSON
from unsolvable.imports._shapes import (
    Malformed,
    NotThisFormat,
    identifier,
    kind_of,
    listed,
    obj,
    string,
)
from unsolvable.imports._trace import Recorded, Trace, Turn

__all__ = ["read_anthropic_messages"]


def _blocks(content: Any, where: str) -> list[tuple[str, Mapping[str, Any]]]:
    """A message's content blocks, each with where it sits (``content[2].``): a string is one
    text block."""
    if isinstance(content, str):
        return [(f"{where}.", {"type": "text", "text": content})]
    if content is not None and not isinstance(content, list):
        raise Malformed(f"{where} is {kind_of(content)}, not a string or a list of content blocks")
    return [(f"{where}[{j}].", b) for j, b in enumerate(content or ()) if isinstance(b, Mapping)]


def _messages(data: Any) -> list[tuple[str, Mapping[str, Any]]]:
    """Each message with where it sits in the file (``messages[3].``): the request's, then the
    response, whether the file is the response itself or holds it as ``response``."""
    messages = data.get("messages") if isinstance(data, Mapping) else data
    if not isinstance(messages, list):
        raise NotThisFormat(
            "an Anthropic Messages transcript",
            'give an object with "messages" (and "tools"), as the request body is logged, or a '
            "JSON list of messages",
        )
    field = "" if messages is data else "messages"
    found = [(f"{field}[{i}].", m) for i, m in enumerate(messages) if isinstance(m, Mapping)]
    if isinstance(data, Mapping) and data.get("role") == "assistant":
        found.append(("", data))
    elif isinstance(data, Mapping) and isinstance(data.get("response"), Mapping):
        found.append(("response.", data["response"]))
    return found


def _call(where: str, block: Mapping[str, Any], results: Mapping[str | None, str]) -> Recorded:
    """A ``tool_use`` block, with the answer of its id."""
    return Recorded(
        name=string(block.get("name"), f"{where}name"),
        arguments=dict(obj(block.get("input"), f"{where}input")),
        result=results.get(identifier(block.get("id"), f"{where}id"), ""),
    )


def _turn(where: str, message: Mapping[str, Any], results: Mapping[str | None, str]) -> Turn:
    """An assistant message: its text blocks joined, its ``tool_use`` blocks as calls."""
    blocks = _blocks(message.get("content"), f"{where}content")
    text = "".join(str(b.get("text", "")) for _, b in blocks if b.get("type") == "text")
    calls = tuple(_call(at, b, results) for at, b in blocks if b.get("type") == "tool_use")
    return Turn(text=text, calls=calls)


def _tools(data: Any) -> tuple[JSON, ...]:
    """The named tools the request offered."""
    offered = listed(data.get("tools"), "tools") if isinstance(data, Mapping) else []
    return tuple(
        {
            "name": t["name"],
            "description": t.get("description", ""),
            "parameters": t.get("input_schema") or {"type": "object", "properties": {}},
        }
        for t in offered
        if isinstance(t, Mapping) and isinstance(t.get("name"), str)
    )


def read_anthropic_messages(path: Path, data: Any) -> Trace:
    messages = _messages(data)
    results: dict[str | None, str] = {}
    task = None
    for where, message in messages:
        if message.get("role") != "user":
            continue
        for at, block in _blocks(message.get("content"), f"{where}content"):
            if block.get("type") == "tool_result":
                answered = identifier(block.get("tool_use_id"), f"{at}tool_use_id")
                results[answered] = text_of(block.get("content")) or ""
            elif block.get("type") == "text" and task is None:
                task = str(block.get("text", ""))
    turns = tuple(
        _turn(where, message, results)
        for where, message in messages
        if message.get("role") == "assistant"
    )
    removed = ("the system prompt",) if isinstance(data, Mapping) and data.get("system") else ()
    return Trace(turns=turns, task=task, tools=_tools(data), removed=removed)
