"""Timing helpers shared by the benchmarks: the median of repeats, and the machine they ran on."""

from __future__ import annotations

import os
import platform
import statistics
import sys
import time
from collections.abc import Callable

__all__ = ["machine", "median_seconds"]


def median_seconds(action: Callable[[], object], *, repeats: int) -> float:
    """The median wall time of ``repeats`` calls: robust to one slow run on a shared machine."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def machine() -> str:
    """One line naming what the numbers were measured on."""
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    return (
        f"# {platform.python_implementation()} {platform.python_version()} on "
        f"{platform.machine()}, {os.cpu_count()} cores ({sys.platform}); load average {load}"
    )
