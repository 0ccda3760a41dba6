"""Wire-face overhead per call.

The same SDK call (``openai`` Chat Completions, ``anthropic`` Messages) runs against the wire face
(`harness.wire.Wire`: request parsed, scripted model stepped through the session, reply rendered)
and against a bare ``httpx2.MockTransport`` that replays the wire's own answer, byte for byte.
The difference is what the wire adds to each model call. The plain face (`Session.call_model`)
and the wire's handler alone (no SDK, no transport) are shown for scale.

    python benchmarks/wire_overhead.py [--calls 300] [--repeats 7]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import Any

import anthropic
import httpx2
import openai

import scenarios
from benchmarks._timing import machine
from harness import Ceilings, Session
from harness.wire import ANTHROPIC_BASE_URL, FAKE_API_KEY, OPENAI_BASE_URL, Wire, WireRequest

SCENARIO = "constant-return/repeat"
WARM_UP = 20
"""Calls made before timing: the SDKs build their request and response models lazily."""
Action = Callable[[], object]
Handler = Callable[[httpx2.Request], httpx2.Response]


def _session(calls: int) -> Session:
    scenario = scenarios.get(SCENARIO)
    ceilings = Ceilings(max_steps=calls + WARM_UP + 10, max_tool_calls=10, max_wall_seconds=600)
    return Session(scenario, scenario.build(0), seed=0, ceilings=ceilings)


def _openai_call(client: Any, session: Session) -> Action:
    messages = [{"role": "user", "content": session.task}]
    tools = session.openai_tools
    return lambda: client.chat.completions.create(model="gpt-x", messages=messages, tools=tools)


def _anthropic_call(client: Any, session: Session) -> Action:
    messages = [{"role": "user", "content": session.task}]
    tools = [
        {"name": t.name, "description": t.description, "input_schema": t.parameters}
        for t in session.tools
    ]
    return lambda: client.messages.create(
        model="claude-x", max_tokens=256, messages=messages, tools=tools
    )


SDKS: dict[str, tuple[type, str, Callable[[Any, Session], Action]]] = {
    "openai chat.completions": (openai.OpenAI, OPENAI_BASE_URL, _openai_call),
    "anthropic messages": (anthropic.Anthropic, ANTHROPIC_BASE_URL, _anthropic_call),
}


def _client(sdk: str, handler: Handler) -> Any:
    client_class, base_url, _ = SDKS[sdk]
    http_client = httpx2.Client(transport=httpx2.MockTransport(handler))
    return client_class(
        api_key=FAKE_API_KEY, base_url=base_url, http_client=http_client, max_retries=0
    )


def _replaying(sdk: str) -> Any:
    """A client on a bare mock transport that answers what the wire answered to the same call."""
    session = _session(1)
    wire = Wire(session).httpx2_transport()
    answers: list[tuple[list[tuple[str, str]], bytes]] = []

    def record(request: httpx2.Request) -> httpx2.Response:
        response = wire.handle_request(request)
        response.read()
        answers.append((list(response.headers.items()), response.content))
        return response

    SDKS[sdk][2](_client(sdk, record), session)()
    headers, content = answers[0]
    return _client(sdk, lambda request: httpx2.Response(200, headers=headers, content=content))


def _per_call(action: Action, calls: int) -> float:
    """µs per call over one batch of ``calls``."""
    start = time.perf_counter()
    for _ in range(calls):
        action()
    return (time.perf_counter() - start) / calls * 1e6


def _interleaved(actions: tuple[Action, Action], calls: int, repeats: int) -> tuple[float, float]:
    """Median µs per call of two actions, batches alternating so that drift on a shared machine
    hits both alike; each is warmed up first."""
    for action in actions:
        _per_call(action, WARM_UP)
    runs: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeats):
        for times, action in zip(runs, actions, strict=True):
            times.append(_per_call(action, calls))
    first, second = (sorted(times)[len(times) // 2] for times in runs)
    return first, second


def _sdk(sdk: str, calls: int, repeats: int) -> tuple[float, float]:
    """(wire, bare) µs per call for one SDK."""
    session = _session((calls + WARM_UP) * repeats)
    wire_client = _client(sdk, Wire(session).httpx2_transport().handle_request)
    make = SDKS[sdk][2]
    return _interleaved(
        (make(wire_client, session), make(_replaying(sdk), session)), calls, repeats
    )


def _faces(calls: int, repeats: int) -> tuple[float, float]:
    """(plain face, wire handler) µs per call: the same scripted model, no SDK in the way."""
    session = _session(2 * (calls + WARM_UP) * repeats)
    messages = [{"role": "user", "content": session.task}]
    body = {"model": "gpt-x", "messages": messages, "tools": session.openai_tools}
    request = WireRequest(
        method="POST", url=f"{OPENAI_BASE_URL}/chat/completions", body=json.dumps(body).encode()
    )
    wire = Wire(session)
    plain: Action = lambda: session.call_model(messages, session.tools)  # noqa: E731
    return _interleaved((plain, lambda: wire.handle(request)), calls, repeats)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    print(machine())
    print(f"{SCENARIO}, batches of {args.calls} calls, median of {args.repeats} batches:")
    plain, handler = _faces(args.calls, args.repeats)
    print(f"  plain face: Session.call_model                  {plain:8.1f} µs/call")
    print(f"  wire face: Wire.handle alone (no SDK)           {handler:8.1f} µs/call")
    for sdk in SDKS:
        wire_us, bare_us = _sdk(sdk, args.calls, args.repeats)
        print(f"  {sdk:<24} on the wire face   {wire_us:8.1f} µs/call")
        print(f"  {sdk:<24} on a bare mock     {bare_us:8.1f} µs/call")
        print(
            f"  {sdk:<24} wire overhead      {wire_us - bare_us:8.1f} µs/call "
            f"(ratio {wire_us / bare_us:.2f}x)"
        )


if __name__ == "__main__":
    main()
