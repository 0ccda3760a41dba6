"""Records in every written form: sorted, stable JSON; token totals; missing items normalised;
each code belonging to one exit."""

from __future__ import annotations

import json

import pytest

from tests.reports._records import record
from unsolvable import Code, Exit, Stop, TerminationRecord


def _nested_keys_sorted(value: object) -> bool:
    if isinstance(value, dict):
        keys = list(value)
        return keys == sorted(keys) and all(map(_nested_keys_sorted, value.values()))
    if isinstance(value, list):
        return all(map(_nested_keys_sorted, value))
    return True


@pytest.mark.parametrize("volatile", [False, True])
def test_every_json_form_has_its_keys_sorted_at_every_depth(volatile: bool) -> None:
    reported = Stop(code=Code.BUDGET_STEPS, partial={"zeta": 1, "alpha": {"b": 2, "a": 1}})
    text = TerminationRecord(**{**vars(record()), "reported": reported}).to_json(volatile=volatile)
    data = json.loads(text)
    assert _nested_keys_sorted(data), "json.loads keeps the order the text has"
    assert text == json.dumps(data, sort_keys=True, indent=2)
    assert ("wall_seconds" in data) is volatile
    assert data["reported"]["partial"] == {"alpha": {"a": 1, "b": 2}, "zeta": 1}
    assert "wall_seconds" not in record().to_dict(), "the stable form by default"


def test_the_dict_form_carries_the_derived_lag_and_a_jsonable_partial() -> None:
    reported = Stop(code=Code.BUDGET_STEPS, partial=object)
    data = TerminationRecord(
        **{**vars(record(steps=7, stagnant=3)), "reported": reported}
    ).to_dict()
    assert data["observed"]["detection_lag"] == 4
    assert data["reported"]["partial"] == repr(object)
    assert json.loads(json.dumps(data))["reported"]["partial"] == repr(object)


@pytest.mark.parametrize(("steps", "stagnant", "lag"), [(3, 3, 0), (4, 3, 1), (9, 2, 7)])
def test_detection_lag_counts_steps_from_the_stagnant_step(
    steps: int, stagnant: int, lag: int
) -> None:
    assert record(steps=steps, stagnant=stagnant).observed.detection_lag == lag


def test_tokens_are_input_plus_output() -> None:
    observed = record(steps=3).observed
    assert (observed.input_tokens, observed.output_tokens, observed.tokens) == (30, 3, 33)


def test_missing_items_are_normalised_to_a_tuple_of_strings() -> None:
    stop = Stop(code=Code.BLOCKED_INPUT, missing=["reports:publish", 42])  # type: ignore[list-item]
    assert stop.missing == ("reports:publish", "42")
    assert Stop(code=Code.NO_PROGRESS).missing == ()


def test_each_code_belongs_to_one_exit_and_a_string_code_is_read() -> None:
    exits = {code: code.exit for code in Code}
    assert [c for c, e in exits.items() if e is Exit.COMPLETE] == [Code.COMPLETED]
    assert {c for c, e in exits.items() if e is Exit.EXHAUSTED} == {c for c in Code if c.is_budget}
    assert Stop(code="NO_PROGRESS").code is Code.NO_PROGRESS  # type: ignore[arg-type]
    assert Stop(code=Code.NO_PROGRESS, exit="abandoned").exit is Exit.ABANDONED  # type: ignore[arg-type]


def test_a_contradictory_exit_is_named_with_the_exit_to_pass() -> None:
    with pytest.raises(ValueError, match=r"NO_PROGRESS belongs to exit 'abandoned'; leave exit"):
        Stop(code=Code.NO_PROGRESS, exit=Exit.EXHAUSTED)


def test_exit_and_code_read_through_the_stop_and_are_none_without_one() -> None:
    assert (record(code=None).exit, record(code=None).code) == (None, None)
    assert (record(code=Code.BUDGET_COST).exit, record().code) == (Exit.EXHAUSTED, Code.NO_PROGRESS)
