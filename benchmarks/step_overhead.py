"""Harness overhead per agent step on the plain face, early and late in a long run.

The same README-style agent loop runs against a `Session` (scripted model, fake tools and world,
probe, ceilings, trajectory tail) and against a bare scripted function returning replies of the
same shape. With ``--growing`` (the default) the agent appends the assistant and tool messages
every step, as real agents do, so a harness that re-reads the whole conversation per call shows a
cost that grows with the step; ``--constant`` re-sends one message. The two loops alternate
(A/B/A/B...) and each window's figure is the median over the repeats, so a machine that is busy
now and then moves both sides alike. Each step is timed on two clocks: the wall clock, and the
thread's CPU time, which other processes on a shared machine do not inflate (they still slow it
through the caches, so ratios to the bare loop are the firm numbers).

    python -m benchmarks.step_overhead [--steps 10000] [--repeats 5] [--constant]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import unsolvable
from benchmarks._timing import machine
from unsolvable import Ceilings, Code, Session, Stop, scenarios

SCENARIO = "constant-return/repeat"
CallModel = Callable[[list[dict[str, Any]], Any], dict[str, Any]]
CallTool = Callable[[str, Any], str]
Mark = tuple[float, float]
"""Wall and thread CPU seconds at one moment."""
CLOCKS = ("wall", "cpu")


def now() -> Mark:
    return time.perf_counter(), time.thread_time()


def loop(
    call_model: CallModel, call_tool: CallTool, task: str, tools: Any, steps: int, *, grow: bool
) -> list[Mark]:
    """The agent under test; returns the clocks at the end of each step."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": task}]
    marks = []
    for _ in range(steps):
        reply = call_model(messages, tools)
        if grow:
            messages.append({k: v for k, v in reply.items() if k != "usage"})
        for call in reply.get("tool_calls") or ():
            result = call_tool(call["function"]["name"], call["function"]["arguments"])
            if grow:
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
        marks.append(now())
    return marks


def through_harness(steps: int, *, grow: bool) -> list[Mark]:
    """Per-step seconds inside `unsolvable.run` (run set-up and judging excluded)."""
    marks: list[Mark] = []

    def agent(session: Session) -> Stop:
        start = now()
        ends = loop(
            session.call_model, session.call_tool, session.task, session.tools, steps, grow=grow
        )
        marks.extend(_durations(start, ends))
        return Stop(code=Code.NO_PROGRESS, reason="benchmark")

    ceilings = Ceilings(max_steps=steps, max_tool_calls=2 * steps, max_wall_seconds=600)
    unsolvable.run(agent, scenarios.get(SCENARIO), ceilings=ceilings)
    return marks


def _durations(start: Mark, ends: list[Mark]) -> list[Mark]:
    pairs = zip([start, *ends], ends, strict=False)
    return [(end[0] - before[0], end[1] - before[1]) for before, end in pairs]


def bare(steps: int, *, grow: bool) -> list[Mark]:
    """The same loop against a scripted function returning what the session returns."""
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

    start = now()
    return _durations(
        start, loop(call_model, call_tool, session.task, session.tools, steps, grow=grow)
    )


def windows(steps: int) -> list[tuple[int, int]]:
    """Steps 1–10, 91–100, 901–1,000, ...: ten or a hundred steps at each order of magnitude."""
    found, end = [], 10
    while end <= steps:
        found.append((end - max(10, end // 10) + 1, end))
        end *= 10
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--constant", action="store_true", help="re-send one message")
    args = parser.parse_args()
    grow = not args.constant
    runs: dict[str, list[list[Mark]]] = {"harness": [], "bare": []}
    for _ in range(args.repeats):  # interleaved: A, B, A, B, ...
        runs["harness"].append(through_harness(args.steps, grow=grow))
        runs["bare"].append(bare(args.steps, grow=grow))
    print(machine())
    shape = "a growing conversation" if grow else "one constant message"
    print(
        f"plain face, {SCENARIO}, {shape}; µs per step, median of {args.repeats} interleaved runs:"
    )
    print(f"  {'steps':>13}  {'clock':>5}  {'harness':>7}  {'bare':>6}  {'overhead':>8}  ratio")
    overheads: dict[tuple[int, int], list[float]] = {}
    for first, last in windows(args.steps):
        for clock, name in enumerate(CLOCKS):
            per = {}
            for side, sides in runs.items():
                per[side] = statistics.median(
                    sum(mark[clock] for mark in r[first - 1 : last]) / (last - first + 1)
                    for r in sides
                )
            h, b = per["harness"] * 1e6, per["bare"] * 1e6
            overheads.setdefault((first, last), []).append(h - b)
            span = f"{first:>5}–{last:<7}" if clock == 0 else " " * 13
            print(f"  {span}  {name:>5}  {h:7.1f}  {b:6.1f}  {h - b:8.1f}  {h / b:4.1f}x")
    found = list(overheads)
    if len(found) >= 3:  # the last window against steps 91–100 (the first warms the caches)
        (last_first, last_end), (early_first, early_end) = found[-1], found[1]
        pairs = zip(CLOCKS, overheads[found[-1]], overheads[found[1]], strict=True)
        flat = ", ".join(f"{clock} {late / early:.2f}x" for clock, late, early in pairs)
        print(
            f"  overhead at steps {last_first}–{last_end} against {early_first}–{early_end}: {flat}"
        )


if __name__ == "__main__":
    main()
