"""`Spend`: what was spent before each step, observed for the steps made and projected at the
last step's cost after them — the budget-spent ground truth and the lag in tokens and dollars
read it, so its boundaries are pinned here."""

from __future__ import annotations

import pytest

from unsolvable._series import FirstStep, Spend


def test_the_start_of_a_step_is_observed_then_projected_at_the_last_steps_cost() -> None:
    spend = Spend(before=[0, 100, 250], total=400)
    assert [spend.at_start(step) for step in (1, 2, 3)] == [0, 100, 250]
    assert [spend.at_start(step) for step in (4, 5, 6)] == [400, 550, 700]


@pytest.mark.parametrize(("limit", "step"), [(100, 1), (101, 2), (250, 2), (251, 3), (400, 3)])
def test_the_step_that_reaches_the_limit_is_the_one_whose_end_reaches_it(
    limit: float, step: int
) -> None:
    assert Spend(before=[0, 100, 250], total=400).spent_at(limit) == step


@pytest.mark.parametrize(("limit", "step"), [(401, 4), (550, 4), (551, 5), (1000, 7)])
def test_past_the_run_the_step_is_projected(limit: float, step: int) -> None:
    assert Spend(before=[0, 100, 250], total=400).spent_at(limit) == step


def test_a_last_step_of_one_unit_still_projects() -> None:
    assert Spend(before=[0, 9], total=10).spent_at(12) == 4


def test_a_last_step_that_cost_nothing_projects_nothing() -> None:
    assert Spend(before=[0, 10], total=10).spent_at(20) is None


def test_no_limit_or_no_step_has_no_step_that_spent_it() -> None:
    assert Spend(before=[0, 10], total=20).spent_at(None) is None
    assert Spend(before=[], total=0).spent_at(5) is None
    assert Spend(before=[], total=0).at_start(3) == 0


def test_a_search_kept_over_a_run_tests_each_final_step_once() -> None:
    """The budget rule is asked after every call: a search kept over the run tests each step
    whose spend is final once, however often it is asked, so the cost per step stays flat."""
    tested: list[int] = []

    def meets(step: int) -> bool:
        tested.append(step)
        return step == 4

    first = FirstStep()
    for final in range(7):
        first.among(final, meets)
    assert (first.found, tested) == (4, [1, 2, 3, 4])


def test_a_search_kept_over_a_run_finds_what_a_search_from_scratch_finds() -> None:
    before = [0.0, 1.0, 2.0, 3.0, 5.0, 8.0, 13.0]
    reach, cover = FirstStep(), FirstStep()
    for made in range(1, len(before) + 1):
        spend = Spend(before=before[:made], total=before[made - 1] + made)
        assert spend.spent_at(4.0, reach) == spend.spent_at(4.0)
        assert spend.covered_until(9.0, cover) == spend.covered_until(9.0)
