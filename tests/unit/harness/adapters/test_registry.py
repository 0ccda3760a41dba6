"""Installed packages register agents by name through an entry point group; `load_agent` finds
them like built-ins, and nothing is imported until the name is used."""

from __future__ import annotations

from collections.abc import Iterator
from importlib.metadata import EntryPoint
from typing import Any

import pytest

from unsolvable._loading import load_agent
from unsolvable.adapters import registry
from unsolvable.adapters.base import PlainAdapter
from unsolvable.agents import naive


@pytest.fixture
def install(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Fakes the installed entry points of the group; the registry cache is cleared around."""

    def install(**names: str) -> None:
        group = registry.ENTRY_POINT_GROUP
        points = [EntryPoint(name, value, group) for name, value in names.items()]
        monkeypatch.setattr(registry, "entry_points", lambda *, group: points)

    registry.registered.cache_clear()
    yield install
    registry.registered.cache_clear()


def test_a_registered_name_loads_the_agent_it_points_at(install: Any) -> None:
    install(**{"registered-naive-test": "unsolvable.agents.naive:naive"})
    adapter = load_agent("registered-naive-test")
    assert isinstance(adapter, PlainAdapter) and adapter.agent is naive
    assert adapter.name == "naive", "labelled by the agent's own name"


def test_unregistered_names_still_say_how_to_write_a_spec(install: Any) -> None:
    install()
    with pytest.raises(TypeError, match="module:attribute"):
        load_agent("no-such-registered-agent")


def test_what_one_caller_does_to_the_names_changes_none_for_the_next(install: Any) -> None:
    """The names are read once per process and every caller gets them: none may edit them."""
    install(**{"registered-naive-test": "unsolvable.agents.naive:naive"})
    with pytest.raises(TypeError):
        registry.registered()["registered-naive-test"] = "elsewhere:agent"  # type: ignore[index]
    assert registry.registered()["registered-naive-test"] == "unsolvable.agents.naive:naive"
