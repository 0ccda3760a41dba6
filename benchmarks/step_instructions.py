"""Machine instructions per agent step on the plain face, harness against the bare loop.

The same loops as `benchmarks.step_overhead` (a growing conversation by default), each run in a
fresh interpreter under valgrind's cachegrind at two lengths; the difference between the two
counts, divided by the steps between them, is what one step costs, with start-up, set-up and
warm-up cancelled out. Unlike a clock, the count does not move with the machine's load or speed
(hash seeding is fixed, so it repeats to within a few hundred instructions), which makes it the
figure to compare two versions of the harness by. It cannot see cache misses: the clock-based
benchmark stays the one that says what a step costs in time.

    python -m benchmarks.step_instructions [--steps 1000] [--constant]
"""

from __future__ import annotations

import argparse
import shutil

from benchmarks import step_overhead
from benchmarks._timing import instructions, machine
from unsolvable import Ceilings, Session, scenarios

WARM_STEPS = 200
"""The shorter run: long enough that the longer one differs from it only by steady steps."""
SIDES = ("harness", "bare")


def _child(side: str, steps: int, grow: bool) -> None:
    """The loop alone: through a `Session` (no run set-up or judging), or the bare one."""
    if side == "bare":
        step_overhead.bare(steps, grow=grow)
        return
    scenario = scenarios.get(step_overhead.SCENARIO)
    ceilings = Ceilings(max_steps=steps, max_tool_calls=2 * steps, max_wall_seconds=3600)
    session = Session(scenario, scenario.build(0), seed=0, ceilings=ceilings)
    step_overhead.loop(
        session.call_model, session.call_tool, session.task, session.tools, steps, grow=grow
    )


def _instructions(side: str, steps: int, grow: bool) -> int:
    arguments = ["--child", side, "--steps", str(steps), *([] if grow else ["--constant"])]
    return instructions("benchmarks.step_instructions", arguments)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--constant", action="store_true", help="re-send one message")
    parser.add_argument("--child", choices=SIDES, help=argparse.SUPPRESS)
    args = parser.parse_args()
    grow = not args.constant
    if args.child is not None:
        _child(args.child, args.steps, grow)
        return
    if shutil.which("valgrind") is None:
        raise SystemExit("this benchmark needs valgrind (apt install valgrind)")
    per_step = {}
    for side in SIDES:
        long, short = (_instructions(side, n, grow) for n in (WARM_STEPS + args.steps, WARM_STEPS))
        per_step[side] = (long - short) / args.steps
    harness, bare = per_step["harness"], per_step["bare"]
    print(machine())
    shape = "a growing conversation" if grow else "one constant message"
    window = f"{WARM_STEPS + 1}–{WARM_STEPS + args.steps}"
    print(f"plain face, {step_overhead.SCENARIO}, {shape}; instructions per step, steps {window}:")
    print(
        f"  harness {harness:9,.0f}  bare {bare:7,.0f}  overhead {harness - bare:9,.0f}  "
        f"ratio {harness / bare:.1f}x"
    )


if __name__ == "__main__":
    main()
