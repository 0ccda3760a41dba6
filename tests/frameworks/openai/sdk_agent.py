"""An agent written directly against the ``openai`` SDK, as users write them: it is handed a
client and speaks Chat Completions or the Responses API, streaming or not.

Run as a module (``python -m tests.frameworks.openai.sdk_agent TASK TOOLS_JSON``) it builds
``OpenAI()`` with no arguments — base URL and key come from the environment — and calls its tools
over HTTP, then prints its stop as JSON: the unmodified agent in another process.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

from openai import OpenAI

from tests.frameworks._sdk_agent import MAX_TURNS, StopLogic, http_tool

MODEL = "gpt-5-mini"
ToolCaller = Callable[[str, str], str]


def run_agent(
    client: OpenAI,
    task: str,
    tools: list[dict[str, Any]],
    call_tool: ToolCaller,
    *,
    api: str = "chat",
    stream: bool = False,
) -> dict[str, Any]:
    """Runs the task to a stop; ``tools`` in the Chat Completions shape."""
    turn = _responses_turns if api == "responses" else _chat_turns
    return turn(client, task, tools, call_tool, stream)


def _chat_turns(
    client: OpenAI, task: str, tools: list[Any], call_tool: ToolCaller, stream: bool
) -> dict[str, Any]:
    logic, messages = StopLogic(), list[Any]([{"role": "user", "content": task}])
    message: Any
    for _ in range(MAX_TURNS):
        if stream:
            with client.chat.completions.stream(
                model=MODEL, messages=messages, tools=tools
            ) as events:
                message = events.get_final_completion().choices[0].message
        else:
            completion = client.chat.completions.create(model=MODEL, messages=messages, tools=tools)
            message = completion.choices[0].message
        messages.append(message.model_dump(exclude_none=True, exclude={"parsed"}))
        if not message.tool_calls:
            return {"code": "COMPLETED", "reason": message.content or ""}
        for call in message.tool_calls:
            name, arguments = call.function.name, call.function.arguments
            result = call_tool(name, arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
            stop = logic.observe(name, arguments, result)
            if stop:
                return stop
    return logic.out_of_turns()


def _responses_turns(
    client: OpenAI, task: str, tools: list[Any], call_tool: ToolCaller, stream: bool
) -> dict[str, Any]:
    logic, items = StopLogic(), list[Any]([{"role": "user", "content": task}])
    functions: list[Any] = [{"type": "function", **tool["function"]} for tool in tools]
    response: Any
    for _ in range(MAX_TURNS):
        if stream:
            with client.responses.stream(model=MODEL, input=items, tools=functions) as events:
                response = events.get_final_response()
        else:
            response = client.responses.create(model=MODEL, input=items, tools=functions)
        calls = [item for item in response.output if item.type == "function_call"]
        items += [
            item.model_dump(exclude_none=True, exclude={"parsed_arguments"})
            for item in response.output
        ]
        if not calls:
            return {"code": "COMPLETED", "reason": response.output_text}
        for call in calls:
            result = call_tool(call.name, call.arguments)
            items.append(
                {"type": "function_call_output", "call_id": call.call_id, "output": result}
            )
            stop = logic.observe(call.name, call.arguments, result)
            if stop:
                return stop
    return logic.out_of_turns()


def main() -> None:
    task, tools = sys.argv[1], json.loads(sys.argv[2])
    api = sys.argv[3] if len(sys.argv) > 3 else "chat"
    print(json.dumps(run_agent(OpenAI(), task, tools, http_tool, api=api)))


if __name__ == "__main__":
    main()
