"""Timing helpers shared by the benchmarks: the median of repeats, instructions counted under
cachegrind, and the machine they ran on."""

from __future__ import annotations

import os
import platform
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence

__all__ = ["instructions", "machine", "median_seconds"]

COUNTED = re.compile(r"I\s+refs:\s+([\d,]+)")


def median_seconds(action: Callable[[], object], *, repeats: int) -> float:
    """The median wall time of ``repeats`` calls: robust to one slow run on a shared machine."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def instructions(module: str, arguments: Sequence[str]) -> int:
    """Machine instructions of ``python -m module *arguments`` in a fresh interpreter under
    valgrind's cachegrind, hash seeding fixed so that the count repeats."""
    command = [
        "valgrind",
        "--tool=cachegrind",
        "--cache-sim=no",
        "--cachegrind-out-file=/dev/null",
        sys.executable,
        "-m",
        module,
        *arguments,
    ]
    environ = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(command, capture_output=True, text=True, env=environ, check=True)
    found = COUNTED.search(done.stderr)
    if found is None:
        raise SystemExit(f"valgrind printed no instruction count:\n{done.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def machine() -> str:
    """One line naming what the numbers were measured on."""
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    return (
        f"# {platform.python_implementation()} {platform.python_version()} on "
        f"{platform.machine()}, {os.cpu_count()} cores ({sys.platform}); load average {load}"
    )
