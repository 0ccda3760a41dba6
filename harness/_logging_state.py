"""Consumes Python's `logging` configuration as an agent's loading left it, produces it again
before each of the agent's runs (`unsolvable._worker`).

A worker makes many runs of one agent, and `logging` is configured per process: a handler an
agent adds to the root logger in each run, a level it sets or a ``logging.disable`` in one run
would hold for the runs its worker makes after it, so that a record would depend on which runs
its worker made before (``-n 1`` against ``-n 2``). What the agent's module configures as it is
imported holds for every run, as in production. A logger first made during a run is left as it
is: a library imported then (lazily, by a framework) configures its own as it is imported, once
per process, and its later runs would lose what a fresh process keeps.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

__all__ = ["LoggingState"]


@dataclass(frozen=True, kw_only=True)
class _LoggerState:
    """What a run may change of one logger: its level, its handlers and filters (the objects
    themselves), whether it passes records up and whether it is switched off."""

    level: int
    handlers: tuple[logging.Handler, ...]
    filters: tuple[Any, ...]
    propagate: bool
    disabled: bool

    @classmethod
    def of(cls, logger: logging.Logger) -> _LoggerState:
        return cls(
            level=logger.level,
            handlers=tuple(logger.handlers),
            filters=tuple(logger.filters),
            propagate=logger.propagate,
            disabled=logger.disabled,
        )

    def restore(self, logger: logging.Logger) -> None:
        """Puts it back on ``logger``; the levels the loggers worked out from their parents'
        are forgotten once for all loggers (`LoggingState.restore`), where ``setLevel`` would
        forget all of them for each logger set."""
        logger.level = self.level
        logger.handlers = list(self.handlers)
        logger.filters = list(self.filters)
        logger.propagate = self.propagate
        logger.disabled = self.disabled


def _loggers() -> dict[str, logging.Logger]:
    """Every logger of the process by name, the root's as ``""``."""
    named = logging.Logger.manager.loggerDict.items()
    return {
        "": logging.getLogger(),
        **{name: value for name, value in named if isinstance(value, logging.Logger)},
    }


@dataclass(frozen=True, kw_only=True)
class LoggingState:
    """Every logger's `_LoggerState` and the level ``logging.disable`` switched off."""

    loggers: dict[str, _LoggerState]
    disabled_below: int

    @classmethod
    def now(cls) -> LoggingState:
        return cls(
            loggers={name: _LoggerState.of(logger) for name, logger in _loggers().items()},
            disabled_below=logging.root.manager.disable,
        )

    def restore(self) -> None:
        """Puts this state back: each logger that was there as it was (one an agent took out of
        the process's loggers, as it is), and ``logging.disable``'s level, which also forgets
        the levels every logger worked out from its parents'."""
        loggers = _loggers()
        for name, state in self.loggers.items():
            logger = loggers.get(name)
            if logger is not None and _LoggerState.of(logger) != state:
                state.restore(logger)
        logging.disable(self.disabled_below)
