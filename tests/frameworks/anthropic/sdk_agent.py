"""An agent written directly against the ``anthropic`` SDK: it is handed a client and speaks the
Messages API, streaming (the SDK's ``messages.stream`` helper) or not.

Run as a module (``python -m tests.frameworks.anthropic.sdk_agent TASK TOOLS_JSON``) it builds
``Anthropic()`` with no arguments — base URL and key from the environment — calls its tools over
HTTP and prints its stop as JSON.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

from anthropic import Anthropic

from tests.frameworks._sdk_agent import MAX_TURNS, StopLogic, http_tool

MODEL = "claude-sonnet-5"
MAX_TOKENS = 1024


def run_agent(
    client: Anthropic,
    task: str,
    tools: list[dict[str, Any]],
    call_tool: Callable[[str, str], str],
    *,
    stream: bool = False,
) -> dict[str, Any]:
    """Runs the task to a stop; ``tools`` in the Chat Completions shape, converted here."""
    logic, messages = StopLogic(), list[Any]([{"role": "user", "content": task}])
    message: Any
    specs = [
        {
            "name": t["function"]["name"],
            "description": t["function"]["description"],
            "input_schema": t["function"]["parameters"],
        }
        for t in tools
    ]
    for _ in range(MAX_TURNS):
        options: dict[str, Any] = {"model": MODEL, "max_tokens": MAX_TOKENS, "tools": specs}
        if stream:
            with client.messages.stream(messages=messages, **options) as events:
                message = events.get_final_message()
        else:
            message = client.messages.create(messages=messages, **options)
        messages.append({"role": "assistant", "content": [b.model_dump() for b in message.content]})
        uses = [block for block in message.content if block.type == "tool_use"]
        if message.stop_reason != "tool_use" or not uses:
            return {"code": "COMPLETED", "reason": "model finished"}
        results: list[Any] = []
        stop = None
        for use in uses:
            arguments = json.dumps(use.input)
            result = call_tool(use.name, arguments)
            results.append({"type": "tool_result", "tool_use_id": use.id, "content": result})
            stop = stop or logic.observe(use.name, arguments, result)
        messages.append({"role": "user", "content": results})
        if stop:
            return stop
    return logic.out_of_turns()


def main() -> None:
    task, tools = sys.argv[1], json.loads(sys.argv[2])
    print(json.dumps(run_agent(Anthropic(), task, tools, http_tool)))


if __name__ == "__main__":
    main()
