"""The zero-code suite (``pytest --unsolvable-agent=AGENT``) as a user runs it, for a built-in
agent and for a framework adapter: the whole pytest command in a fresh process (bytecode cached,
as on a user's machine), against a baseline measured in the same rounds, and the harness's share
of its time.

The baseline is another installation of the package (``--against PYTHON``, as in
`benchmarks.main_job`); without one, the figures are this installation's alone. The share is
measured on the suite's runs made one after another in one process, the framework imported: the
CPU time spent inside the harness's entry points (`Session.answer`, `Session.call_tool`,
`Wire.handle`: the session, the scripted model, the fake tools and world, the wire's reading and
writing) over the CPU time of the runs (the framework and its SDK, the adapter, the verdict).
The rest is what the framework costs with any fake model.

    python -m benchmarks.suite [--against PYTHON] [--agent contract llamaindex] [--repeats 3]
        [--scenario NAME|FAMILY ...]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks._timing import cached_bytecode, interleaved, machine, timed

PYTEST = ("-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:langsmith_plugin")
SOME_FAILED = (0, 1)
"""A suite whose agent breaks some verdicts exits 1."""
MEASURED = """
import json, sys, threading, time
import unsolvable
from unsolvable import Session, scenarios
from unsolvable.wire import Wire

inside = threading.local()
spent = [0.0]

def measured(method):
    def call(*args, **kwargs):
        depth = getattr(inside, "depth", 0)
        inside.depth = depth + 1
        start = time.thread_time()
        try:
            return method(*args, **kwargs)
        finally:
            inside.depth = depth
            if depth == 0:
                spent[0] += time.thread_time() - start
    return call

agent, names = sys.argv[1], sys.argv[2:]
cases = [(s, seed) for s in scenarios.select(names) for seed in s.seeds]
unsolvable.run(agent, cases[0][0], seed=cases[0][1])  # imports the framework, uncounted
for owner, name in ((Session, "answer"), (Session, "call_tool"), (Wire, "handle")):
    setattr(owner, name, measured(getattr(owner, name)))
start = time.process_time()
for scenario, seed in cases:
    unsolvable.run(agent, scenario, seed=seed)
print(json.dumps({"harness": spent[0], "total": time.process_time() - start}))
"""
"""Runs every case of the suite on this thread (`unsolvable.run`, no pytest, no worker process),
after one uncounted run that imports the framework, with the harness's entry points (a model
call, a tool call, a request on the wire) timed on the CPU clock of the thread that calls them,
an entry point called inside another counted once; prints their time and the whole process's."""


def _arguments(agent: str, scenarios: list[str]) -> list[str]:
    selected = [arg for name in scenarios for arg in ("--unsolvable-scenario", name)]
    return [f"--unsolvable-agent={agent}", "--unsolvable-no-snapshot", *selected]


def _share(
    python: str, agent: str, scenarios: list[str], folder: Path, env: dict[str, str]
) -> float:
    """The harness's share of the CPU time of the suite's runs, made one after another."""
    command = [python, "-c", MEASURED, agent, *scenarios]
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, check=False)
    seconds = json.loads(done.stdout.strip().splitlines()[-1])
    return float(seconds["harness"]) / float(seconds["total"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", help="the interpreter of the baseline installation")
    parser.add_argument("--agent", nargs="+", default=["contract", "llamaindex"])
    parser.add_argument("--scenario", nargs="*", default=[], help="a scenario or family")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    pythons = {"this": sys.executable, **({"baseline": args.against} if args.against else {})}
    print(machine())
    print(f"  median of {args.repeats} interleaved rounds; cpu is pytest's and its children's")
    with tempfile.TemporaryDirectory() as empty, tempfile.TemporaryDirectory() as cache:
        folder, env = Path(empty), cached_bytecode(Path(cache))
        for agent in args.agent:
            arguments = _arguments(agent, args.scenario)
            medians = interleaved(
                {
                    name: lambda c=[python, *PYTEST, *arguments]: timed(
                        c, cwd=folder, env=env, ok=SOME_FAILED
                    )
                    for name, python in pythons.items()
                },
                repeats=args.repeats,
            )
            for name, timing in medians.items():
                versus = (
                    f"  {timing.ratio(medians['baseline'])} of the baseline" if args.against else ""
                )
                share = _share(pythons[name], agent, args.scenario, folder, env)
                print(
                    f"  {agent:<12} {name:<8} wall {timing.wall:6.2f} s  cpu {timing.cpu:6.2f} s"
                    f"  harness {share:5.1%} of the cpu{versus}"
                )


if __name__ == "__main__":
    main()
