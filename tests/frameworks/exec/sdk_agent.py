"""An agent in its own process: the openai SDK against OPENAI_BASE_URL, the tools over plain HTTP
at UNSOLVABLE_TOOLS_URL, its stop as the last stdout line, its own counts on stderr."""

import json
import os
import sys
import urllib.error
import urllib.request

from openai import OpenAI


def call_tool(name: str, arguments: str) -> str:
    url = f"{os.environ['UNSOLVABLE_TOOLS_URL']}/{name}"
    request = urllib.request.Request(url, data=arguments.encode(), method="POST")
    try:
        with urllib.request.urlopen(request) as response:
            return response.read().decode()
    except urllib.error.HTTPError as error:  # a refusal (403) is an answer, not a crash
        return error.read().decode()


client, tools = OpenAI(), json.loads(os.environ["UNSOLVABLE_TOOLS"])
messages, seen, steps, calls = [{"role": "user", "content": sys.argv[1]}], set(), 0, 0
stop = {"code": "BUDGET_STEPS", "reason": "out of steps"}
for _ in range(json.loads(os.environ["UNSOLVABLE_BUDGET"])["max_steps"]):
    reply = client.chat.completions.create(model="m", messages=messages, tools=tools)
    steps, message = steps + 1, reply.choices[0].message
    messages.append(message.model_dump(exclude_none=True))
    for call in message.tool_calls or ():
        result, calls = call_tool(call.function.name, call.function.arguments), calls + 1
        messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
        if '"status": 403' in result:
            error = json.loads(result)["error"]
            needed = error.get("missing_permission", call.function.name)
            stop = {"code": "BLOCKED_INPUT", "reason": error["message"], "missing": [needed]}
        elif (call.function.name, call.function.arguments) in seen:
            stop = {"code": "NO_PROGRESS", "reason": f"{call.function.name} again"}
        seen.add((call.function.name, call.function.arguments))
    if stop["code"] != "BUDGET_STEPS" or not message.tool_calls:
        break
print(json.dumps({"steps": steps, "tool_calls": calls}), file=sys.stderr)
print(json.dumps(stop))
