"""Consumes the ``pytest_unsolvable.agents`` entry points of installed distributions, produces the
agent names they register, each mapped to the ``module:attr`` spec `load_agent` already reads.

Registering an adapter is one table in its package's ``pyproject.toml``::

    [project.entry-points."pytest_unsolvable.agents"]
    my-framework = "mypkg.agents:adapter"

after which ``unsolvable run --agent my-framework`` (and every other place that takes an agent
spec) finds it. Nothing is imported until the name is used.

The harness registers its own framework and coding-agent adapters by name (`BUILTIN_ADAPTERS`);
an installed package cannot take one of those names.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from importlib.metadata import entry_points
from types import MappingProxyType

__all__ = ["BUILTIN_ADAPTERS", "ENTRY_POINT_GROUP", "registered"]

ENTRY_POINT_GROUP = "pytest_unsolvable.agents"
BUILTIN_ADAPTERS = {
    "claude-agent-sdk": "unsolvable.adapters.claude_agent_sdk:adapter",
    "claude-code": "unsolvable.adapters.claude_code:adapter",
    "llamaindex": "unsolvable.adapters.llamaindex:adapter",
    "autogen": "unsolvable.adapters.autogen:adapter",
    "crewai": "unsolvable.adapters.crewai:adapter",
    "codex": "unsolvable.adapters.codex_cli:adapter",
    "gemini-cli": "unsolvable.adapters.gemini_cli:adapter",
}
"""Adapters the harness ships under a short name, each needing its extra or CLI."""


@functools.cache
def registered() -> Mapping[str, str]:
    """Registered agent names → ``module:attr`` specs (the entry points' values), the
    harness's own (`BUILTIN_ADAPTERS`) winning a name both give. Read once per process and
    handed to every caller, so read-only."""
    points = {point.name: point.value for point in entry_points(group=ENTRY_POINT_GROUP)}
    return MappingProxyType({**points, **BUILTIN_ADAPTERS})
