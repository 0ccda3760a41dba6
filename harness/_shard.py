"""Consumes a session's runs (scenario × seed × agent, in the session's order) and a shard
``K/N``, produces the runs that shard makes: a deterministic 1/N of them, balanced by the
scenarios' step bounds, so a CI matrix of N jobs makes the whole run between them.

Every shard reads the same runs in the same order and assigns all of them the same way, so the
shards never overlap and together make every run once (`unsolvable merge` checks this).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from unsolvable._errors import ShardError

if TYPE_CHECKING:
    from unsolvable._record import TerminationRecord

__all__ = ["Shard", "ShardTag", "assign", "in_order"]

FORM = re.compile(r"([0-9]+)/([0-9]+)")


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` of ``count`` (both from 1: ``2/3`` is the second of three)."""

    index: int
    count: int

    def __post_init__(self) -> None:
        if not 1 <= self.index <= self.count:
            raise ShardError(
                f"shard {self.index}/{self.count}: K/N needs 1 ≤ K ≤ N, e.g. 1/3, 2/3 and 3/3 for "
                "a matrix of three jobs"
            )

    @classmethod
    def parse(cls, text: str) -> Shard:
        """``K/N`` as a CI matrix writes it (``2/3``)."""
        given = FORM.fullmatch(text.strip())
        if given is None:
            raise ShardError(
                f"shard {text!r}: write it as K/N, this job's number and the number of jobs, "
                "e.g. 2/3"
            )
        return cls(int(given[1]), int(given[2]))

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def take(self, weights: Sequence[int]) -> list[int]:
        """The positions (into ``weights``, one per run in the session's order) of the runs this
        shard makes, in that order (`assign`)."""
        return assign(weights, self.count)[self.index - 1]


def assign(weights: Sequence[int], count: int) -> list[list[int]]:
    """Each of ``count`` shards' positions, in order: the heaviest run first, each to the shard
    with the least weight so far (the lowest-numbered on a tie), so no shard carries more than
    one run's weight above another. A run's weight is its scenario's step bound N, what bounds
    the steps an agent that stops in time makes."""
    loads = [0] * count
    shards: list[list[int]] = [[] for _ in range(count)]
    for position in sorted(range(len(weights)), key=lambda p: (-weights[p], p)):
        lightest = min(range(count), key=lambda k: (loads[k], k))
        loads[lightest] += weights[position]
        shards[lightest].append(position)
    return [sorted(shard) for shard in shards]


Key = tuple[str | int, ...]
"""A record's place in the whole run's order, compared as a tuple."""


def in_order(keyed: Iterable[tuple[Key, TerminationRecord]]) -> list[TerminationRecord]:
    """The records by their keys. Records that share a key (the pytest plugin's tests of one's
    own may run a case twice, with other budgets) go by their stable JSON: the order they
    arrived in is a race between xdist workers, or the order of shards, and must not show."""
    ordered = sorted(keyed, key=lambda item: item[0])
    records: list[TerminationRecord] = []
    for _, group in itertools.groupby(ordered, key=lambda item: item[0]):
        alike = [record for _, record in group]
        records += sorted(alike, key=lambda record: record.to_json()) if len(alike) > 1 else alike
    return records


@dataclass(frozen=True, kw_only=True)
class ShardTag:
    """What a shard's ``--json`` file says about its place in the whole run, for ``unsolvable
    merge``: which shard it is, whether it ran to its end, and each record's place in the order
    the whole run writes its records in (``unsolvable run``: its position among the runs;
    the pytest plugin: agent, scenario and seed, as its summary sorts them)."""

    shard: Shard
    complete: bool
    """Every run the shard was given finished: not interrupted, no worker lost."""
    order: tuple[Key, ...]
    """One key per record of the file, in the file's order."""
    runs: int | None = None
    """How many runs the whole run has, where the face knows (``unsolvable run``)."""
    plan: str | None = None
    """A digest of the whole run's runs in order (``unsolvable run``'s jobs, the pytest
    session's tests): every shard of one command has the same, and two commands (other
    scenarios, the agents in another order) do not, so their shards are never merged."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.shard.index,
            "count": self.shard.count,
            "complete": self.complete,
            "order": [list(key) for key in self.order],
            "runs": self.runs,
            "plan": self.plan,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ShardTag:
        """The tag a file holds; a ``complete`` that is not ``true`` or ``false`` is a
        `ValueError`, as ``"false"`` would otherwise read as a finished shard, and so are a
        number that is not whole (`_whole`) and a key of another shape (`_key`)."""
        complete = data["complete"]
        if not isinstance(complete, bool):
            raise ValueError(f'its shard\'s "complete" is {complete!r}, not true or false')
        runs = None if data.get("runs") is None else _whole(data["runs"], "runs")
        shape = SESSION_KEY if runs is None else RUN_KEY
        return cls(
            shard=Shard(_whole(data["index"], "index"), _whole(data["count"], "count")),
            complete=complete,
            order=tuple(_key(key, shape) for key in data["order"]),
            runs=runs,
            plan=None if data.get("plan") is None else str(data["plan"]),
        )


RUN_KEY = (("position", int),)
"""An ``unsolvable run`` record's key: its position among the whole run's runs."""
SESSION_KEY = (("agent", str), ("place", int), ("scenario", str), ("seed", int))
"""A pytest record's key: agent, the scenario's place in the library, scenario, seed."""


def _whole(value: object, field: str) -> int:
    """A whole number of a shard's tag; `ValueError` otherwise, as ``int()`` would read a
    hand-edited ``1.5`` or ``true`` as shard 1."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f'its shard\'s "{field}" is {value!r}, not a whole number')
    return value


def _key(value: object, shape: tuple[tuple[str, type], ...]) -> Key:
    """A record's key of ``shape`` (its fields' names and types); `ValueError` otherwise, since
    a key of another shape cannot be put in order beside the others'."""
    kinds = tuple(kind for _, kind in shape)
    if not (
        isinstance(value, list)
        and len(value) == len(kinds)
        and all(
            isinstance(v, kind) and not isinstance(v, bool)
            for v, kind in zip(value, kinds, strict=True)
        )
    ):
        fields = ", ".join(
            f"{name} ({'a whole number' if kind is int else 'text'})" for name, kind in shape
        )
        raise ValueError(f'its shard\'s "order" holds {value!r}, not [{fields}]')
    return tuple(value)
