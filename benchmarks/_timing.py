"""Timing helpers shared by the benchmarks: a whole command in a fresh process, sides measured in
turn (A, B, A, B, ...) and summed up as medians, and the machine it all ran on."""

from __future__ import annotations

import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Timing", "cached_bytecode", "interleaved", "machine", "timed"]


@dataclass(frozen=True, kw_only=True)
class Timing:
    """Seconds of one command: on the wall clock, and of CPU (the process and its children)."""

    wall: float
    cpu: float

    def ratio(self, baseline: Timing) -> str:
        return f"{self.wall / baseline.wall:5.2f}x wall  {self.cpu / baseline.cpu:5.2f}x cpu"


def timed(
    command: Sequence[str],
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    ok: Sequence[int] = (0,),
) -> Timing:
    """Runs ``command`` to its end and times it; an exit status outside ``ok`` stops the
    benchmark, showing what the command printed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in ok:
        printed = done.stdout[-3000:] + done.stderr[-3000:]
        raise SystemExit(f"{' '.join(command)} exited {done.returncode}:\n{printed}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Timing(wall=wall, cpu=cpu)


def cached_bytecode(cache: Path, **extra: str) -> dict[str, str]:
    """This process's environment with bytecode cached in ``cache``, as on a user's machine:
    this environment may turn caching off, and compiling every module afresh in each process
    would add a cost no user pays, larger the more code an installation has."""
    env = {**os.environ, **extra, "PYTHONPYCACHEPREFIX": str(cache)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def interleaved(sides: Mapping[str, Callable[[], Timing]], *, repeats: int) -> dict[str, Timing]:
    """Each side's median over ``repeats`` rounds of all sides in turn, so that a machine busy
    now and then slows every side alike; each side runs once first, uncounted, to fill the
    caches its first run would otherwise pay for (bytecode, the file system)."""
    for measure in sides.values():
        measure()
    runs: dict[str, list[Timing]] = {name: [] for name in sides}
    for _ in range(repeats):
        for name, measure in sides.items():
            runs[name].append(measure())
    return {
        name: Timing(
            wall=statistics.median(t.wall for t in timings),
            cpu=statistics.median(t.cpu for t in timings),
        )
        for name, timings in runs.items()
    }


def machine() -> str:
    """One line naming what the numbers were measured on."""
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    return (
        f"# {platform.python_implementation()} {platform.python_version()} on "
        f"{platform.machine()}, {os.cpu_count()} cores ({sys.platform}); load average {load}"
    )
