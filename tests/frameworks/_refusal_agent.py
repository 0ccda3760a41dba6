"""An agent in another process: the model and the tools over HTTP with urllib, every answer body
it received handed back as its partial results (the last stdout line)."""

import json
import os
import sys
import urllib.error
import urllib.request


def post(url: str, body: object) -> str:
    headers = {"content-type": "application/json"}
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers)
    try:
        with urllib.request.urlopen(request) as answer:
            return str(answer.read().decode())
    except urllib.error.HTTPError as refused:
        return str(refused.read().decode())


messages, received = [{"role": "user", "content": os.environ["UNSOLVABLE_TASK"]}], []
tools = json.loads(os.environ["UNSOLVABLE_TOOLS"])
for _ in range(int(sys.argv[1])):
    ask = {"model": "m", "messages": messages, "tools": tools}
    message = json.loads(post(os.environ["OPENAI_BASE_URL"] + "/chat/completions", ask))
    message = message["choices"][0]["message"]
    messages.append(message)
    for call in message.get("tool_calls") or ():
        function = call["function"]
        url = os.environ["UNSOLVABLE_TOOLS_URL"] + "/" + function["name"]
        text = post(url, json.loads(function["arguments"]))
        received.append(text)
        messages.append({"role": "tool", "tool_call_id": call["id"], "content": text})
print(json.dumps({"code": "NO_PROGRESS", "reason": "refused", "partial": received}))
