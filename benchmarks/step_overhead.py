"""Harness overhead per agent step on the plain face.

The same agent loop (one model call, then the tool call it asks for) runs twice: against a
`Session` (scripted model, fake tools and world, probe, ceilings, trajectory tail) through
`harness.run`, and against a bare scripted function that returns replies of the same shape.
Prints µs per step for both, the overhead and the ratio, and the fixed cost of one run.

    python benchmarks/step_overhead.py [--steps 5000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import harness
import scenarios
from benchmarks._timing import machine, median_seconds
from harness import Ceilings, Code, Session, Stop

SCENARIO = "constant-return/repeat"
CallModel = Callable[[list[dict[str, Any]], Any], dict[str, Any]]
CallTool = Callable[[str, Any], str]


def loop(call_model: CallModel, call_tool: CallTool, task: str, tools: Any, steps: int) -> None:
    """The agent under test: a constant prompt, so the conversation's growth is not measured."""
    messages = [{"role": "user", "content": task}]
    for _ in range(steps):
        reply = call_model(messages, tools)
        for call in reply.get("tool_calls") or ():
            call_tool(call["function"]["name"], call["function"]["arguments"])


def through_harness(steps: int) -> float:
    """Seconds the loop spends inside `harness.run` (run set-up and judging excluded)."""
    inside: list[float] = []

    def agent(session: Session) -> Stop:
        start = time.perf_counter()
        loop(session.call_model, session.call_tool, session.task, session.tools, steps)
        inside.append(time.perf_counter() - start)
        return Stop(code=Code.NO_PROGRESS, reason="benchmark")

    ceilings = Ceilings(max_steps=steps, max_tool_calls=2 * steps, max_wall_seconds=120)
    harness.run(agent, scenarios.get(SCENARIO), ceilings=ceilings)
    return inside[0]


def bare_functions() -> tuple[CallModel, CallTool, str, Any]:
    """A scripted function returning what the session returned, with a fresh call id each time."""
    scenario = scenarios.get(SCENARIO)
    session = Session(scenario, scenario.build(0), seed=0, ceilings=Ceilings())
    first = session.call_model([{"role": "user", "content": session.task}], session.tools)
    call = first["tool_calls"][0]["function"]
    result = session.call_tool(call["name"], call["arguments"])
    counter = iter(range(1 << 62))

    def call_model(messages: list[dict[str, Any]], tools: Any) -> dict[str, Any]:
        function = {"name": call["name"], "arguments": call["arguments"]}
        tool_call = {"id": f"call_{next(counter)}", "type": "function", "function": function}
        return {**first, "tool_calls": [tool_call], "usage": dict(first["usage"])}

    def call_tool(name: str, arguments: Any) -> str:
        return result

    return call_model, call_tool, session.task, session.tools


def fixed_cost(runs: int) -> float:
    """Seconds per `harness.run` of a one-step agent: build, worker thread, finish, judge."""

    def agent(session: Session) -> Stop:
        loop(session.call_model, session.call_tool, session.task, session.tools, 1)
        return Stop(code=Code.NO_PROGRESS, reason="benchmark")

    scenario = scenarios.get(SCENARIO)
    start = time.perf_counter()
    for _ in range(runs):
        harness.run(agent, scenario)
    return (time.perf_counter() - start) / runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    with_harness = sorted(through_harness(args.steps) for _ in range(args.repeats))
    harness_s = with_harness[len(with_harness) // 2]
    bare = bare_functions()
    bare_s = median_seconds(lambda: loop(*bare, args.steps), repeats=args.repeats)
    per_step = [seconds / args.steps * 1e6 for seconds in (harness_s, bare_s)]
    print(machine())
    print(f"plain face, {SCENARIO}, {args.steps} steps (a model call and a tool call each),")
    print(f"median of {args.repeats}:")
    print(f"  harness session      {per_step[0]:8.1f} µs/step")
    print(f"  bare scripted fn     {per_step[1]:8.1f} µs/step")
    print(
        f"  overhead             {per_step[0] - per_step[1]:8.1f} µs/step "
        f"(ratio {per_step[0] / per_step[1]:.0f}x)"
    )
    print(f"  fixed cost per run   {fixed_cost(200) * 1e3:8.2f} ms (build, thread, judge)")


if __name__ == "__main__":
    main()
