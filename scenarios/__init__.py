"""The library of unsolvable tasks: plain data and factories, knowing nothing of pytest or a CLI."""

from unsolvable.scenarios._library import SCENARIOS, get, select

__all__ = ["SCENARIOS", "get", "select"]
