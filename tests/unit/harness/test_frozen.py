"""What a model is handed refuses every change, and still reads, compares, copies and encodes as
the JSON it was copied from."""

from __future__ import annotations

import copy
import json
import pickle
from collections.abc import Callable
from typing import Any

import pytest

from unsolvable._frozen import FrozenDict, FrozenList, freeze

MESSAGE = {"role": "user", "content": [{"type": "text", "text": "hi"}], "n": (1, 2.5, True, None)}

CHANGES: list[Callable[[Any], object]] = [
    lambda m: m.__setitem__("role", "x"),
    lambda m: m.__delitem__("role"),
    lambda m: m.update(role="x"),
    lambda m: m.setdefault("new", 1),
    lambda m: m.pop("role"),
    lambda m: m.popitem(),
    lambda m: m.clear(),
    lambda m: m.__ior__({"x": 1}),
    lambda m: m["content"].append(1),
    lambda m: m["content"].extend([1]),
    lambda m: m["content"].insert(0, 1),
    lambda m: m["content"].remove(m["content"][0]),
    lambda m: m["content"].pop(),
    lambda m: m["content"].clear(),
    lambda m: m["content"].sort(),
    lambda m: m["content"].reverse(),
    lambda m: m["content"].__setitem__(0, 1),
    lambda m: m["content"].__delitem__(0),
    lambda m: m["content"].__iadd__([1]),
    lambda m: m["content"].__imul__(2),
    lambda m: m["content"][0].__setitem__("text", "changed"),
]


@pytest.mark.parametrize("change", CHANGES)
def test_every_change_is_refused_at_every_depth(change: Callable[[Any], object]) -> None:
    frozen = freeze(MESSAGE)
    with pytest.raises(TypeError, match="the harness hands over cannot be changed"):
        change(frozen)
    assert frozen == json.loads(json.dumps(MESSAGE))


def test_a_frozen_copy_reads_compares_and_encodes_as_its_json() -> None:
    frozen = freeze(MESSAGE)
    plain = json.loads(json.dumps(MESSAGE))
    assert isinstance(frozen, FrozenDict) and isinstance(frozen["n"], FrozenList)
    assert frozen == plain and json.dumps(frozen, sort_keys=True) == json.dumps(
        plain, sort_keys=True
    )
    for again in (copy.deepcopy(frozen), pickle.loads(pickle.dumps(frozen))):
        assert again == plain and isinstance(again, FrozenDict)


def test_the_copy_shares_no_container_with_what_it_was_copied_from() -> None:
    source = json.loads(json.dumps(MESSAGE))
    frozen = freeze(source)
    source["content"][0]["text"] = "changed"
    source["content"].append({"type": "text"})
    assert frozen["content"] == [{"type": "text", "text": "hi"}]
