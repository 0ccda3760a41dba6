"""Consumes an OpenAI Chat Completions transcript — a request body (``messages``, ``tools``) as a
user dumps it from their logs, optionally with the last response (``choices``) — produces a
`Trace`: one turn per assistant message, tool results matched by ``tool_call_id``."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from unsolvable._text import text_of
from unsolvable._types import JSON
from unsolvable.imports._trace import ImportFailed, Recorded, Trace, Turn

__all__ = ["read_openai_chat"]


def _arguments(text: Any) -> JSON:
    if isinstance(text, Mapping):
        return dict(text)
    try:
        value = json.loads(text or "{}")
    except (TypeError, ValueError):
        return {"_text": str(text)}
    return value if isinstance(value, dict) else {"_value": value}


def _messages(data: Any) -> list[Mapping[str, Any]]:
    messages = data if isinstance(data, list) else data.get("messages")
    if not isinstance(messages, list):
        raise ImportFailed(
            "not an OpenAI Chat Completions transcript: give a JSON list of messages or an "
            'object with "messages" (and "tools"), as the request body is logged'
        )
    messages = list(messages)
    if isinstance(data, Mapping):
        for choice in data.get("choices") or ():
            if isinstance(choice, Mapping) and isinstance(choice.get("message"), Mapping):
                messages.append(choice["message"])
    return [m for m in messages if isinstance(m, Mapping)]


def read_openai_chat(path: Path, data: Any) -> Trace:
    messages = _messages(data)
    results = {
        m.get("tool_call_id"): (text_of(m.get("content")) or "")
        for m in messages
        if m.get("role") == "tool"
    }
    users = [(text_of(m.get("content")) or "") for m in messages if m.get("role") == "user"]
    turns = []
    for message in messages:
        if message.get("role") != "assistant":
            continue
        calls = []
        for call in message.get("tool_calls") or ():
            function = call.get("function") or {}
            calls.append(
                Recorded(
                    name=str(function.get("name", "")),
                    arguments=_arguments(function.get("arguments")),
                    result=results.get(call.get("id"), ""),
                )
            )
        turns.append(Turn(text=(text_of(message.get("content")) or ""), calls=tuple(calls)))
    tools = tuple(
        {
            "name": t["function"]["name"],
            "description": t["function"].get("description", ""),
            "parameters": t["function"].get("parameters") or {"type": "object", "properties": {}},
        }
        for t in (data.get("tools") or () if isinstance(data, Mapping) else ())
        if isinstance(t, Mapping) and isinstance(t.get("function"), Mapping)
    )
    system = sum(m.get("role") in ("system", "developer") for m in messages)
    removed = (f"{system} system message(s)",) if system else ()
    return Trace(turns=tuple(turns), task=users[0] if users else None, tools=tools, removed=removed)
