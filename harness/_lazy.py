"""Consumes a package's table of names and the modules that define them, produces the module-level
``__getattr__`` that imports each name on first use (PEP 562).

The pytest plugin imports the ``harness`` packages in every test run of its users; names that
load when used keep a run that uses none of them as fast as one without the plugin.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, MutableMapping
from typing import Any

__all__ = ["lazy_getattr"]


def lazy_getattr(
    namespace: MutableMapping[str, Any], homes: Mapping[str, str]
) -> Callable[[str], Any]:
    """``namespace`` is the package's ``globals()``; ``homes`` maps each name to its module.
    A name, once loaded, is stored there, so later lookups are plain attribute reads."""

    def __getattr__(name: str) -> Any:
        if name not in homes:
            raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(homes[name]), name)
        namespace[name] = value
        return value

    return __getattr__
