"""A multi-agent system in its own process: a supervisor on OPENAI_BASE_URL hands each subtask to
a worker holding a client of its own at $UNSOLVABLE_AGENTS_URL/<worker>/v1 (its tools under
…/<worker>/tools); one ledger of the budget's steps, shared by all, is checked before each call."""

import json
import os
import urllib.request

from openai import OpenAI

AGENTS, TOOLS = os.environ["UNSOLVABLE_AGENTS_URL"], json.loads(os.environ["UNSOLVABLE_TOOLS"])
ledger = {"left": json.loads(os.environ["UNSOLVABLE_BUDGET"])["max_steps"]}


def ask(client: OpenAI, messages: list, tools: list) -> object:
    ledger["left"] -= 1
    reply = client.chat.completions.create(model="m", messages=messages, tools=tools)
    messages.append(reply.choices[0].message.model_dump(exclude_none=True))
    return reply.choices[0].message


def work(name: str, subtask: str) -> str:
    """A worker: its own client and conversation; it stops when a call brings nothing new."""
    client, messages, seen = OpenAI(base_url=f"{AGENTS}/{name}/v1"), [], set()
    messages.append({"role": "user", "content": subtask})
    while ledger["left"] > 0:
        for call in ask(client, messages, TOOLS).tool_calls or ():
            url = f"{AGENTS}/{name}/tools/{call.function.name}"
            post = urllib.request.Request(url, data=call.function.arguments.encode())
            with urllib.request.urlopen(post) as answer:
                result = answer.read().decode()
            fact = json.dumps({**json.loads(result), "request_id": None}, sort_keys=True)
            if fact in seen:  # request ids change every call; the facts do not
                return "NO_PROGRESS"
            seen.add(fact)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
    return "BUDGET_STEPS"


supervisor, messages = OpenAI(), [{"role": "user", "content": os.environ["UNSOLVABLE_TASK"]}]
calls = ask(supervisor, messages, TOOLS).tool_calls or ()
codes = [work(f"worker-{i}", call.function.arguments) for i, call in enumerate(calls, 1)]
print(json.dumps({"code": codes[-1], "reason": f"workers stopped: {codes}", "partial": codes}))
