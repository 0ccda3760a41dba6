"""Hand-made traces of a looping run and of a denied one, in the foreign formats.

Hand-made, not made by the tools: ``openhands-sdk`` needs Python 3.12 or later and this harness
runs on 3.11 here, so no SDK conversation can be persisted beside it; the OpenAI and Anthropic
transcripts are the request bodies a user dumps from their logs, written out as the APIs define
them. The event files follow the SDK's persisted models (``ActionEvent``, ``ObservationEvent``,
``MessageEvent``, ``SystemPromptEvent``: ``openhands/sdk/event/llm_convertible``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

QUERY = {"type": "object", "properties": {"query": {"type": "string"}}}
SEARCH = {"name": "search_tickets", "description": "Search the ticket system.", "parameters": QUERY}
EMPTY = '{"results": [], "total": 0, "request_id": "req-%08x"}'
TASK = "Find the customer's open ticket and close it."
DENIED = json.dumps(
    {
        "error": {
            "status": 403,
            "message": "403 Forbidden: this token lacks the "
            "permission 'tickets:read' required by search_tickets",
        }
    }
)
"""The API's answer the tool passed on: what a REST-backed tool shows the model."""
SECRET = "sk-live-0123456789abcdef0123"
LOOP = 6
"""Recorded turns of the loop: the same search, the same empty page, a fresh request id each."""
LATE_SEARCHES = 12
"""Searches `late_escalation` records before it escalates: its turn 13."""
ESCALATE = {
    "name": "escalate_ticket",
    "description": "Hand the ticket to a person.",
    "parameters": {"type": "object", "properties": {"reason": {"type": "string"}}},
}


def openhands_log(folder: Path, *, denied: bool = False) -> Path:
    """A persistence folder: system prompt, the user's task, then ``LOOP`` identical searches."""
    events: list[dict[str, Any]] = [
        {"kind": "SystemPromptEvent", "id": "e0", "source": "agent",
         "system_prompt": {"type": "text", "text": "You are a helpful agent."},
         "tools": [{"type": "function", "function": SEARCH}]},
        {"kind": "MessageEvent", "id": "e1", "source": "user",
         "llm_message": {"role": "user", "content": [{"type": "text", "text": TASK}]}},
    ]  # fmt: skip
    for i in range(LOOP):
        call = {
            "id": f"call_{i}",
            "name": "search_tickets",
            "arguments": json.dumps({"query": "open ticket"}),
            "origin": "completion",
        }
        events.append(
            {
                "kind": "ActionEvent",
                "id": f"a{i}",
                "source": "agent",
                "thought": [{"type": "text", "text": f"Searching again ({i})"}],
                "tool_name": "search_tickets",
                "tool_call_id": f"call_{i}",
                "tool_call": call,
                "llm_response_id": f"resp_{i}",
                "action": {"kind": "SearchAction", "query": "open ticket"},
            }
        )
        text = DENIED if denied else EMPTY % i
        events.append(
            {
                "kind": "ObservationEvent",
                "id": f"o{i}",
                "source": "environment",
                "tool_name": "search_tickets",
                "tool_call_id": f"call_{i}",
                "action_id": f"a{i}",
                "observation": {
                    "kind": "SearchObservation",
                    "is_error": denied,
                    "content": [{"type": "text", "text": text}],
                },
            }
        )
    events.append({"kind": "ConversationStateUpdateEvent", "id": "s", "source": "environment",
                   "key": "execution_status", "value": "stuck"})  # fmt: skip
    (folder / "events").mkdir(parents=True)
    for i, event in enumerate(events):
        (folder / "events" / f"event-{i:05d}-{event['id']}.json").write_text(json.dumps(event))
    return folder


def openai_chat(path: Path) -> Path:
    """A Chat Completions request body with a leaked key in a header and in a tool result."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "Be helpful."},
        {"role": "user", "content": f"{TASK} Use the key {SECRET}."},
    ]
    for i in range(LOOP):
        call = {
            "id": f"call_{i}",
            "type": "function",
            "function": {"name": "search_tickets", "arguments": '{"query": "open ticket"}'},
        }
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": f"call_{i}", "content": EMPTY % i})
    body = {"model": "gpt-x", "messages": messages,
            "tools": [{"type": "function", "function": SEARCH}],
            "headers": {"Authorization": f"Bearer {SECRET}"}}  # fmt: skip
    path.write_text(json.dumps(body))
    return path


def late_escalation(path: Path) -> Path:
    """`openai_chat`'s loop run on to 12 searches, then one call to ``escalate_ticket``, whose
    answer is the same empty page: the run was stuck long before it escalated."""
    body = json.loads(openai_chat(path).read_text())
    messages = body["messages"]
    for i in range(LOOP, LATE_SEARCHES + 1):
        calls = [{"name": "search_tickets", "arguments": '{"query": "open ticket"}'}]
        if i == LATE_SEARCHES:
            calls = [{"name": ESCALATE["name"], "arguments": '{"reason": "no ticket"}'}]
        call = {"id": f"call_{i}", "type": "function", "function": calls[0]}
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": f"call_{i}", "content": EMPTY % i})
    body["tools"].append({"type": "function", "function": ESCALATE})
    path.write_text(json.dumps(body))
    return path


def anthropic_messages(path: Path) -> Path:
    messages: list[dict[str, Any]] = [{"role": "user", "content": TASK}]
    for i in range(LOOP):
        messages.append(
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Searching"},
                    {
                        "type": "tool_use",
                        "id": f"tu_{i}",
                        "name": "search_tickets",
                        "input": {"query": "open ticket"},
                    },
                ],
            }
        )
        messages.append(
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": f"tu_{i}", "content": EMPTY % i}
                ],
            }
        )
    body = {"model": "claude-x", "system": "Be helpful.", "messages": messages,
            "tools": [{"name": SEARCH["name"], "description": SEARCH["description"],
                       "input_schema": SEARCH["parameters"]}]}  # fmt: skip
    path.write_text(json.dumps(body))
    return path
