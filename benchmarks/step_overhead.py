"""Harness overhead per agent step on the plain face, early and late in a long run.

The same README-style agent loop runs against a `Session` (scripted model, fake tools and world,
probe, ceilings, trajectory tail) and against a bare scripted function returning replies of the
same shape. With ``--growing`` (the default) the agent appends the assistant and tool messages
every step, as real agents do, so a harness that re-reads the whole conversation per call shows a
cost that grows with the step; ``--constant`` re-sends one message. A third loop is the bare one
plus the least that counting the conversation exactly takes: one ``==`` of the messages sent
against a copy of those sent before (an agent may have edited any of them in place), the copy
kept by appending. What the harness adds beyond that floor is printed too. The loops alternate
(A/B/C/A/B/C...) and each window's figure is the median over the repeats, so a machine that is
busy now and then moves every side alike. Each step is timed on two clocks: the wall clock, and the
thread's CPU time, which other processes on a shared machine do not inflate (they still slow it
through the caches, so ratios to the bare loop are the firm numbers).

    python -m benchmarks.step_overhead [--steps 10000] [--repeats 5] [--constant]
"""

from __future__ import annotations

import argparse
import copy
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
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


@dataclass(frozen=True, kw_only=True)
class Scripted:
    """A scripted function returning replies of the shape the session returns: the same tool
    call every step, under a fresh id."""

    call_model: CallModel
    call_tool: CallTool
    task: str
    tools: Any


def _scripted() -> Scripted:
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

    return Scripted(
        call_model=call_model, call_tool=call_tool, task=session.task, tools=session.tools
    )


def bare(steps: int, *, grow: bool) -> list[Mark]:
    """The same loop against a scripted function returning what the session returns."""
    replies = _scripted()
    start = now()
    return _durations(
        start,
        loop(replies.call_model, replies.call_tool, replies.task, replies.tools, steps, grow=grow),
    )


def floor(steps: int, *, grow: bool) -> list[Mark]:
    """The bare loop, each call also comparing the conversation with a copy of the one sent
    before: the pass over every message that an exact count cannot skip."""
    sent: list[dict[str, Any]] = []
    replies = _scripted()

    def call_model(messages: list[dict[str, Any]], tools: Any) -> dict[str, Any]:
        same = messages[: len(sent)] == sent
        if not same:
            sent.clear()
        sent.extend(copy.deepcopy(messages[len(sent) :]))
        return replies.call_model(messages, tools)

    start = now()
    return _durations(
        start, loop(call_model, replies.call_tool, replies.task, replies.tools, steps, grow=grow)
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
    sides = {"harness": through_harness, "bare": bare, "floor": floor}
    runs: dict[str, list[list[Mark]]] = {side: [] for side in sides}
    for _ in range(args.repeats):  # interleaved: A, B, C, A, B, C, ...
        for side, measure in sides.items():
            runs[side].append(measure(args.steps, grow=grow))
    print(machine())
    shape = "a growing conversation" if grow else "one constant message"
    print(
        f"plain face, {SCENARIO}, {shape}; µs per step, median of {args.repeats} interleaved runs"
        " (overhead: harness - bare; beyond: harness - floor, what the harness adds to the one"
        " comparison an exact count makes):"
    )
    print(
        f"  {'steps':>13}  {'clock':>5}  {'harness':>7}  {'bare':>6}  {'floor':>7}"
        f"  {'overhead':>8}  {'beyond':>7}  ratio"
    )
    added: dict[str, dict[tuple[int, int], list[float]]] = {"overhead": {}, "beyond": {}}
    for first, last in windows(args.steps):
        for clock, name in enumerate(CLOCKS):
            per = {
                side: statistics.median(
                    sum(mark[clock] for mark in r[first - 1 : last]) / (last - first + 1)
                    for r in found
                )
                * 1e6
                for side, found in runs.items()
            }
            h, b, f = per["harness"], per["bare"], per["floor"]
            added["overhead"].setdefault((first, last), []).append(h - b)
            added["beyond"].setdefault((first, last), []).append(h - f)
            span = f"{first:>5}–{last:<7}" if clock == 0 else " " * 13
            print(
                f"  {span}  {name:>5}  {h:7.1f}  {b:6.1f}  {f:7.1f}  {h - b:8.1f}  {h - f:7.1f}"
                f"  {h / b:4.1f}x"
            )
    spans = list(added["overhead"])
    if len(spans) >= 3:  # the last window against steps 91–100 (the first warms the caches)
        (late_first, late_end), (early_first, early_end) = spans[-1], spans[1]
        for what, by_span in added.items():
            pairs = zip(CLOCKS, by_span[spans[-1]], by_span[spans[1]], strict=True)
            flat = ", ".join(f"{clock} {late / early:.2f}x" for clock, late, early in pairs)
            print(
                f"  {what} at steps {late_first}–{late_end} against"
                f" {early_first}–{early_end}: {flat}"
            )


if __name__ == "__main__":
    main()
