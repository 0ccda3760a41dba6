"""``unsolvable run`` of the whole built-in library on both reference agents: wall time, and how
it scales with ``-n`` worker processes.

Each timing is the whole command in a fresh process (interpreter start, imports, every run,
the table, the JSON), as CI pays it. The worker counts alternate (-n 1, -n 2, -n 1, -n 2, ...)
and each figure is the median of its repeats, so a machine that is busy now and then slows
every count alike; the speed-up is against ``-n 1`` measured in the same rounds. CPU seconds
are the command's and its workers' together.

    python -m benchmarks.library_run [--workers 1 2 4] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks._timing import machine

COMMAND = (sys.executable, "-m", "unsolvable.cli", "run", "--no-progress")


def _run(*args: str) -> tuple[float, float]:
    """Wall and CPU seconds of one command, its worker processes included."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([*COMMAND, *args], capture_output=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _runs(seeds: tuple[str, ...]) -> int:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "records.json"
        _run(*seeds, "--json", str(path))
        return len(json.loads(path.read_text())["records"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(machine())
    startup = statistics.median(_run("--help")[0] for _ in range(args.repeats))
    print(f"  interpreter + imports (unsolvable run --help)      {startup:6.2f} s")
    print(f"  median of {args.repeats} interleaved rounds:")
    for label, seeds in (("first seed", ()), ("--all-seeds", ("--all-seeds",))):
        runs = _runs(seeds)
        times: dict[int, list[tuple[float, float]]] = {n: [] for n in args.workers}
        for _ in range(args.repeats):
            for workers in args.workers:
                times[workers].append(_run(*seeds, "-n", str(workers)))
        base = statistics.median(wall for wall, _ in times[args.workers[0]])
        for workers, measured in times.items():
            wall = statistics.median(w for w, _ in measured)
            cpu = statistics.median(c for _, c in measured)
            print(
                f"  {label:<11} {runs:4d} runs  -n {workers}  {wall:6.2f} s  cpu {cpu:5.2f} s  "
                f"({runs / wall:5.0f} runs/s, speed-up {base / wall:.2f}x)"
            )


if __name__ == "__main__":
    main()
