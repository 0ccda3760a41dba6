"""Wire-face overhead per call, at call 1 and call 50 of a growing conversation.

The same SDK client (``openai`` Chat Completions and Responses, ``anthropic`` Messages), JSON
and SSE, runs one conversation against the wire face (`unsolvable.wire.Wire`: the request parsed,
the scripted model stepped through the session, the reply rendered) and the same conversation
against a bare ``httpx2.MockTransport`` that replays, call by call, the bytes the wire answered.
The agent appends an assistant tool call and its result after every call, as agents do, so the
request grows and so does the SDK's own cost. The two sides alternate conversation by
conversation, and each figure is the median over the repeats of that call's time.

    python -m benchmarks.wire_overhead [--calls 50] [--repeats 9]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from typing import Any

import anthropic
import httpx2
import openai

from benchmarks._timing import machine
from unsolvable import Ceilings, Session, scenarios
from unsolvable.wire import ANTHROPIC_BASE_URL, FAKE_API_KEY, OPENAI_BASE_URL, Wire

SCENARIO = "constant-return/repeat"
RESULT = '{"request_id": "req-0", "results": [], "total": 0}'
ARGUMENTS = {"customer": "ACME-0", "offset": 0, "query": "open invoice"}
ARGUMENT_TEXT = json.dumps(ARGUMENTS, sort_keys=True)
Handler = Callable[[httpx2.Request], httpx2.Response]
Answer = tuple[list[tuple[str, str]], bytes]
"""A response as recorded: its headers and its body."""
Call = Callable[[Any, list[Any], bool], object]


def session(calls: int) -> Session:
    scenario = scenarios.get(SCENARIO)
    ceilings = Ceilings(max_steps=calls + 10, max_tool_calls=10, max_wall_seconds=600)
    return Session(scenario, scenario.build(0), seed=0, ceilings=ceilings)


def _specs() -> Any:
    return session(1).tools


def _chat(client: Any, history: list[Any], stream: bool) -> object:
    tools = [spec.to_openai() for spec in _SPECS]
    reply = client.chat.completions.create(
        model="gpt-x", messages=history, tools=tools, stream=stream
    )
    return list(reply) if stream else reply


def _responses(client: Any, history: list[Any], stream: bool) -> object:
    tools = [
        {
            "type": "function",
            "name": s.name,
            "description": s.description,
            "parameters": s.parameters,
        }
        for s in _SPECS
    ]
    reply = client.responses.create(model="gpt-x", input=history, tools=tools, stream=stream)
    return list(reply) if stream else reply


def _anthropic(client: Any, history: list[Any], stream: bool) -> object:
    tools = [
        {"name": s.name, "description": s.description, "input_schema": s.parameters} for s in _SPECS
    ]
    reply = client.messages.create(
        model="claude-x", max_tokens=256, messages=history, tools=tools, stream=stream
    )
    return list(reply) if stream else reply


def _grow_chat(history: list[Any], i: int, name: str) -> None:
    function = {"name": name, "arguments": ARGUMENT_TEXT}
    call = {"id": f"call_{i}", "type": "function", "function": function}
    history.append({"role": "assistant", "content": None, "tool_calls": [call]})
    history.append({"role": "tool", "tool_call_id": f"call_{i}", "content": RESULT})


def _grow_responses(history: list[Any], i: int, name: str) -> None:
    call_id = f"call_{i}"
    history.append(
        {"type": "function_call", "call_id": call_id, "name": name, "arguments": ARGUMENT_TEXT}
    )
    history.append({"type": "function_call_output", "call_id": call_id, "output": RESULT})


def _grow_anthropic(history: list[Any], i: int, name: str) -> None:
    use = {"type": "tool_use", "id": f"toolu_{i}", "name": name, "input": dict(ARGUMENTS)}
    history.append({"role": "assistant", "content": [use]})
    result = {"type": "tool_result", "tool_use_id": f"toolu_{i}", "content": RESULT}
    history.append({"role": "user", "content": [result]})


Grow = Callable[[list[Any], int, str], None]
FORMATS: dict[str, tuple[type, str, Call, Grow]] = {
    "chat completions": (openai.OpenAI, OPENAI_BASE_URL, _chat, _grow_chat),
    "responses": (openai.OpenAI, OPENAI_BASE_URL, _responses, _grow_responses),
    "anthropic messages": (anthropic.Anthropic, ANTHROPIC_BASE_URL, _anthropic, _grow_anthropic),
}
_SPECS = _specs()


def client(fmt: str, handler: Handler) -> Any:
    client_class, base_url, _, _ = FORMATS[fmt]
    http_client = httpx2.Client(transport=httpx2.MockTransport(handler))
    return client_class(
        api_key=FAKE_API_KEY, base_url=base_url, http_client=http_client, max_retries=0
    )


def conversation(fmt: str, sdk: Any, calls: int, stream: bool) -> list[float]:
    """Seconds of each call of one conversation."""
    _, _, call, grow = FORMATS[fmt]
    history: list[Any] = [{"role": "user", "content": scenarios.get(SCENARIO).task}]
    times = []
    for i in range(calls):
        start = time.perf_counter()
        call(sdk, history, stream)
        times.append(time.perf_counter() - start)
        grow(history, i, _SPECS[0].name)
    return times


def wired(calls: int) -> Handler:
    """A fresh wire's handler, over a session with room for ``calls`` steps."""
    return Wire(session(calls)).httpx2_transport().handle_request


