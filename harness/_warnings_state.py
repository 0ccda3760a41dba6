"""Consumes Python's warnings machinery as an agent's module left it when it was imported,
produces the state each run of that agent starts from (`unsolvable._worker`).

A module may set its warnings up as it is imported (``warnings.simplefilter("ignore")``, a
filter for one message, ``logging.captureWarnings(True)``), and in production every call of the
agent runs under that set-up. The import happens once per process: in a worker's first run, or
in the harness's own process before it forks its workers, where the harness's check that the
agent loads puts its own filters back. Kept here as the import left it, it is what every run of
the agent starts from, whichever process imported it and whichever runs came before.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["WarningsState", "imported_warnings", "keep_imported_warnings"]


@dataclass(frozen=True, kw_only=True)
class WarningsState:
    """Python's warnings filters and its way of showing a warning."""

    filters: tuple[Any, ...]
    showwarning: Callable[..., None]

    @classmethod
    def now(cls) -> WarningsState:
        return cls(filters=tuple(warnings.filters), showwarning=warnings.showwarning)

    def restore(self) -> None:
        """Puts this state back, with every warning's once-per-place memory forgotten: Python
        shows a warning once per place in a process, and each run shows its own as a run alone
        would, whichever runs its process made before it."""
        warnings.resetwarnings()
        warnings.filters = list(self.filters)
        warnings.showwarning = self.showwarning


_IMPORTED: dict[str, WarningsState] = {}
"""The warnings as each import of an agent left them, by what it imported
(`unsolvable._loading.imported_as`), in the process that loaded it and in the workers forked
from it."""


def keep_imported_warnings(imported: str) -> None:
    """Keeps the warnings as loading an agent that imports ``imported`` has just left them, the
    first time only: a later load of it, for this agent or another of its module, imports
    nothing."""
    _IMPORTED.setdefault(imported, WarningsState.now())


def imported_warnings(imported: str) -> WarningsState | None:
    """The warnings as importing ``imported`` left them, here or in the process this one was
    forked from; ``None`` for what was never loaded."""
    return _IMPORTED.get(imported)
