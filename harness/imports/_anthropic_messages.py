"""Consumes an Anthropic Messages transcript — a request body (``system``, ``messages``,
``tools``) as a user dumps it, optionally with the last response (``content``) — produces a
`Trace`: one turn per assistant message, ``tool_result`` blocks matched by ``tool_use_id``."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from unsolvable._text import text_of
from unsolvable.imports._trace import ImportFailed, Recorded, Trace, Turn

__all__ = ["read_anthropic_messages"]


def _blocks(content: Any) -> list[Mapping[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or () if isinstance(b, Mapping)]


def read_anthropic_messages(path: Path, data: Any) -> Trace:
    messages = data.get("messages") if isinstance(data, Mapping) else data
    if not isinstance(messages, list):
        raise ImportFailed(
            'not an Anthropic Messages transcript: give an object with "messages" (and '
            '"tools"), as the request body is logged, or a JSON list of messages'
        )
    messages = [m for m in messages if isinstance(m, Mapping)]
    if isinstance(data, Mapping) and data.get("role") == "assistant":
        messages.append(data)
    elif isinstance(data, Mapping) and isinstance(data.get("response"), Mapping):
        messages.append(data["response"])
    results: dict[Any, str] = {}
    task = None
    for message in messages:
        if message.get("role") != "user":
            continue
        for block in _blocks(message.get("content")):
            if block.get("type") == "tool_result":
                results[block.get("tool_use_id")] = text_of(block.get("content")) or ""
            elif block.get("type") == "text" and task is None:
                task = str(block.get("text", ""))
    turns = []
    for message in messages:
        if message.get("role") != "assistant":
            continue
        blocks = _blocks(message.get("content"))
        text = "".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")
        calls = tuple(
            Recorded(
                name=str(b.get("name", "")),
                arguments=dict(b.get("input") or {}),
                result=results.get(b.get("id"), ""),
            )
            for b in blocks
            if b.get("type") == "tool_use"
        )
        turns.append(Turn(text=text, calls=calls))
    tools = tuple(
        {
            "name": t["name"],
            "description": t.get("description", ""),
            "parameters": t.get("input_schema") or {"type": "object", "properties": {}},
        }
        for t in (data.get("tools") or () if isinstance(data, Mapping) else ())
        if isinstance(t, Mapping) and isinstance(t.get("name"), str)
    )
    removed = ("the system prompt",) if isinstance(data, Mapping) and data.get("system") else ()
    return Trace(turns=tuple(turns), task=task, tools=tools, removed=removed)
