"""Plugin import cost added to every pytest start-up (and every xdist worker).

Measured two ways: ``python -X importtime`` of ``harness.plugin`` after pytest itself (what the
pytest11 entry point adds, and how many modules it brings), and the wall time of
``pytest --collect-only`` in an empty folder with plugin autoloading off, with and without
``-p harness.plugin`` (other installed plugins, langsmith's and hypothesis's above all, cost
seconds here and would drown the difference; their total is printed for scale).

    python benchmarks/plugin_import.py [--repeats 15]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

from benchmarks._timing import machine, median_seconds

PYTEST = (sys.executable, "-m", "pytest", "-q", "--collect-only", "-p", "no:cacheprovider")
COUNT_MODULES = (
    "import sys, pytest; before = set(sys.modules); import harness.plugin; "
    "print(len(set(sys.modules) - before))"
)


def _import_microseconds() -> int:
    """Cumulative µs of ``import harness.plugin`` with pytest already imported."""
    command = [sys.executable, "-X", "importtime", "-c", "import pytest; import harness.plugin"]
    stderr = subprocess.run(command, capture_output=True, text=True, check=True).stderr
    line = next(line for line in stderr.splitlines() if line.rstrip().endswith("| harness.plugin"))
    return int(line.split("|")[1])


def _collect(folder: str, *args: str, autoload: bool = False) -> None:
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "" if autoload else "1"}
    subprocess.run([*PYTEST, *args], cwd=folder, env=env, capture_output=True, check=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    print(machine())
    n = args.repeats
    imports = sorted(_import_microseconds() for _ in range(n))
    modules = subprocess.run(
        [sys.executable, "-c", COUNT_MODULES], capture_output=True, text=True, check=True
    ).stdout.strip()
    print(
        f"  import harness.plugin after pytest  {imports[len(imports) // 2] / 1e3:6.1f} ms "
        f"(median of {args.repeats}), {modules} modules"
    )
    with tempfile.TemporaryDirectory() as folder:
        loaded = median_seconds(lambda: _collect(folder, "-p", "harness.plugin"), repeats=n)
        without = median_seconds(lambda: _collect(folder), repeats=n)
        everything = median_seconds(lambda: _collect(folder, autoload=True), repeats=3)
    print(f"  pytest --co, no autoload, bare               {without * 1e3:6.0f} ms")
    print(f"  pytest --co, no autoload, -p harness.plugin  {loaded * 1e3:6.0f} ms")
    print(f"  added to each pytest start-up                {(loaded - without) * 1e3:6.0f} ms")
    print(f"  (every installed plugin autoloaded           {everything * 1e3:6.0f} ms)")


if __name__ == "__main__":
    main()
