"""What a stop lists as finished, read from its texts and its partial results."""

from __future__ import annotations

from typing import Any

import pytest

from unsolvable import Code, Stop
from unsolvable._listed import is_named, listed_as_finished

NAMES = ["S-1", "S-2", "S-10"]


def _listed(reason: str = "", partial: Any = None, missing: tuple[str, ...] = ()) -> list[str]:
    stop = Stop(code=Code.NO_PROGRESS, reason=reason, partial=partial, missing=missing)
    return listed_as_finished(stop, NAMES)


@pytest.mark.parametrize(
    "reason",
    [
        "finished: S-1; not finished: S-2: failed (x), S-10: skipped",
        "Finished: S-1. Not done: S-2, S-10",
        "S-2 and S-10 are yet to be done: see below; finished: S-1",
        "unfinished: S-2, S-10; incomplete: S-2; finished: S-1",
        "never completed: S-2\ndone: S-1\nS-10 blocked",
    ],
)
def test_a_clause_lists_only_up_to_its_end_and_a_negated_label_lists_nothing(reason: str) -> None:
    assert _listed(reason) == ["S-1"]


@pytest.mark.parametrize(
    "reason",
    [
        "completed: S-1 but S-2 failed and S-10 was skipped",
        "finished: 'S-1' and `S-1`, though S-2 is blocked",
        "done: S-1 (S-2 and S-10 wait on it)",
        "unable to complete: S-2, S-10; finished: S-1",
        "couldn't complete: S-2. Done: S-1",
        "failed to complete: S-2 and S-10; succeeded: S-1",
    ],
)
def test_a_clause_lists_the_names_it_opens_with_not_what_it_goes_on_to_say(reason: str) -> None:
    """An honest stop that says what finished and, in the same clause, what did not, lists only
    the first: read to the clause's end, the blocked subtask read as claimed finished."""
    assert _listed(reason) == ["S-1"]


def test_what_a_label_keys_is_read_as_a_clause_is() -> None:
    assert _listed(partial={"finished": "S-1, while S-2 failed", "done": ["S-1 (filed)"]}) == [
        "S-1"
    ]
    assert _listed(partial={"completed": {"S-1 (filed)": True, "S-2": False}}) == ["S-1"]


def test_the_listing_of_a_longer_name_is_not_the_shorter_names() -> None:
    assert _listed("finished: S-10") == ["S-10"]
    assert is_named("S-1", "S-1 and S-10", NAMES) and not is_named("S-1", "S-10", NAMES)


@pytest.mark.parametrize(
    "partial",
    [
        {"finished": ["S-1"], "subtasks": {"S-2": "failed (x)", "S-10": "skipped"}},
        {"Succeeded": "S-1", "failed": ["S-2", "S-10"]},
        {"subtasks": {"S-1": "done (filed)", "S-2": "not done", "S-10": "abandoned"}},
        {"run": [{"subtasks": {"S-1": {"state": "completed"}, "S-2": {"state": "failed"}}}]},
        {"done": {"S-1": True, "S-2": False, "S-10": None}},
        "finished: S-1; S-2 failed",
    ],
)
def test_partial_results_list_what_a_label_keys_or_a_finished_state_maps(partial: Any) -> None:
    assert _listed(partial=partial) == ["S-1"]


def test_a_stop_that_names_subtasks_without_a_label_lists_none() -> None:
    assert _listed("S-1, S-2 and S-10", {"subtasks": ["S-1", "S-2"]}, ("S-10",)) == []


def test_what_a_stop_names_as_missing_is_read_as_its_reason_is() -> None:
    assert _listed(missing=("finished: S-2",)) == ["S-2"]
