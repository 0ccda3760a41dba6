"""Memory per 10,000-step run: a runaway agent that never stops is ended by a raised step
ceiling, under tracemalloc.

Records keep counts, fingerprints and a bounded trajectory tail, not transcripts, so the record
stays the same size however long the run; what the session holds while running is shown too.

    python benchmarks/memory.py [--steps 1000 10000]
"""

from __future__ import annotations

import argparse
import gc
import time
import tracemalloc

import harness
import scenarios
from benchmarks._timing import machine
from harness import Ceilings, Session

SCENARIOS = ("constant-return/repeat", "constant-return/perturbed-offset")
"""The same call every step, and a call whose arguments change every step (a new action
fingerprint each time: the worst case for what the session keeps)."""


def runaway(session: Session) -> None:
    """Calls the model and the tool it asks for until the harness ends the run; keeps nothing."""
    messages = [{"role": "user", "content": session.task}]
    while True:
        reply = session.call_model(messages, session.tools)
        for call in reply.get("tool_calls") or ():
            session.call_tool(call["function"]["name"], call["function"]["arguments"])


def measure(scenario: str, steps: int) -> tuple[int, int, int, float]:
    """(peak bytes while running, bytes kept by the record, record JSON bytes, seconds)."""
    ceilings = Ceilings(max_steps=steps, max_tool_calls=2 * steps, max_wall_seconds=120)
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    start = time.perf_counter()
    record = harness.run(runaway, scenarios.get(scenario), ceilings=ceilings)
    seconds = time.perf_counter() - start
    gc.collect()
    kept, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert record.observed.steps == steps and record.observed.ceiling == "steps", record.observed
    return peak - before, kept - before, len(record.to_json()), seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, nargs="+", default=[1000, 10_000])
    args = parser.parse_args()
    print(machine())
    print("runaway agent ended by the step ceiling (did_not_stop), under tracemalloc:")
    for scenario in SCENARIOS:
        for steps in args.steps:
            peak, kept, json_bytes, seconds = measure(scenario, steps)
            print(
                f"  {scenario:<34} {steps:6d} steps  peak {peak / 1e6:6.2f} MB "
                f"({peak / steps:5.0f} B/step)  record kept {kept / 1e3:6.1f} kB, "
                f"JSON {json_bytes / 1e3:5.1f} kB  ({seconds:.1f} s traced)"
            )


if __name__ == "__main__":
    main()
