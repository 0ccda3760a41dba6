"""The zero-code suite serially and under ``-n 2``, as whole pytest processes: for a cheap agent
(the reference ``contract``, a few milliseconds a run) ``-n 2`` must not be slower than serial,
and for an agent that spends real time per step (``contract`` waiting 20 ms before each model
call, as a remote model would make it wait) it must be faster.

Each variant is ``pytest --unsolvable-agent=... --unsolvable-no-snapshot`` in a scratch folder,
with plugin autoloading off and the plugins the suite needs named (``-p``), so the figures are
the suite's and not those of whatever else this environment installs, and bytecode cached (in
the scratch folder, warmed by a first run). The variants alternate
(serial, -n 2, serial, -n 2, ...), and each figure is a median: wall time, and CPU time of the
whole process tree (pytest, its xdist workers, their worker processes). On a machine that other
jobs load, wall time says what the load allowed; the ratio of the two modes measured side by
side, and the CPU each spends, are the firmer figures.

    python -m benchmarks.suite_parallel [--repeats 5] [--step-seconds 0.02]
"""

from __future__ import annotations

import argparse
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks._timing import cached_bytecode, machine

PYTEST = (sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider")
PLUGINS = ("-p", "unsolvable.plugin", "-p", "xdist.plugin", "-p", "xdist.looponfail")
"""What autoloading would import for the suite: this package's plugin and xdist's."""
SLOW_AGENT = '''
import time

from unsolvable.agents import contract


class Remote:
    """contract, with a model that takes STEP_SECONDS to answer each call."""

    def __init__(self, session):
        self.session = session

    def __getattr__(self, name):
        return getattr(self.session, name)

    def call_model(self, *args, **kwargs):
        time.sleep(STEP_SECONDS)
        return self.session.call_model(*args, **kwargs)


def agent(session):
    return contract(Remote(session))
'''


def _run(folder: Path, args: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """Wall and CPU seconds of one pytest process tree, and the runs it passed (as it says)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([*PYTEST, *args], cwd=folder, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"pytest {' '.join(args)} failed:\n{done.stdout[-3000:]}{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    passed = re.search(r"(\d+) passed", done.stdout)
    if passed is None:
        raise SystemExit(f"pytest {' '.join(args)} reported no passed runs:\n{done.stdout[-3000:]}")
    return wall, cpu, int(passed.group(1))


def measure(folder: Path, agent: str, *, repeats: int, env: dict[str, str]) -> None:
    suite = [*PLUGINS, f"--unsolvable-agent={agent}", "--unsolvable-no-snapshot"]
    modes = {"serial": suite, "-n 2": [*suite, "-n", "2"]}
    times: dict[str, list[tuple[float, float]]] = {mode: [] for mode in modes}
    *_, runs = _run(folder, modes["serial"], env)  # warm the bytecode cache and the file system
    print(f"    {runs} runs, the median of {repeats} interleaved runs of each mode:")
    for _ in range(repeats):
        for mode, args in modes.items():
            wall, cpu, passed = _run(folder, args, env)
            if passed != runs:
                raise SystemExit(f"{mode} passed {passed} runs where the first run passed {runs}")
            times[mode].append((wall, cpu))
    medians = {
        mode: tuple(statistics.median(run[i] for run in runs) for i in (0, 1))
        for mode, runs in times.items()
    }
    serial, pooled = medians["serial"], medians["-n 2"]
    for mode, (wall, cpu) in medians.items():
        print(f"    {mode:<7} wall {wall:6.2f} s   cpu {cpu:6.2f} s")
    print(
        f"    -n 2 / serial: wall {pooled[0] / serial[0]:.2f}x, cpu {pooled[1] / serial[1]:.2f}x"
        f"   (median ratio of runs side by side: {_paired(times):.2f}x)"
    )


def _paired(times: dict[str, list[tuple[float, float]]]) -> float:
    """The median of each repeat's -n 2 wall over the serial wall measured just before it: a
    load that comes and goes moves both of a pair alike."""
    return statistics.median(
        pooled[0] / serial[0] for serial, pooled in zip(times["serial"], times["-n 2"], strict=True)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--step-seconds", type=float, default=0.02, help="the slow agent's wait per model call"
    )
    args = parser.parse_args()
    print(machine())
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        (folder / "remote.py").write_text(f"STEP_SECONDS = {args.step_seconds!r}\n{SLOW_AGENT}")
        env = cached_bytecode(folder / "pycache", PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
        for label, agent in (
            ("cheap agent: contract", "contract"),
            (
                f"slow agent: contract, {args.step_seconds * 1000:g} ms per model call",
                "remote:agent",
            ),
        ):
            print(f"  {label}:")
            measure(folder, agent, repeats=args.repeats, env=env)


if __name__ == "__main__":
    main()
