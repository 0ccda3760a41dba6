"""An agent in its own process that keeps its budgets as an in-process agent keeps them on its
session: it waits out each Retry-After on the session clock (POST UNSOLVABLE_CLOCK_URL/sleep),
reads the clock before each step to stop on the idle or total time budget, and prices what each
step used at UNSOLVABLE_PRICING to stop before a step the dollar budget could not cover."""

import json
import os
import sys
import urllib.error
import urllib.request

from openai import OpenAI

CLOCK = os.environ["UNSOLVABLE_CLOCK_URL"]
BUDGET = json.loads(os.environ["UNSOLVABLE_BUDGET"])
PRICES = json.loads(os.environ["UNSOLVABLE_PRICING"])


def fetch(url: str, body: object = None) -> tuple[int, str]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method="GET" if data is None else "POST")
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:  # a refusal or a dead dependency is an answer
        return error.code, error.read().decode()


def clock() -> float:
    return float(json.loads(fetch(CLOCK)[1])["clock"])


def wait_asked(text: str) -> float:
    """The seconds a dependency asks to be left alone: a 503's or a queued job's hint."""
    try:
        body = json.loads(text)
    except ValueError:
        return 0.0
    if not isinstance(body, dict):
        return 0.0
    error = body.get("error")
    hint = error.get("retry_after") if isinstance(error, dict) else body.get("retry_after")
    return float(hint) if isinstance(hint, int | float) else 0.0


def answer_key(text: str) -> str:
    """The answer without its request id, which a service makes afresh for every request."""
    try:
        body = json.loads(text)
    except ValueError:
        return text
    if isinstance(body, dict):
        body.pop("request_id", None)
    return json.dumps(body, sort_keys=True)


def over_budget(dollars: float, last: float, changed_at: float) -> dict[str, str] | None:
    """The budget the next step cannot have, checked before it is asked for."""
    now = clock()
    if BUDGET["max_cost_usd"] is not None and dollars + last > BUDGET["max_cost_usd"]:
        return {"code": "BUDGET_COST", "reason": f"${dollars:.4f} spent, a step costs ${last:.4f}"}
    if BUDGET["max_wall_seconds"] is not None and now >= BUDGET["max_wall_seconds"]:
        return {"code": "BUDGET_TIME", "reason": f"{now:.0f} s on the session clock"}
    if BUDGET["max_idle_seconds"] is not None and now - changed_at >= BUDGET["max_idle_seconds"]:
        return {"code": "BUDGET_IDLE", "reason": f"nothing changed for {now - changed_at:.0f} s"}
    return None


client, tools = OpenAI(), json.loads(os.environ["UNSOLVABLE_TOOLS"])
messages = [{"role": "user", "content": sys.argv[1]}]
seen: set[str] = set()
dollars = last = changed_at = 0.0
stop = {"code": "BUDGET_STEPS", "reason": "out of steps"}
for _ in range(BUDGET["max_steps"]):
    ended = over_budget(dollars, last, changed_at)
    if ended is not None:
        stop = {**ended, "partial": f"{len(seen)} distinct answers read"}
        break
    reply = client.chat.completions.create(model="m", messages=messages, tools=tools)
    usage, message = reply.usage, reply.choices[0].message
    assert usage is not None
    last = usage.prompt_tokens * PRICES["usd_per_million_input"] / 1e6
    last += usage.completion_tokens * PRICES["usd_per_million_output"] / 1e6
    dollars += last
    messages.append(message.model_dump(exclude_none=True))
    if not message.tool_calls:
        stop = {"code": "COMPLETED", "reason": message.content or "done"}
        break
    for call in message.tool_calls:
        status, result = fetch(
            f"{os.environ['UNSOLVABLE_TOOLS_URL']}/{call.function.name}",
            json.loads(call.function.arguments or "{}"),
        )
        messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
        key = answer_key(result)
        if key not in seen:  # a new answer is a change of state: the idle time restarts
            changed_at = clock()
        seen.add(key)
        wait = wait_asked(result)
        if wait:
            fetch(f"{CLOCK}/sleep", {"seconds": wait})
print(json.dumps(stop))
