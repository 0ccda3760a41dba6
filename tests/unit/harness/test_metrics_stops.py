"""The metrics that read *how* a run stopped: blind and premature stops, the steps a control
needs, and the calibrated step cap at its boundaries (the cap at 1, a cap landing on a
stagnant step, controls claimed but not done)."""

from __future__ import annotations

import dataclasses

import pytest

from tests.reports._records import record
from unsolvable import Code, Outcome, TerminationRecord
from unsolvable.reports._metrics import (
    Distribution,
    StepCap,
    calibrated_step_cap,
    is_blind_stop,
    is_budget_spent,
    is_premature_stop,
    lag,
    measure,
)


def _observed(base: TerminationRecord, **changes: object) -> TerminationRecord:
    return dataclasses.replace(base, observed=dataclasses.replace(base.observed, **changes))


def test_a_run_that_never_stopped_is_not_blind_whatever_it_read() -> None:
    runaway = record(code=None, outcome=Outcome.DID_NOT_STOP, steps=0)
    assert not is_blind_stop(runaway)
    assert not is_blind_stop(_observed(runaway, tool_calls=0))


def test_no_model_call_is_blind_even_after_tool_calls() -> None:
    assert is_blind_stop(_observed(record(), steps=0, tool_calls=3))


def test_no_tool_result_is_blind_unless_the_model_itself_gave_up() -> None:
    no_tools = _observed(record(steps=2), tool_calls=0)
    assert is_blind_stop(no_tools)
    assert not is_blind_stop(_observed(no_tools, gave_up_at_step=2))
    assert not is_blind_stop(record(steps=2))


def test_a_control_is_never_a_premature_stop_however_early_it_stopped() -> None:
    early = record(solvable=True, steps=1, stagnant=3, code=Code.NO_PROGRESS)
    assert early.observed.detection_lag == -2
    assert not is_premature_stop(early)
    assert is_premature_stop(dataclasses.replace(early, solvable=False))


def test_a_control_claimed_complete_but_not_done_needs_its_whole_bound() -> None:
    records = [
        record(scenario="fam/a", steps=2, stagnant=2),
        record(scenario="ctl/b", solvable=True, steps=3, bound=9, code=Code.COMPLETED),
    ]
    assert calibrated_step_cap(records) == StepCap(
        cap=9, lag_steps=Distribution.of([7]), false_stops=0, premature_stops=0
    )


def test_a_control_stopped_early_needs_its_whole_bound_too() -> None:
    records = [
        record(scenario="fam/a", steps=2, stagnant=2),
        record(scenario="ctl/b", solvable=True, steps=3, bound=8, code=Code.NO_PROGRESS),
        record(
            scenario="ctl/c",
            solvable=True,
            steps=4,
            bound=8,
            code=Code.COMPLETED,
            world_complete=True,
        ),
    ]
    cap = calibrated_step_cap(records)
    assert cap is not None and (cap.cap, cap.false_stops) == (4, 1), "allowed the agent's one"


def test_the_smallest_cap_is_one_step_never_zero() -> None:
    records = [
        record(scenario="fam/a", steps=1, stagnant=1),
        record(scenario="ctl/b", solvable=True, steps=1, code=Code.NO_PROGRESS),
    ]
    cap = calibrated_step_cap(records)
    assert cap is not None and cap.cap == 1 and cap.false_stops == 1


def test_a_control_done_in_one_step_calibrates_a_cap_of_one() -> None:
    records = [
        record(scenario="fam/a", steps=3, stagnant=1),
        record(scenario="ctl/b", solvable=True, steps=1, code=Code.COMPLETED, world_complete=True),
    ]
    assert calibrated_step_cap(records) == StepCap(
        cap=1, lag_steps=Distribution.of([0]), false_stops=0, premature_stops=0
    )


def test_a_cap_that_lands_on_the_stagnant_step_is_not_premature() -> None:
    records = [
        record(scenario="fam/a", steps=3, stagnant=3),
        record(scenario="fam/b", steps=5, stagnant=4),
        record(scenario="ctl/c", solvable=True, steps=3, code=Code.COMPLETED, world_complete=True),
    ]
    cap = calibrated_step_cap(records)
    assert cap is not None and cap.cap == 3
    assert cap.premature_stops == 1, "only fam/b, whose stagnant step 4 is past the cap"
    assert cap.lag_steps == Distribution.of([0, -1])


def test_a_group_of_controls_alone_beats_no_cap() -> None:
    controls = [
        record(scenario="ctl/a", solvable=True, steps=2, code=Code.COMPLETED, world_complete=True)
    ]
    group = measure(controls).agents[0]
    assert group.lag_steps is None
    cap = StepCap(cap=1, lag_steps=Distribution.of([5]), false_stops=3, premature_stops=3)
    assert not cap.is_beaten_by(group)


def _exhausted(budget: dict[str, float | int | None], **observed: object) -> TerminationRecord:
    base = record(code=Code.BUDGET_COST, steps=4, stagnant=9)
    return _observed(dataclasses.replace(base, budget=budget), **observed)


def test_an_exhausted_token_budget_counts_from_the_charged_tokens_reaching_it() -> None:
    """Input 40 and output 4 tokens, 4 of them the agent's prompt: 40 charged."""
    charged = {"input_tokens": 40, "output_tokens": 4, "uncharged_tokens": 4}
    assert is_budget_spent(_exhausted({"max_tokens": 40}, **charged))
    assert not is_budget_spent(_exhausted({"max_tokens": 41}, **charged))
    assert not is_budget_spent(_exhausted({"max_steps": 9}, **charged)), "no token budget"
    assert is_budget_spent(_exhausted({"max_steps": 4}, **charged)), "the step budget ran out"


def test_a_budget_stop_that_really_ran_out_counts_a_lag_of_at_least_zero() -> None:
    spent = _exhausted({"max_tokens": 40}, input_tokens=40, output_tokens=0)
    assert spent.observed.detection_lag == -5 and lag(spent) == 0
    early = _exhausted({"max_tokens": 41}, input_tokens=40, output_tokens=0)
    assert lag(early) == -5


def test_a_control_has_no_lag_to_count() -> None:
    with pytest.raises(ValueError, match=r"^lag\(\) of fam/a, a solvable control: it has no lag$"):
        lag(record(solvable=True))
