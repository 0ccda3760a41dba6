"""Consumes scenario-file paths (files or folders), produces a library of the built-in scenarios
and the files' ones together, which the CLI, the plugin and the worker processes look names up in.

A `ScenarioLibrary` holds only paths, so it pickles into the worker processes that run each job
(`unsolvable._batch`), and each process reads the files once.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from unsolvable._input import no_path
from unsolvable._scenario import Scenario
from unsolvable.imports._replay import build
from unsolvable.imports._scenario_file import ScenarioFileError
from unsolvable.imports._schema import read
from unsolvable.scenarios import SCENARIOS
from unsolvable.scenarios import get as builtin
from unsolvable.scenarios._library import unknown

__all__ = ["SUFFIXES", "ScenarioLibrary", "scenario_files"]

SUFFIXES = (".json", ".toml")
"""The files a folder of scenario files contributes; anything else in it is left alone."""
WANTED = "a .json or .toml file written by unsolvable import, or a folder of them"
"""What a scenario-file path should name."""


def scenario_files(paths: Iterable[str | Path]) -> tuple[str, ...]:
    """Each path as given, a folder replaced by its scenario files in name order; a path that
    does not exist is an error naming it."""
    found: list[str] = []
    for given in paths:
        if not str(given):
            raise ScenarioFileError(no_path("scenario file", WANTED))
        path = Path(given)
        if path.is_dir():
            found.extend(str(p) for p in sorted(path.iterdir()) if p.suffix in SUFFIXES)
        elif path.exists():  # a file, or what reading it will name (a FIFO, a device)
            found.append(str(path))
        else:
            raise ScenarioFileError(f"scenario file {str(path)!r} does not exist; give {WANTED}")
    return tuple(dict.fromkeys(found))


def built_in_owners() -> dict[str, str]:
    """Each built-in scenario's name and its owner, the library: the names no file may take."""
    return {scenario.name: "the built-in library" for scenario in SCENARIOS}


def claim(owners: dict[str, str], scenarios: Iterable[Scenario], owner: str) -> Scenario | None:
    """Enters each of ``scenarios`` in ``owners`` as ``owner``'s, up to the first whose name is
    taken already, which it returns (``owners`` names who holds it); ``None`` when every name
    was free."""
    for scenario in scenarios:
        if scenario.name in owners:
            return scenario
        owners[scenario.name] = owner
    return None


@functools.cache
def _loaded(paths: tuple[str, ...]) -> tuple[Scenario, ...]:
    owners = built_in_owners()
    loaded: list[Scenario] = []
    for path in paths:
        scenarios = build(read(path))
        taken = claim(owners, scenarios, f"scenario file {path!r}")
        if taken is not None:
            raise ScenarioFileError(
                f"scenario file {path!r}: name {taken.name!r} is already taken by "
                f'{owners[taken.name]}; give the file another "name"'
            )
        loaded.extend(scenarios)
    return tuple(loaded)


@dataclass(frozen=True)
class ScenarioLibrary:
    """The built-in scenarios and those of ``files``; callable as a `unsolvable._batch.Lookup`."""

    files: tuple[str, ...] = ()

    @classmethod
    def of(cls, paths: Iterable[str | Path]) -> ScenarioLibrary:
        return cls(scenario_files(paths))

    @property
    def from_files(self) -> tuple[Scenario, ...]:
        return _loaded(self.files)

    @property
    def scenarios(self) -> tuple[Scenario, ...]:
        return (*SCENARIOS, *self.from_files)

    def __call__(self, name: str) -> Scenario:
        return self.get(name)

    def get(self, name: str) -> Scenario:
        """The scenario called ``name``; an unknown one lists the closest names."""
        for scenario in self.from_files:
            if scenario.name == name:
                return scenario
        if name not in {s.name for s in self.scenarios}:
            raise unknown(name, self.scenarios, families=False)
        return builtin(name)

    def select(self, names: Sequence[str] = ()) -> tuple[Scenario, ...]:
        """Scenarios by name or family (all when ``names`` is empty), library order; an unknown
        name lists the closest scenario and family names."""
        if not names:
            return self.scenarios
        families = {scenario.family for scenario in self.scenarios}
        scenarios = {scenario.name for scenario in self.scenarios}
        chosen: dict[str, Scenario] = {}
        for name in names:
            if name in families:
                members = [s for s in self.scenarios if s.family == name]
            elif name in scenarios:
                members = [self.get(name)]
            else:
                raise unknown(name, self.scenarios, families=True)
            chosen.update((s.name, s) for s in members)
        return tuple(chosen.values())
