"""What changed between a record's snapshot and the record now, in words, above the diff."""

from __future__ import annotations

import json
from typing import Any

import pytest

import unsolvable
from tests import _builders as b
from unsolvable import Code, Stop
from unsolvable._ceilings import Ceilings
from unsolvable._record import SCHEMA_VERSION
from unsolvable.plugin._changes import describe_change
from unsolvable.plugin.snapshot import behaviour


def _record(steps: int, code: Code = Code.NO_PROGRESS, **given: Any) -> dict[str, Any]:
    record = unsolvable.run(b.steps_then(steps, Stop(code=code, **given)), b.scenario(step_bound=9))
    return behaviour(record)


def _words(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    return describe_change(json.dumps(old), json.dumps(new))


def test_a_later_stop_is_said_in_one_line() -> None:
    assert (
        _words(_record(3), _record(4))[0] == "stop changed: step 3 → 4, lag 1 → 2, code unchanged"
    )


def test_the_lag_said_is_the_lag_every_report_counts() -> None:
    """A run a step ceiling found at step 1 of N=9 never stopped, stagnant from step 2: its
    record's own lag is -1, but every report counts it stopped past N, lag 8, as late as the
    stop at step 10 it was before. Saying ``lag 8 → -1`` read as an agent that now guesses
    early, where the tables, spans and JUnit properties show the same lag as before."""
    hangs = b.steps_then(20, Stop(code=Code.NO_PROGRESS))
    cut = unsolvable.run(hangs, b.scenario(step_bound=9), ceilings=Ceilings(max_steps=1))
    assert (cut.observed.steps, cut.observed.detection_lag) == (1, -1)
    assert _words(_record(10), behaviour(cut))[0] == (
        "stop changed: step 10 → 1, code NO_PROGRESS → did_not_stop"
    )
    assert _words(_record(10), _record(1))[0] == (
        "stop changed: step 10 → 1, lag 8 → -1, code unchanged"
    )


def test_a_new_code_says_so_with_its_exit() -> None:
    later = _record(3, Code.BUDGET_STEPS, partial=["page 1"])
    assert _words(_record(3), later)[0] == (
        "stop changed: code NO_PROGRESS → BUDGET_STEPS, exit abandoned → exhausted"
    )


def test_a_false_completion_appearing_is_named() -> None:
    claimed = _record(3, Code.COMPLETED)
    assert _words(_record(3), claimed)[0] == (
        "stop changed: code NO_PROGRESS → COMPLETED, exit abandoned → complete, "
        "false completion appeared"
    )


def test_the_same_stop_names_what_else_changed() -> None:
    old, new = _record(3), _record(3)
    new["observed"]["input_tokens"] += 5
    new["observed"]["tail"] = []
    assert _words(old, new) == [
        "stop unchanged (step 3, NO_PROGRESS)",
        f"also changed: observed.input_tokens {old['observed']['input_tokens']} → "
        f"{new['observed']['input_tokens']}, observed.tail",
    ]


def test_an_older_schema_says_how_to_regenerate() -> None:
    old = {**_record(3), "schema_version": SCHEMA_VERSION - 1}
    assert _words(old, _record(3)) == [
        f"the snapshot was written by an older version (schema {SCHEMA_VERSION - 1} → "
        f"{SCHEMA_VERSION}): regenerate it with --snapshot-update",
        "stop unchanged (step 3, NO_PROGRESS)",
    ]


@pytest.mark.parametrize("stored", ["not json", "[1, 2]"])
def test_a_snapshot_that_is_not_a_record_is_only_said_to_differ(stored: str) -> None:
    assert describe_change(stored, json.dumps(_record(3))) == [
        "the snapshot is not a termination record's JSON"
    ]
