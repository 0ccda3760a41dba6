"""The main job, ``unsolvable run`` of the whole library on both reference agents, as a user runs
it: the whole command in a fresh process (interpreter start, imports, every run in its worker,
the table), against a baseline measured in the same rounds.

The baseline is another installation of the package (``--against PYTHON``: the interpreter of a
virtual environment where another version is installed, e.g. an earlier commit's worktree
installed with ``pip install -e``), or, without one, ``-n 1`` for the other worker counts. More
installations may follow the baseline (``--against NAME=PYTHON ...``), each measured in the same
rounds and set against the first.
Commands run from an empty folder, so each interpreter imports its own installation, with
bytecode cached as on a user's machine (each command runs once, uncounted, to fill the cache). With
``--common``, every installation runs only the scenarios all of them have: the same work on each
side when the library has grown between them (the whole command's figures then compare more work
against less).

    python -m benchmarks.main_job [--against [NAME=]PYTHON ... [--common]] [--workers 1 2]
                                  [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks._timing import Timing, cached_bytecode, interleaved, machine, timed

SHAPES = (("first seed", ()), ("--all-seeds", ("--all-seeds",)))
FAILED_BY_DESIGN = (0, 1)
"""``naive`` fails by design, so the command exits 1."""


def _command(
    python: str, seeds: tuple[str, ...], workers: int, scenarios: tuple[str, ...]
) -> list[str]:
    chosen = ("--scenario", *scenarios) if scenarios else ()
    return [
        python, "-m", "unsolvable.cli", "run", "--no-progress", *chosen, *seeds, "-n", str(workers)
    ]  # fmt: skip


def _scenarios(python: str, cwd: Path, env: dict[str, str]) -> list[str]:
    """The names of the scenarios an installation has, in its own order."""
    listed = subprocess.run(
        [python, "-m", "unsolvable.cli", "list", "--json"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return [scenario["name"] for scenario in json.loads(listed.stdout)]


def _installations(this: str, against: list[str]) -> dict[str, str]:
    """Each installation's name and interpreter: this one, the baseline first among the
    others."""
    named = [given.partition("=")[::2] if "=" in given else ("", given) for given in against]
    others = {
        name or ("baseline" if i == 0 else f"other-{i}"): python
        for i, (name, python) in enumerate(named)
    }
    return {"this": this, **others}


def _common(pythons: dict[str, str], cwd: Path, env: dict[str, str]) -> tuple[str, ...]:
    """The scenarios every installation has, and how many each leaves out, printed."""
    each = {name: _scenarios(python, cwd, env) for name, python in pythons.items()}
    shared = set.intersection(*(set(names) for names in each.values()))
    for name, names in each.items():
        print(f"  {name}: {len(names)} scenarios, {len(names) - len(shared)} left out")
    return tuple(scenario for scenario in each["this"] if scenario in shared)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--against",
        nargs="+",
        default=[],
        metavar="[NAME=]PYTHON",
        help="the interpreter of the baseline installation, then of others to set against it",
    )
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--common", action="store_true", help="run only the scenarios every installation has"
    )
    args = parser.parse_args()
    if args.common and not args.against:
        parser.error("--common compares installations: give the baseline with --against")
    pythons = _installations(sys.executable, args.against)
    baseline = list(pythons)[1] if args.against else None
    print(machine())
    print(f"  median of {args.repeats} interleaved rounds; cpu is the command's and its workers'")
    with tempfile.TemporaryDirectory() as empty, tempfile.TemporaryDirectory() as cache:
        env = cached_bytecode(Path(cache))
        scenarios = _common(pythons, Path(empty), env) if args.common else ()
        for label, seeds in SHAPES:
            sides = {
                (name, workers): _command(python, seeds, workers, scenarios)
                for name, python in pythons.items()
                for workers in args.workers
            }
            medians = interleaved(
                {
                    key: lambda c=command: timed(c, cwd=Path(empty), env=env, ok=FAILED_BY_DESIGN)
                    for key, command in sides.items()
                },
                repeats=args.repeats,
            )
            _report(label, medians, baseline=baseline, first=args.workers[0])


def _report(
    label: str, medians: dict[tuple[str, int], Timing], *, baseline: str | None, first: int
) -> None:
    for (name, workers), timing in medians.items():
        against = medians[(baseline, workers)] if baseline else medians[(name, first)]
        versus = baseline or f"-n {first}"
        print(
            f"  {label:<11} {name:<8} -n {workers}  wall {timing.wall:6.2f} s  "
            f"cpu {timing.cpu:6.2f} s   {timing.ratio(against)} of {versus}"
        )


if __name__ == "__main__":
    main()
