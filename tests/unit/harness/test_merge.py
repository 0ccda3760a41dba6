"""``unsolvable merge`` in-process: the parts' records in the whole run's order, whatever order
the parts came in, and parts that are not one whole run refused, saying which and what to do."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import unsolvable
from unsolvable import scenarios
from unsolvable._errors import ShardError
from unsolvable._record import TerminationRecord
from unsolvable._shard import Key, Shard, ShardTag
from unsolvable.reports._merge import Part, merge

PYTEST_KEY = ("naive", 0, "constant-return/repeat", 0)
"""The pytest plugin's key of a record: agent, library order, scenario, seed."""


@pytest.fixture(scope="module")
def made() -> list[TerminationRecord]:
    """One case run twice, with other step budgets: two records of one key."""
    scenario = scenarios.get("constant-return/repeat")
    return [unsolvable.run("naive", scenario, max_steps=steps) for steps in (20, 30)]


def _part(
    index: int, record: TerminationRecord, *, count: int = 2, key: Key = PYTEST_KEY,
    runs: int | None = None,
) -> Part:  # fmt: skip
    shard = Shard(index, count)
    tag = ShardTag(shard=shard, complete=True, order=(key,), runs=runs, plan="one session")
    return Part(path=Path(f"part{index}.json"), records=(record,), tag=tag)


def test_merged_records_of_one_case_come_out_in_one_order_whichever_shard_made_them(
    made: list[TerminationRecord],
) -> None:
    """The plugin's key repeats for a test of one's own that runs a case the suite runs too;
    which shard made which of them must not decide their order in the merged file."""
    orders = []
    for first, second in (made, made[::-1]):
        orders.append(merge([_part(1, first), _part(2, second)]))
    assert orders[0] == orders[1]


@pytest.mark.parametrize(
    ("second", "says"),
    [
        ({"count": 3}, "part1.json into 2 shards; part2.json into 3 shards"),
        ({"key": (1,), "runs": 2}, "part1.json by pytest; part2.json by unsolvable run"),
    ],
    ids=["other-counts", "other-faces"],
)
def test_parts_of_other_runs_are_refused_naming_each_part_and_what_to_do(
    made: list[TerminationRecord], second: dict[str, Any], says: str
) -> None:
    parts = [_part(1, made[0]), _part(2, made[1], **second)]
    with pytest.raises(ShardError, match="make every shard with the same command") as refused:
        merge(parts)
    assert says in str(refused.value)


def test_parts_of_runs_of_other_sizes_are_refused_naming_each_part(
    made: list[TerminationRecord],
) -> None:
    parts = [_part(1, made[0], key=(0,), runs=2), _part(2, made[1], key=(1,), runs=3)]
    with pytest.raises(ShardError, match="make every shard with the same command") as refused:
        merge(parts)
    assert "part1.json of 2 runs; part2.json of 3 runs" in str(refused.value)