def recorded(fmt: str, calls: int, stream: bool) -> tuple[list[httpx2.Request], list[Answer]]:
    """The requests of one conversation on the wire, and what the wire answered to each, to
    replay on the bare side."""
    answer = wired(calls)
    requests, answers = [], []

    def record(request: httpx2.Request) -> httpx2.Response:
        request.read()
        requests.append(request)
        response = answer(request)
        response.read()
        answers.append((list(response.headers.items()), response.content))
        return response

    conversation(fmt, client(fmt, record), calls, stream)
    return requests, answers


def replaying(answers: list[Answer]) -> Handler:
    """The bare mock's handler: the recorded answers, call by call, and nothing else."""
    replies = iter(answers)

    def replay(request: httpx2.Request) -> httpx2.Response:
        headers, content = next(replies)
        return httpx2.Response(200, headers=headers, content=content)

    return replay


def _measure(fmt: str, calls: int, stream: bool, repeats: int) -> tuple[list[float], list[float]]:
    """Median seconds of each call, on the wire and on the bare mock."""
    _, answers = recorded(fmt, calls, stream)

    def bare() -> list[float]:
        return conversation(fmt, client(fmt, replaying(answers)), calls, stream)

    def wire() -> list[float]:
        sdk = client(fmt, wired(calls))
        return conversation(fmt, sdk, calls, stream)

    wire(), bare()  # warm up: the SDKs build their models lazily
    runs: dict[str, list[list[float]]] = {"wire": [], "bare": []}
    for _ in range(repeats):
        runs["wire"].append(wire())
        runs["bare"].append(bare())
    medians = {
        side: [statistics.median(run[i] for run in sides) for i in range(calls)]
        for side, sides in runs.items()
    }
    return medians["wire"], medians["bare"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=9)
    args = parser.parse_args()
    print(machine())
    print(f"{SCENARIO}; µs per call, median of {args.repeats} interleaved conversations:")
    print(
        f"  {'format':<20} {'body':<5} {'call':>5}  {'wire':>8}  {'bare':>8}  {'overhead':>8}  "
        "ratio"
    )
    for fmt in FORMATS:
        for stream in (False, True):
            wire, bare = _measure(fmt, args.calls, stream, args.repeats)
            for index in sorted({0, args.calls - 1}):
                w, b = wire[index] * 1e6, bare[index] * 1e6
                body = "SSE" if stream else "JSON"
                print(
                    f"  {fmt:<20} {body:<5} {index + 1:>5}  {w:8.0f}  {b:8.0f}  {w - b:8.0f}  "
                    f"{w / b:.2f}x"
                )


if __name__ == "__main__":
    main()
