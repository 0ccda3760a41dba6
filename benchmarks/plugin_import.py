"""What installing the package adds to a pytest run that uses none of it, plugins of its
dependencies included, with bytecode caching on and off, serially and per xdist worker.

Every installed ``pytest11`` plugin loads in every pytest process and in every xdist worker, so
the cost of installing a package is the import of its own plugin and of every plugin its
required dependencies bring. This script runs a trivial test file with plugin autoloading off
and the plugins of an install named with ``-p`` (the modules autoloading would import), so one
environment stands in for several:

- ``pytest alone``: the package uninstalled (with ``-n 2``: pytest and pytest-xdist);
- ``core install``: the pytest11 plugins of the package and of its required dependencies, read
  from the installed metadata, recursively — what ``pip install pytest-unsolvable`` brings;
- ``old core``: the same plus respx, hypothesis and syrupy, which were required once
  and are extras now.

Bytecode *on* reads and writes a warm cache (``PYTHONPYCACHEPREFIX``, warmed by a first run);
*off* points the cache at an empty folder and writes nothing (``PYTHONDONTWRITEBYTECODE=1``), so
every module is compiled from source, as on a machine that never caches. The variants alternate
(A/B/C, A/B/C, ...) and each figure is a median, wall and CPU (the process and its children),
so a machine that is busy now and then moves all of them alike.

    python -m benchmarks.plugin_import [--repeats 9] [--no-xdist]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from benchmarks._timing import cached_bytecode, machine

PACKAGE = "pytest-unsolvable"
FORMER_CORE = ("respx", "hypothesis", "syrupy")
"""Required once, extras now."""
PYTEST = (sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider")
TRIVIAL = "def test_nothing_of_ours():\n    assert True\n"


def closure(names: list[str]) -> set[str]:
    """The distributions ``names`` need when installed without extras, recursively (the core
    install is ``closure([PACKAGE])``; `tests/test_import_cost.py` reads it too)."""
    found: set[str] = set()
    todo = [canonicalize_name(n) for n in names]
    while todo:
        name = todo.pop()
        if name in found:
            continue
        found.add(name)
        for line in metadata.requires(name) or ():
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(canonicalize_name(requirement.name))
    return found


def autoloaded_plugins(distributions: set[str]) -> list[str]:
    """The modules of every pytest11 plugin of ``distributions``, sorted: what pytest autoloads
    once they are installed."""
    modules = {
        entry.value
        for dist in metadata.distributions()  # a distribution may be found twice (editable)
        if canonicalize_name(dist.metadata["Name"]) in distributions
        for entry in dist.entry_points
        if entry.group == "pytest11"
    }
    return sorted(modules)


def _plugins(distributions: set[str]) -> list[str]:
    """``-p`` arguments for every pytest11 plugin of ``distributions``."""
    return [arg for module in autoloaded_plugins(distributions) for arg in ("-p", module)]


def _run(folder: Path, args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds (this child and its own children, xdist workers included)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([*PYTEST, *args], cwd=folder, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"pytest {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def measure(folder: Path, variants: dict[str, list[str]], *, bytecode: bool, repeats: int) -> None:
    with tempfile.TemporaryDirectory() as cache:
        env = cached_bytecode(Path(cache), PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
        if not bytecode:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
        else:
            for args in variants.values():  # warm the cache
                _run(folder, args, env)
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in variants}
        for _ in range(repeats):
            for name, args in variants.items():
                times[name].append(_run(folder, args, env))
    base = [statistics.median(t[i] for t in next(iter(times.values()))) for i in (0, 1)]
    for name, runs in times.items():
        wall, cpu = (statistics.median(t[i] for t in runs) for i in (0, 1))
        print(
            f"    {name:<34} wall {wall * 1e3:6.0f} ms (+{(wall - base[0]) * 1e3:5.0f})"
            f"   cpu {cpu * 1e3:6.0f} ms (+{(cpu - base[1]) * 1e3:5.0f})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--no-xdist", action="store_true", help="skip the -n 2 runs")
    args = parser.parse_args()
    core = closure([PACKAGE])
    core_plugins = _plugins(core)
    old_plugins = _plugins(core | closure(list(FORMER_CORE)))
    print(machine())
    print(f"  core install: {', '.join(sorted(core))}")
    print(f"  its plugins:  {' '.join(core_plugins[1::2])}")
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        (folder / "test_trivial.py").write_text(TRIVIAL)
        xdist = ["-p", "xdist.plugin", "-p", "xdist.looponfail"]
        shapes: list[tuple[str, list[str], list[str]]] = [("serial", [], [])]
        if not args.no_xdist:
            shapes.append(("-n 2 (pytest-xdist in the baseline)", ["-n", "2"], xdist))
        for label, extra, baseline in shapes:
            variants = {
                "pytest alone": [*extra, *baseline],
                "core install": [*extra, *core_plugins],
                "old core (respx, hypothesis, syrupy)": [*extra, *old_plugins],
            }
            for bytecode in (True, False):
                state = "on" if bytecode else "off"
                print(f"  {label}, bytecode {state}; median of {args.repeats} interleaved runs:")
                measure(folder, variants, bytecode=bytecode, repeats=args.repeats)


if __name__ == "__main__":
    main()
