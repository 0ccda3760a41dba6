"""Consumes an OpenAI Chat Completions transcript — a request body (``messages``, ``tools``) as a
user dumps it from their logs, optionally with the last response (``choices``) — produces a
`Trace`: one turn per assistant message, tool results matched by ``tool_call_id``."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from unsolvable._text import text_of
from unsolvable._types import JSON
from unsolvable.imports._shapes import NotThisFormat, identifier, listed, obj, string
from unsolvable.imports._trace import Recorded, Trace, Turn

__all__ = ["read_openai_chat"]


class _Answer(NamedTuple):
    """A tool message: the id of the call it answers, and its text."""

    call_id: str | None
    text: str


@dataclass(frozen=True, kw_only=True)
class _Asked:
    """An assistant message, where it sits in the file, and the tool messages that follow it."""

    where: str
    message: Mapping[str, Any]
    answers: list[_Answer] = field(default_factory=list)


def _arguments(text: Any) -> JSON:
    if isinstance(text, Mapping):
        return dict(text)
    try:
        value = json.loads(text or "{}")
    except (TypeError, ValueError):
        return {"_text": str(text)}
    return value if isinstance(value, dict) else {"_value": value}


def _messages(data: Any) -> list[tuple[str, Mapping[str, Any]]]:
    """Each message with where it sits in the file (``messages[3].``): the request's, then the
    response's choices."""
    messages = data.get("messages") if isinstance(data, Mapping) else data
    if not isinstance(messages, list):
        raise NotThisFormat(
            "an OpenAI Chat Completions transcript",
            'give a JSON list of messages or an object with "messages" (and "tools"), as the '
            "request body is logged",
        )
    field = "" if messages is data else "messages"
    found = [(f"{field}[{i}].", m) for i, m in enumerate(messages)]
    if isinstance(data, Mapping):
        for i, choice in enumerate(listed(data.get("choices"), "choices")):
            if isinstance(choice, Mapping) and isinstance(choice.get("message"), Mapping):
                found.append((f"choices[{i}].message.", choice["message"]))
    return [(where, m) for where, m in found if isinstance(m, Mapping)]


def _calls(asked: _Asked) -> list[Recorded]:
    """An assistant message's tool calls, each with the first answer of its id among the tool
    messages that follow it (each answer used once)."""
    where, answers, calls = asked.where, asked.answers, []
    for j, call in enumerate(listed(asked.message.get("tool_calls"), f"{where}tool_calls")):
        at = f"{where}tool_calls[{j}]"
        function = obj(obj(call, at).get("function"), f"{at}.function")
        answered = identifier(call.get("id"), f"{at}.id")
        found = next((i for i, answer in enumerate(answers) if answer.call_id == answered), None)
        calls.append(
            Recorded(
                name=string(function.get("name"), f"{at}.function.name"),
                arguments=_arguments(function.get("arguments")),
                result="" if found is None else answers.pop(found).text,
            )
        )
    return calls


def _turns(messages: list[tuple[str, Mapping[str, Any]]]) -> tuple[Turn, ...]:
    """One turn per assistant message, answered by the tool messages between it and the next
    assistant message: the API puts a call's answer there, and ids may repeat across turns
    (servers that number each response's calls ``call_0``, ``call_1``, …)."""
    asked: list[_Asked] = []
    for where, message in messages:
        if message.get("role") == "assistant":
            asked.append(_Asked(where=where, message=message))
        elif message.get("role") == "tool":
            answered = identifier(message.get("tool_call_id"), f"{where}tool_call_id")
            answer = _Answer(call_id=answered, text=text_of(message.get("content")) or "")
            if asked:
                asked[-1].answers.append(answer)
    return tuple(
        Turn(text=text_of(turn.message.get("content")) or "", calls=tuple(_calls(turn)))
        for turn in asked
    )


def _tools(data: Any) -> tuple[JSON, ...]:
    """The function tools the request offered; tools of other types are not the model's calls."""
    tools: list[JSON] = []
    offered = listed(data.get("tools"), "tools") if isinstance(data, Mapping) else []
    for i, tool in enumerate(offered):
        if not isinstance(tool, Mapping) or not isinstance(tool.get("function"), Mapping):
            continue
        function = tool["function"]
        tools.append(
            {
                "name": string(function.get("name"), f"tools[{i}].function.name"),
                "description": function.get("description", ""),
                "parameters": function.get("parameters") or {"type": "object", "properties": {}},
            }
        )
    return tuple(tools)


def read_openai_chat(path: Path, data: Any) -> Trace:
    messages = _messages(data)
    users = [(text_of(m.get("content")) or "") for _, m in messages if m.get("role") == "user"]
    turns = _turns(messages)
    system = sum(m.get("role") in ("system", "developer") for _, m in messages)
    removed = (f"{system} system message(s)",) if system else ()
    return Trace(turns=turns, task=users[0] if users else None, tools=_tools(data), removed=removed)
