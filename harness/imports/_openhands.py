"""Consumes an OpenHands SDK persistence folder (``events/event-*.json``, one event per file, as
the SDK's file store writes them), produces a `Trace`: the actions of one LLM response form one
turn, each answered by the observation that names its ``tool_call_id``."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from unsolvable._errors import InputError
from unsolvable._input import load_json, read_input
from unsolvable._text import text_of
from unsolvable._types import JSON
from unsolvable.imports._importer import strip_headers
from unsolvable.imports._shapes import Malformed, identifier, kind_of, listed, obj, string
from unsolvable.imports._trace import ImportFailed, Recorded, Trace, Turn

__all__ = ["read_openhands"]

ANSWERS = ("ObservationEvent", "AgentErrorEvent", "UserRejectObservation")
"""Event kinds that answer a tool call (`ObservationBaseEvent` in the SDK)."""


def _events(folder: Path) -> list[tuple[str, Mapping[str, Any]]]:
    """Each event with the name of its file, which an error about one of its fields names."""
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
            event = strip_headers(load_json(read_input(file), what=repr(str(file))))[0]
        except InputError as error:
            raise ImportFailed(str(error)) from None
        if not isinstance(event, Mapping):
            raise Malformed(f"{file.name} holds {kind_of(event)}, not an event object")
        events.append((file.name, event))
    return events


class _Answer(NamedTuple):
    """What answered a tool call, and whether the user refused it."""

    result: str
    refused: bool = False


def _answer(file: str, event: Mapping[str, Any]) -> _Answer:
    if event.get("kind") == "AgentErrorEvent":
        return _Answer(result=str(event.get("error", "")))
    if event.get("kind") == "UserRejectObservation":
        reason = event.get("rejection_reason", "")
        return _Answer(result=f"Action rejected: {reason}", refused=True)
    observation = obj(event.get("observation"), f"observation in {file}")
    return _Answer(result=text_of(observation.get("content")) or "")


def _answers(events: list[tuple[str, Mapping[str, Any]]]) -> dict[str | None, _Answer]:
    """Each answer by the id of the call it answers."""
    return {
        identifier(e.get("tool_call_id"), f"tool_call_id in {file}"): _answer(file, e)
        for file, e in events
        if e.get("kind") in ANSWERS
    }


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
    answers = _answers(events)
    turns: list[Turn] = []
    response: Any = None
    task = None
    tools: tuple[JSON, ...] = ()
    skipped: Counter[str] = Counter()
    for file, event in events:
        kind = event.get("kind")
        if kind == "ActionEvent":
            answered = identifier(event.get("tool_call_id"), f"tool_call_id in {file}")
            answer = answers.get(answered, _Answer(result=""))
            call = Recorded(
                name=string(event.get("tool_name"), f"tool_name in {file}"),
                arguments=_arguments(obj(event.get("tool_call"), f"tool_call in {file}")),
                result=answer.result,
                refused=answer.refused,
            )
            if turns and event.get("llm_response_id") == response:
                turns[-1] = Turn(text=turns[-1].text, calls=(*turns[-1].calls, call))
            else:
                turns.append(Turn(text=(text_of(event.get("thought")) or ""), calls=(call,)))
            response = event.get("llm_response_id")
        elif kind == "MessageEvent":
            message = obj(event.get("llm_message"), f"llm_message in {file}")
            text = text_of(message.get("content")) or ""
            if event.get("source") == "user" and task is None:
                task = text
            elif event.get("source") == "agent":
                turns.append(Turn(text=text))
            response = None
        elif kind == "SystemPromptEvent":
            offered = listed(event.get("tools"), f"tools in {file}")
            tools = tuple(_tool(t) for t in offered if isinstance(t, Mapping))
        elif kind not in ANSWERS:
            skipped[str(kind)] += 1
    removed = ["the system prompt"] if tools else []
    removed += [f"{n} {kind} event(s)" for kind, n in sorted(skipped.items())]
    return Trace(turns=tuple(turns), task=task, tools=tools, removed=tuple(removed))
