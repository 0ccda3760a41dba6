"""Consumes the session's settings at collection, produces the generated suites: one virtual
test module per agent named by ``--unsolvable-agent``.

A face of the pytest plugin (it subclasses `pytest.Module`), kept out of ``plugin.py`` so that the
hooks stay short; it imports nothing heavier than pytest and the option definitions.
"""

from __future__ import annotations

import importlib
import re
from types import ModuleType
from typing import Any

import pytest

from unsolvable.plugin._options import Settings

__all__ = ["SUITE_MODULE", "SUITE_TEST", "UnsolvableSuite", "agent_slug", "suites"]

SUITE_MODULE = "unsolvable.plugin._generated"
"""The module of the suite's test: how the snapshot extension recognises a suite item, also on
the xdist controller, which never collects."""
SUITE_TEST = "test_unsolvable"


class UnsolvableSuite(pytest.Module):
    """The generated suite of one agent: a virtual module at ``<snapshot dir>/<agent>``.

    Its path names the agent's snapshot folder, so syrupy places records from the item alone,
    also on the xdist controller, which never collects.
    """

    def __init__(self, *, agent: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.agent = agent

    def _getobj(self) -> ModuleType:
        return importlib.import_module(SUITE_MODULE)

    def istestfunction(self, obj: object, name: str) -> bool:
        """Only the suite's test, whatever ``python_functions`` says."""
        return name == SUITE_TEST and callable(obj)

    def istestclass(self, obj: object, name: str) -> bool:
        return False


def suites(session: pytest.Session, settings: Settings) -> list[UnsolvableSuite]:
    """One suite per agent, when this session should have them (`Settings.should_generate`)."""
    config = session.config
    explicit = config.args_source is pytest.Config.ArgsSource.ARGS
    if not settings.should_generate(explicit_paths=explicit):
        return []
    folder = config.rootpath / settings.snapshot_dir
    return [
        UnsolvableSuite.from_parent(session, path=folder / agent_slug(spec), agent=spec)
        for spec in settings.agents
    ]


SLUG = r"[^A-Za-z0-9_.-]+"
"""What a folder name replaces; compiled on first use (``re`` caches it), not by every pytest
run that imports the plugin."""


def agent_slug(spec: str) -> str:
    """A spec as a folder name: ``pkg.module:agent`` → ``pkg.module.agent``."""
    return re.sub(SLUG, ".", spec).strip(".") or "agent"
