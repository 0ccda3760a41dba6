"""An agent written directly against the ``google-genai`` SDK: it is handed a client and speaks
the Gemini API with automatic function calling off and a loop of its own, streaming
(``generate_content_stream``) or not.

Run as a module (``python -m tests.frameworks.gemini.sdk_agent TASK TOOLS_JSON``) it builds
``genai.Client()`` with no arguments — base URL and key from the environment — calls its tools
over HTTP and prints its stop as JSON.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

from google import genai
from google.genai import types

from tests.frameworks._sdk_agent import MAX_TURNS, StopLogic, http_tool

MODEL = "gemini-2.5-flash"


def config_for(tools: list[dict[str, Any]]) -> types.GenerateContentConfig:
    """``tools`` in the Chat Completions shape as function declarations, called by the loop."""
    declarations = [
        types.FunctionDeclaration(
            name=t["function"]["name"],
            description=t["function"]["description"],
            parameters_json_schema=t["function"]["parameters"],
        )
        for t in tools
    ]
    return types.GenerateContentConfig(
        tools=[types.Tool(function_declarations=declarations)],
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )


def ask(
    client: genai.Client, contents: list[types.Content], config: Any, *, stream: bool
) -> tuple[types.Content, types.GenerateContentResponseUsageMetadata | None]:
    """The model's turn and its usage; a stream's parts joined, its last usage kept."""
    if not stream:
        response = client.models.generate_content(model=MODEL, contents=contents, config=config)
        assert response.candidates and response.candidates[0].content
        return response.candidates[0].content, response.usage_metadata
    parts: list[types.Part] = []
    usage = None
    for chunk in client.models.generate_content_stream(
        model=MODEL, contents=contents, config=config
    ):
        assert chunk.candidates and chunk.candidates[0].content
        parts += chunk.candidates[0].content.parts or ()
        usage = chunk.usage_metadata
    return types.Content(role="model", parts=parts), usage


def run_agent(
    client: genai.Client,
    task: str,
    tools: list[dict[str, Any]],
    call_tool: Callable[[str, str], str],
    *,
    stream: bool = False,
    usages: list[types.GenerateContentResponseUsageMetadata] | None = None,
) -> dict[str, Any]:
    """Runs the task to a stop, noting each turn's usage in ``usages``."""
    logic, config = StopLogic(), config_for(tools)
    contents = [types.Content(role="user", parts=[types.Part.from_text(text=task)])]
    for _ in range(MAX_TURNS):
        content, usage = ask(client, contents, config, stream=stream)
        if usages is not None and usage is not None:
            usages.append(usage)
        contents.append(content)
        calls = [part.function_call for part in content.parts or () if part.function_call]
        if not calls:
            return {"code": "COMPLETED", "reason": "model finished"}
        results, stop = [], None
        for call in calls:
            arguments = json.dumps(call.args or {})
            result = call_tool(str(call.name), arguments)
            response = types.FunctionResponse(
                id=call.id, name=call.name, response={"result": result}
            )
            results.append(types.Part(function_response=response))
            stop = stop or logic.observe(str(call.name), arguments, result)
        contents.append(types.Content(role="user", parts=results))
        if stop:
            return stop
    return logic.out_of_turns()


def main() -> None:
    task, tools = sys.argv[1], json.loads(sys.argv[2])
    print(json.dumps(run_agent(genai.Client(), task, tools, http_tool)))


if __name__ == "__main__":
    main()
