"""Consumes an OpenHands SDK persistence folder (``events/event-*.json``, one event per file, as
the SDK's file store writes them), produces a `Trace`: the actions of one LLM response form one
turn, each answered by the observation that names its ``tool_call_id``."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from unsolvable._errors import InputError
from unsolvable._input import load_json, read_input
from unsolvable._text import text_of
from unsolvable._types import JSON
from unsolvable.imports._importer import strip_headers
from unsolvable.imports._trace import ImportFailed, Recorded, Trace, Turn

__all__ = ["read_openhands"]

ANSWERS = ("ObservationEvent", "AgentErrorEvent", "UserRejectObservation")
"""Event kinds that answer a tool call (`ObservationBaseEvent` in the SDK)."""


def _events(folder: Path) -> list[Mapping[str, Any]]:
    events_dir = folder / "events" if (folder / "events").is_dir() else folder
    files = sorted(events_dir.glob("event-*.json"))
    if not files:
        raise ImportFailed(
            f"{str(folder)!r} holds no events/event-*.json: pass the conversation's persistence "
            "folder (the one with events/ inside)"
        )
    events = []
    for file in files:
        try:
            events.append(strip_headers(load_json(read_input(file), what=repr(str(file))))[0])
        except InputError as error:
            raise ImportFailed(str(error)) from None
    return events


def _answer(event: Mapping[str, Any]) -> tuple[str, bool]:
    kind = event.get("kind")
    if kind == "AgentErrorEvent":
        return str(event.get("error", "")), False
    if kind == "UserRejectObservation":
        return f"Action rejected: {event.get('rejection_reason', '')}", True
    observation = event.get("observation") or {}
    return (text_of(observation.get("content")) or ""), False


def _arguments(call: Mapping[str, Any]) -> JSON:
    raw = call.get("arguments")
    try:
        value = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return {"_text": str(raw)}
    return dict(value) if isinstance(value, Mapping) else {}


def _tool(tool: Mapping[str, Any]) -> JSON:
    function = tool.get("function") if isinstance(tool.get("function"), Mapping) else tool
    assert isinstance(function, Mapping)
    return {
        "name": str(function.get("name", "")),
        "description": str(function.get("description", "")),
        "parameters": function.get("parameters") or {"type": "object", "properties": {}},
    }


def read_openhands(path: Path, data: Any = None) -> Trace:
    events = _events(path)
    answers = {e.get("tool_call_id"): _answer(e) for e in events if e.get("kind") in ANSWERS}
    turns: list[Turn] = []
    response: Any = None
    task = None
    tools: tuple[JSON, ...] = ()
    skipped: Counter[str] = Counter()
    for event in events:
        kind = event.get("kind")
        if kind == "ActionEvent":
            result, refused = answers.get(event.get("tool_call_id"), ("", False))
            call = Recorded(
                name=str(event.get("tool_name", "")),
                arguments=_arguments(event.get("tool_call") or {}),
                result=result,
                refused=refused,
            )
            if turns and event.get("llm_response_id") == response:
                turns[-1] = Turn(text=turns[-1].text, calls=(*turns[-1].calls, call))
            else:
                turns.append(Turn(text=(text_of(event.get("thought")) or ""), calls=(call,)))
            response = event.get("llm_response_id")
        elif kind == "MessageEvent":
            message = event.get("llm_message") or {}
            text = text_of(message.get("content")) or ""
            if event.get("source") == "user" and task is None:
                task = text
            elif event.get("source") == "agent":
                turns.append(Turn(text=text))
            response = None
        elif kind == "SystemPromptEvent":
            tools = tuple(_tool(t) for t in event.get("tools") or () if isinstance(t, Mapping))
        elif kind not in ANSWERS:
            skipped[str(kind)] += 1
    removed = ["the system prompt"] if tools else []
    removed += [f"{n} {kind} event(s)" for kind, n in sorted(skipped.items())]
    return Trace(turns=tuple(turns), task=task, tools=tools, removed=tuple(removed))
