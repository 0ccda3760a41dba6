"""A shard K/N takes a deterministic, balanced 1/N of a session's runs; the N shards take every
run once."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from unsolvable._errors import ShardError
from unsolvable._shard import Shard, ShardTag, assign


@pytest.mark.parametrize(("text", "shard"), [("1/1", Shard(1, 1)), (" 2/3 ", Shard(2, 3))])
def test_a_shard_is_written_k_of_n(text: str, shard: Shard) -> None:
    assert Shard.parse(text) == shard and str(shard) == text.strip()


@pytest.mark.parametrize(
    ("text", "says"),
    [("0/3", "needs 1 ≤ K ≤ N"), ("4/3", "needs 1 ≤ K ≤ N"), ("2", "write it as K/N"),
     ("a/b", "write it as K/N"), ("1/0", "needs 1 ≤ K ≤ N")],
)  # fmt: skip
def test_a_shard_that_is_not_k_of_n_says_how_to_write_it(text: str, says: str) -> None:
    with pytest.raises(ShardError, match=says):
        Shard.parse(text)


@given(st.lists(st.integers(min_value=1, max_value=60), max_size=80), st.integers(1, 6))
def test_the_shards_take_every_run_once_each_within_one_runs_weight(
    weights: list[int], count: int
) -> None:
    shards = assign(weights, count)
    assert sorted(p for shard in shards for p in shard) == list(range(len(weights)))
    assert all(shard == sorted(shard) for shard in shards), "each in the session's order"
    loads = [sum(weights[p] for p in shard) for shard in shards]
    assert max(loads) - min(loads) <= max(weights, default=0)
    assert shards == assign(list(weights), count), "the same runs, the same shards"
    assert [Shard(k, count).take(weights) for k in range(1, count + 1)] == shards


@pytest.mark.parametrize("complete", ["false", 0, None])
def test_a_shard_tag_whose_complete_is_not_a_boolean_is_refused(complete: object) -> None:
    """``"false"`` read as a truth value would pass an unfinished shard as a finished one."""
    tag = {"index": 1, "count": 2, "complete": complete, "order": [], "runs": 0}
    with pytest.raises(ValueError, match=r'"complete" is .*, not true or false'):
        ShardTag.from_dict(tag)
    assert ShardTag.from_dict({**tag, "complete": False}).complete is False
