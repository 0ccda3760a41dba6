"""Consumes tool effects, produces the state a scenario's completion predicate is judged on.

`FakeWorld` is a small in-memory system of record: content that counts (fingerprinted) kept
apart from audit fields (access counts, a fake clock) that change on every call but are no
progress.
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from unsolvable._json import canonical_json

__all__ = ["FakeWorld", "normalise_text", "requires"]


def normalise_text(text: str) -> str:
    """Case and whitespace do not change what a stored text means."""
    return " ".join(str(text).split()).casefold()


def requires(key: str, criterion: str) -> Callable[[FakeWorld], list[str]]:
    """The commonest completion criterion: ``key`` holds a true value."""
    return lambda world: [] if world.peek(key) else [criterion]


class FakeWorld:
    """Records by key, completion criteria, a seeded generator and a fake clock.

    The task is complete when no criterion fails; the harness evaluates that itself.

    >>> world = FakeWorld(failing=requires("published", "report not published"))
    >>> world.put("published", True); world.is_complete()
    True
    """

    __test__ = False

    def __init__(
        self,
        *,
        failing: Callable[[FakeWorld], Sequence[str]],
        records: Mapping[str, Any] | None = None,
        seed: int = 0,
    ) -> None:
        self._records: dict[str, Any] = copy.deepcopy(dict(records or {}))
        self._failing = failing
        self.rng = random.Random(seed)
        self.clock = 0
        """Fake seconds since the run began; one tick per access. Audit only."""
        self.accesses: Counter[str] = Counter()
        """Reads and writes per key. Audit only: never part of the fingerprint."""
        self._fingerprint: str | None = None
        """The content's digest until the next `put`: the harness reads it after every tool call,
        and most calls of a stuck agent change nothing."""

    def get(self, key: str, default: Any = None) -> Any:
        """Reads as a tool does: the access is audited."""
        self._touch(key)
        return self.peek(key, default)

    def peek(self, key: str, default: Any = None) -> Any:
        """Reads as the harness does: no audit trace, so judging the world never changes it."""
        return copy.deepcopy(self._records.get(key, default))

    def put(self, key: str, value: Any) -> None:
        self._touch(key)
        self._records[key] = copy.deepcopy(value)
        self._fingerprint = None

    def _touch(self, key: str) -> None:
        self.clock += 1
        self.accesses[key] += 1

    def fingerprint(self) -> str:
        """SHA-256 of the content, strings normalised; audit fields excluded."""
        if self._fingerprint is None:
            content = canonical_json(_normalised(self._records))
            self._fingerprint = hashlib.sha256(content.encode()).hexdigest()[:16]
        return self._fingerprint

    def failing(self) -> list[str]:
        """The completion criteria that do not hold yet."""
        return list(self._failing(self))

    def criteria(self) -> str:
        """A stable form of `failing`, for the harness's criteria-based ground truth."""
        return json.dumps(self.failing())

    def is_complete(self) -> bool:
        return not self.failing()

    def volatile_id(self, prefix: str) -> str:
        """A fresh, seeded id such as real APIs attach to every response."""
        return f"{prefix}-{self.rng.getrandbits(32):08x}"


def _normalised(value: Any) -> Any:
    if isinstance(value, str):
        return normalise_text(value)
    if isinstance(value, Mapping):
        return {str(k): _normalised(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_normalised(v) for v in value]
    return value
