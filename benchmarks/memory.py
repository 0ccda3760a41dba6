"""Memory of a runaway: an agent that never stops, ended by a raised step ceiling, measured as
the operating system sees it (RSS) and as Python's allocator does (tracemalloc); and the peak of
a whole ``unsolvable run --all-seeds``.

Each measurement runs in a fresh process: RSS is read once the harness and the library are
imported (the idle process) and its peak after the run (``ru_maxrss``), so what the run itself
costs is the difference. tracemalloc runs in a process of its own, because tracing slows every
allocation. A record keeps every step of its trajectory, so its JSON, whose size is
printed beside, grows with the run; what the harness holds beside it must not.

    python -m benchmarks.memory [--steps 1000 10000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile

from benchmarks._timing import machine
from unsolvable import Session

SCENARIOS = ("constant-return/repeat", "constant-return/perturbed-offset")
"""The same call every step, and a call whose arguments change every step (a new action
fingerprint each time: the worst case for what the session keeps)."""
CHILD = """
import gc, json, resource, sys, time, tracemalloc
import unsolvable
from unsolvable import scenarios
from benchmarks.memory import runaway

def rss_now():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize()

scenario, steps, traced = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "traced"
ceilings = unsolvable.Ceilings(max_steps=steps, max_tool_calls=2 * steps, max_wall_seconds=600)
gc.collect()
idle = rss_now()
if traced:
    tracemalloc.start()
start = time.perf_counter()
record = unsolvable.run(runaway, scenarios.get(scenario), ceilings=ceilings)
seconds = time.perf_counter() - start
peak_traced = tracemalloc.get_traced_memory()[1] if traced else 0
assert record.observed.steps == steps and record.observed.ceiling == "steps", record.observed
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"idle": idle, "peak": peak, "traced": peak_traced, "seconds": seconds,
                  "json": len(record.to_json())}))
"""


def runaway(session: Session) -> None:
    """Calls the model and the tool it asks for until the harness ends the run; keeps nothing,
    so that what grows is the harness's."""
    messages = [{"role": "user", "content": session.task}]
    while True:
        reply = session.call_model(messages, session.tools)
        for call in reply.get("tool_calls") or ():
            session.call_tool(call["function"]["name"], call["function"]["arguments"])


def _child(scenario: str, steps: int, *, traced: bool) -> dict[str, float]:
    mode = "traced" if traced else "rss"
    command = [sys.executable, "-c", CHILD, scenario, str(steps), mode]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return dict(json.loads(done.stdout))


LIBRARY = """
import resource, subprocess, sys
subprocess.run(sys.argv[1:], capture_output=True, check=False)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)
"""
"""Runs a command and prints the peak RSS of the largest of its processes (the harness, or a
worker: each reaps its own children, so theirs count), in a process that ran nothing else."""


def _library_peak(*args: str) -> tuple[float, int]:
    """Peak RSS of the largest process of an ``unsolvable run`` (the harness or a worker)."""
    with tempfile.TemporaryDirectory() as folder:
        command = [sys.executable, "-m", "unsolvable.cli", "run", "--no-progress", *args]
        command += ["--json", f"{folder}/r.json"]
        done = subprocess.run(
            [sys.executable, "-c", LIBRARY, *command], capture_output=True, text=True, check=True
        )
        with open(f"{folder}/r.json") as records:
            count = len(json.load(records)["records"])
    return float(done.stdout), count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, nargs="+", default=[1000, 10_000])
    parser.add_argument("--no-library", action="store_true", help="skip the --all-seeds run")
    args = parser.parse_args()
    print(machine())
    print("a runaway agent ended by the step ceiling (did_not_stop), each in a fresh process:")
    for scenario in SCENARIOS:
        for steps in args.steps:
            rss, traced = (
                _child(scenario, steps, traced=False),
                _child(scenario, steps, traced=True),
            )
            above = rss["peak"] - rss["idle"]
            print(
                f"  {scenario:<34} {steps:6d} steps  RSS idle {rss['idle'] / 1e6:5.1f} MB, "
                f"peak +{above / 1e6:5.2f} MB  tracemalloc peak {traced['traced'] / 1e6:5.2f} MB"
                f"  JSON {rss['json'] / 1e3:4.1f} kB  ({rss['seconds']:.1f} s)"
            )
    if not args.no_library:
        for workers in ("1", "2"):
            peak, count = _library_peak("--all-seeds", "-n", workers)
            print(
                f"  unsolvable run --all-seeds -n {workers} ({count} runs): peak RSS of its "
                f"largest process {peak / 1e6:5.1f} MB"
            )


if __name__ == "__main__":
    main()
