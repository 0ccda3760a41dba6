"""The wire's share of an SDK call along a growing conversation: an ``openai`` or ``anthropic``
client, unmodified, calls the fake model through the wire's transport, re-sending its whole
conversation every call, as agents do; the time inside `Wire.handle` (reading the body, the
session's step, writing the reply) is set against the whole call's, at call 10, 100 and 1,000.

An SDK call costs more the longer the conversation it sends. The wire parses only what a body
adds to the conversation's previous one, but still passes over the whole body (decoding it,
comparing its text with the previous one's) and hands the session the whole conversation, so its
time grows too, far more slowly: what must not grow is the wire's share of the call.
Thread CPU time, medians over the calls of each window.

    python -m benchmarks.wire_request [--calls 1000] [--formats chat anthropic responses]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

from benchmarks._timing import machine
from unsolvable import Ceilings, Session, scenarios
from unsolvable.wire import Wire

SCENARIO = "constant-return/repeat"
WINDOWS = ((1, 10), (91, 100), (991, 1000))


def _session(calls: int) -> Session:
    scenario = scenarios.get(SCENARIO)
    ceilings = Ceilings(max_steps=calls, max_tool_calls=calls, max_wall_seconds=3600)
    return Session(scenario, scenario.build(0), seed=0, ceilings=ceilings)


def _chat(wire: Wire, calls: int, on_call: Callable[[], None]) -> None:
    client = wire.openai_client()
    tools = [{"type": "function", "function": spec} for spec in _specs(wire)]
    messages: list[dict[str, Any]] = [{"role": "user", "content": wire.session.task}]
    for _ in range(calls):
        reply = client.chat.completions.create(model="m", messages=messages, tools=tools)
        on_call()
        message = reply.choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls or ():
            messages.append({"role": "tool", "tool_call_id": call.id, "content": "{}"})


def _anthropic(wire: Wire, calls: int, on_call: Callable[[], None]) -> None:
    client = wire.anthropic_client()
    tools = [
        {"name": s["name"], "description": s["description"], "input_schema": s["parameters"]}
        for s in _specs(wire)
    ]
    messages: list[dict[str, Any]] = [{"role": "user", "content": wire.session.task}]
    for _ in range(calls):
        reply = client.messages.create(model="m", max_tokens=64, messages=messages, tools=tools)
        on_call()
        uses = [block for block in reply.content if block.type == "tool_use"]
        messages.append({"role": "assistant", "content": [b.model_dump() for b in reply.content]})
        results = [{"type": "tool_result", "tool_use_id": u.id, "content": "{}"} for u in uses]
        messages.append({"role": "user", "content": results or "go on"})


def _specs(wire: Wire) -> list[dict[str, Any]]:
    return [spec.to_openai()["function"] for spec in wire.session.tools]


DRIVERS = {"chat": _chat, "anthropic": _anthropic}


def measure(name: str, calls: int) -> tuple[list[float], list[float]]:
    """Per call: the whole SDK call's thread CPU seconds, and the wire's within it."""
    wire = Wire(_session(calls))
    inside: list[float] = []
    handle = wire.handle

    def timed_handle(request: Any) -> Any:
        start = time.thread_time()
        try:
            return handle(request)
        finally:
            inside.append(time.thread_time() - start)

    wire.handle = timed_handle  # type: ignore[method-assign]
    whole: list[float] = []
    mark = [time.thread_time()]

    def on_call() -> None:
        now = time.thread_time()
        whole.append(now - mark[0])
        mark[0] = now

    DRIVERS[name](wire, calls, on_call)
    return whole, inside


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--formats", nargs="+", default=sorted(DRIVERS), choices=sorted(DRIVERS))
    args = parser.parse_args()
    print(machine())
    print(
        f"  {'format':<10} {'calls':>11}  {'SDK call':>9}  {'wire':>8}  share  (µs of thread CPU)"
    )
    for name in args.formats:
        whole, inside = measure(name, args.calls)
        for first, last in WINDOWS:
            if last > args.calls:
                break
            call = statistics.median(whole[first - 1 : last]) * 1e6
            wire = statistics.median(inside[first - 1 : last]) * 1e6
            print(
                f"  {name:<10} {first:>5}–{last:<5}  {call:9.0f}  {wire:8.0f}  {wire / call:5.1%}"
            )


if __name__ == "__main__":
    main()
