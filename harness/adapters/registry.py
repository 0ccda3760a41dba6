"""Consumes the ``pytest_unsolvable.agents`` entry points of installed distributions, produces the
agent names they register, each mapped to the ``module:attr`` spec `load_agent` already reads.

Registering an adapter is one table in its package's ``pyproject.toml``::

    [project.entry-points."pytest_unsolvable.agents"]
    my-framework = "mypkg.agents:adapter"

after which ``unsolvable run --agent my-framework`` (and every other place that takes an agent
spec) finds it. Nothing is imported until the name is used.
"""

from __future__ import annotations

import functools
from importlib.metadata import entry_points

__all__ = ["ENTRY_POINT_GROUP", "registered"]

ENTRY_POINT_GROUP = "pytest_unsolvable.agents"


@functools.cache
def registered() -> dict[str, str]:
    """Registered agent names → ``module:attr`` specs (the entry points' values)."""
    return {point.name: point.value for point in entry_points(group=ENTRY_POINT_GROUP)}
