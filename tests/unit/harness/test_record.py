"""The record's vocabulary and its stable JSON form."""

from __future__ import annotations

import json

import pytest

import unsolvable
from tests import _builders as b
from unsolvable import Code, Exit, Stop


def test_exit_is_derived_from_the_code() -> None:
    assert Stop(code=Code.BUDGET_COST).exit is Exit.EXHAUSTED
    assert Stop(code="BLOCKED_INPUT").exit is Exit.ABANDONED  # type: ignore[arg-type]


def test_contradictory_exit_and_code_are_rejected_naming_the_fix() -> None:
    with pytest.raises(ValueError, match="pass exit='exhausted'"):
        Stop(code=Code.BUDGET_STEPS, exit=Exit.COMPLETE)


def test_budget_codes_know_they_are_budget_codes() -> None:
    assert {c for c in Code if c.is_budget} == {
        Code.BUDGET_STEPS,
        Code.BUDGET_TIME,
        Code.BUDGET_IDLE,
        Code.BUDGET_COST,
        Code.BUDGET_CALLS,
    }


def test_snapshot_form_has_no_wall_time_and_keeps_the_verdict() -> None:
    record = unsolvable.run(
        b.steps_then(3, Stop(code=Code.NO_PROGRESS, partial={1, 2})), b.scenario()
    )
    data = json.loads(record.to_json())
    assert "wall_seconds" not in data and "wall_seconds" in record.to_dict(volatile=True)
    assert data["verdict"]["passed"] is True and data["observed"]["detection_lag"] == 1
    assert data["reported"]["partial"] == "{1, 2}", "non-JSON partials are kept as their repr"
    assert data["schema_version"] == unsolvable.SCHEMA_VERSION


def test_same_run_gives_the_same_bytes() -> None:
    agent = b.steps_then(3, Stop(code=Code.NO_PROGRESS))
    first, second = (unsolvable.run(agent, b.scenario(), seed=4).to_json() for _ in range(2))
    assert first == second
