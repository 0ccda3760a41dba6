"""Consumes the session's settings at collection, produces the generated suites: one virtual
test module per agent named by ``--unsolvable-agent``.

A face of the pytest plugin (it subclasses `pytest.Module`), kept out of ``plugin.py`` so that the
hooks stay short; it imports nothing heavier than pytest and the option definitions.
"""

from __future__ import annotations

import hashlib
import importlib
import os
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pytest

from unsolvable.plugin._settings import Settings

if TYPE_CHECKING:
    from unsolvable._shard import Shard

__all__ = [
    "CASE",
    "SELECTED",
    "SUITE_MODULE",
    "SUITE_TEST",
    "UnsolvableSuite",
    "claim_node_ids",
    "shard_out",
    "shard_plan",
    "suite_path",
    "suites",
]

SUITE_MODULE = "unsolvable.plugin._generated"
"""The module of the suite's test: how the snapshot extension recognises a suite item, also on
the xdist controller, which never collects."""
SUITE_TEST = "test_unsolvable"
CASE = "unsolvable_case"
"""The fixture a suite's test is parametrized over (one case per scenario × seed)."""


class UnsolvableSuite(pytest.Module):
    """The generated suite of one agent: a virtual module at ``<snapshot dir>/<agent>``.

    Its path names the agent's snapshot folder, so syrupy places records from the item alone,
    also on the xdist controller, which never collects. ``selected`` holds the tests a node id
    on the command line named (`claim_node_ids`); empty, the suite has all of them.
    """

    def __init__(self, *, agent: str, selected: tuple[str, ...] = (), **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.agent, self.selected = agent, selected

    def _getobj(self) -> ModuleType:
        return importlib.import_module(SUITE_MODULE)

    def istestfunction(self, obj: object, name: str) -> bool:
        """Only the suite's test, whatever ``python_functions`` says."""
        return name == SUITE_TEST and callable(obj)

    def istestclass(self, obj: object, name: str) -> bool:
        return False

    def collect(self) -> list[pytest.Item | pytest.Collector]:
        """The suite's tests, or those its node ids named, as pytest collects a module's."""
        found = list(super().collect())
        if not self.selected or "" in self.selected:
            return found
        for part in self.selected:
            if not any(_names(item, part) for item in found):
                raise self.CollectError(f"{self.nodeid}: no test {part!r} in this suite")
        return [item for item in found if any(_names(item, part) for part in self.selected)]


def _names(item: pytest.Item | pytest.Collector, part: str) -> bool:
    """``part`` of a node id names ``item``: its whole name, or its function's (all cases)."""
    return part in (item.name, item.name.partition("[")[0])


SELECTED = pytest.StashKey[dict[Path, tuple[str, ...]]]()
"""The generated suites' tests that node ids on the command line named, by suite path."""


def claim_node_ids(config: pytest.Config, settings: Settings) -> None:
    """Takes out of pytest's arguments the node ids of generated tests (a FAILED line's id,
    ``__unsolvable__/contract::test_unsolvable[...]``) and keeps them for `suites`.

    A suite's path is its agent's snapshot folder, a directory (or nothing yet), which pytest
    refuses to select a test in; no file on disk holds these tests, so the plugin that makes
    them selects them. Run on every process, xdist workers included, which read the same
    command line."""
    paths = {suite_path(config, settings, spec): spec for spec in settings.agents}
    selected: dict[Path, tuple[str, ...]] = {}
    kept = []
    for arg in config.args:
        where, _, part = arg.partition("::")
        path = Path(os.path.abspath(config.invocation_params.dir / where))
        if path in paths:
            selected[path] = (*selected.get(path, ()), part)
        else:
            kept.append(arg)
    if selected:
        # A new list: the one pytest parsed stays as given, for plugins that read it (syrupy
        # keeps the snapshots of the suite's other tests because it sees the node id there).
        config.args = kept
        config.stash[SELECTED] = selected


def suites(session: pytest.Session, settings: Settings) -> list[UnsolvableSuite]:
    """One suite per agent, when this session should have them (`Settings.should_generate`);
    only the suites that node ids named, when some did (`claim_node_ids`)."""
    config = session.config
    selected = config.stash.get(SELECTED, {})
    explicit = config.args_source is pytest.Config.ArgsSource.ARGS
    if not (selected or settings.should_generate(explicit_paths=explicit)):
        return []
    paths = {spec: suite_path(config, settings, spec) for spec in settings.agents}
    return [
        UnsolvableSuite.from_parent(session, path=path, agent=spec, selected=selected.get(path, ()))
        for spec, path in paths.items()
        if not selected or path in selected
    ]


def suite_path(config: pytest.Config, settings: Settings, spec: str) -> Path:
    """Where the suite of agent ``spec`` lives: its snapshot folder, named after the run's label
    (`unsolvable._loading`), not the spec, so a bless from any folder lands in the same place."""
    from unsolvable._loading import load_agent
    from unsolvable._text import slug

    label = load_agent(spec, isolate_network=settings.isolate_network).name
    return config.rootpath / settings.snapshot_dir / slug(label)


def shard_plan(items: list[pytest.Item]) -> str:
    """The whole session's tests, hashed (`unsolvable._shard.ShardTag.plan`): every shard of one
    command collects the same ones, so its parts have the same, and two commands' parts do not.
    Their ids are sorted first: the order is each process's own once a plugin reorders them
    (pytest-randomly, with a seed of its own in each job of a matrix)."""
    return hashlib.sha256("\n".join(sorted(item.nodeid for item in items)).encode()).hexdigest()


def shard_out(items: list[pytest.Item], shard: Shard) -> list[pytest.Item]:
    """The tests another shard runs: of the generated suites' cases (every agent's, in the order
    of their ids, which every shard's process sees alike whatever order a plugin put the tests
    in) those `Shard.take` gives to others, weighed by their scenarios' step bounds; every other
    test, unless this is shard 1, so a test of one's own runs once in the whole matrix."""
    generated = (item for item in items if isinstance(item.parent, UnsolvableSuite))
    cases = sorted(generated, key=lambda item: item.nodeid)
    weights = [item.callspec.params[CASE].scenario.step_bound for item in cases]  # type: ignore[attr-defined]
    mine, suite = {cases[position] for position in shard.take(weights)}, set(cases)
    return [item for item in items if item not in mine and (item in suite or shard.index > 1)]
