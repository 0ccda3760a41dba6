"""The record extension in-process: stable bytes, no volatile fields, sorted keys."""

from __future__ import annotations

import json

import unsolvable
from unsolvable import scenarios
from unsolvable._loading import load_agent
from unsolvable.plugin.snapshot import TerminationRecordExtension, mask_addresses


def _serialized() -> str:
    record = unsolvable.run(load_agent("contract"), scenarios.get("constant-return/repeat"))
    return str(TerminationRecordExtension().serialize(record))


def test_the_same_stop_gives_the_same_bytes_with_sorted_keys_and_no_wall_time() -> None:
    text = _serialized()
    assert text == _serialized()
    data = json.loads(text)
    assert "wall_seconds" not in data and list(data) == sorted(data)
    assert data["observed"]["detection_lag"] == 1


def test_memory_addresses_are_masked() -> None:
    returned = "<Answer object at 0x7f3a2b1c9d80>"
    assert mask_addresses(data=returned, path=()) == "<Answer object at 0x…>"
    assert mask_addresses(data=12, path=()) == 12
