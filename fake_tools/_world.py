"""Consumes tool effects, produces the state a scenario's completion predicate is judged on.

`FakeWorld` is a small in-memory system of record: content that counts (fingerprinted) kept
apart from audit fields (access counts, a fake clock) that change on every call but are no
progress. A write may say what the world's checks make of its value (`FakeWorld.put`): that is
what counts, not the bytes written.
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
        self._judged: dict[str, Any] = {}
        """What the world's checks make of a record's value, for the records written with one:
        what the fingerprint holds in its place."""
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

    def put(self, key: str, value: Any, *, judged_as: Any = None) -> None:
        """Stores ``value``; ``judged_as``, when given, is what the world's checks make of it
        (the criteria a text fails, the test result of a setting), and the fingerprint holds
        that instead: a new value judged as an old one is no new state, so writing new words
        is no progress unless what the checks say moves."""
        self._touch(key)
        self._records[key] = copy.deepcopy(value)
        if judged_as is None:
            self._judged.pop(key, None)
        else:
            self._judged[key] = copy.deepcopy(judged_as)
        self._fingerprint = None

    def _touch(self, key: str) -> None:
        self.clock += 1
        self.accesses[key] += 1

    def fingerprint(self) -> str:
        """SHA-256 of the content, strings normalised, each record written with a judgement
        (`put`) counted by it; audit fields excluded."""
        if self._fingerprint is None:
            counted = {key: self._judged.get(key, value) for key, value in self._records.items()}
            content = canonical_json(_normalised(counted))
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
