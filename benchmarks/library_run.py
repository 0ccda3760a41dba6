"""``unsolvable run`` of the whole built-in library on both reference agents: wall time, and how
it scales with ``-n`` worker processes.

Each timing is the whole command in a fresh process (interpreter start, imports, every run,
the table, the JSON), as CI pays it.

    python benchmarks/library_run.py [--workers 1 2 4] [--repeats 3]
"""

from __future__ import annotations

import argparse
import functools
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks._timing import machine, median_seconds

COMMAND = (sys.executable, "-m", "harness.cli", "run", "--no-progress")


def _run(*args: str) -> None:
    subprocess.run([*COMMAND, *args], capture_output=True, check=False)


def _runs(seeds: tuple[str, ...]) -> int:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "records.json"
        _run(*seeds, "--json", str(path))
        return len(json.loads(path.read_text())["records"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(machine())
    startup = median_seconds(lambda: _run("--help"), repeats=args.repeats)
    print(f"  interpreter + imports (unsolvable run --help)      {startup:6.2f} s")
    for label, seeds in (("first seed", ()), ("--all-seeds", ("--all-seeds",))):
        runs = _runs(seeds)
        serial = None
        for workers in args.workers:
            command = functools.partial(_run, *seeds, "-n", str(workers))
            seconds = median_seconds(command, repeats=args.repeats)
            serial = serial or seconds
            print(
                f"  {label:<11} {runs:4d} runs  -n {workers}  {seconds:6.2f} s  "
                f"({runs / seconds:5.0f} runs/s, speed-up {serial / seconds:.2f}x)"
            )


if __name__ == "__main__":
    main()
