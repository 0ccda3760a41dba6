"""Metrics: nearest-rank percentiles, lag on unsolvable runs only, false stops on controls only,
pass^k over seeds, and a JSON form that is the same bytes for the same records."""

from __future__ import annotations

import json
import random

import pytest

from tests.reports._records import library_records, record
from unsolvable import Code, Outcome
from unsolvable.reports._counted import (
    is_false_completion,
    is_false_stop,
    is_premature_stop,
    is_unreported_finish,
    lag,
)
from unsolvable.reports._distribution import Distribution, percentile
from unsolvable.reports._metrics import measure
from unsolvable.reports._step_cap import StepCap, calibrated_step_cap


def test_nearest_rank_percentiles_are_observed_values() -> None:
    values = list(range(1, 21))
    random.Random(0).shuffle(values)
    assert (percentile(values, 50), percentile(values, 95), percentile(values, 100)) == (10, 19, 20)
    assert percentile([7], 50) == percentile([7], 95) == 7
    assert percentile([1, 2, 3], 95) == 3, "ceil(0.95 · 3) = 3rd smallest"


@pytest.mark.parametrize(("values", "q"), [([], 50), ([1], 0), ([1], 101)])
def test_percentile_rejects_what_has_no_answer(values: list[int], q: int) -> None:
    with pytest.raises(ValueError, match="percentile"):
        percentile(values, q)


def test_lag_is_over_unsolvable_runs_and_false_stops_over_controls() -> None:
    records = [
        record(scenario="fam/a", steps=5, stagnant=2),
        record(scenario="fam/b", steps=9, stagnant=2),
        record(scenario="ctl/c", solvable=True, steps=3, stagnant=4, code=Code.NO_PROGRESS),
        record(scenario="ctl/c", solvable=True, seed=1, code=Code.COMPLETED),
    ]
    overall = measure(records).agents[0]
    assert overall.lag_steps == Distribution(count=2, p50=3, p95=7, max=7)
    assert (overall.controls, overall.false_stops, overall.false_stop_rate) == (2, 1, 0.5)
    control = measure(records).by_key["family", "ctl", "a"]
    assert control.lag_steps is None and control.lag_tokens is None
    assert measure(records).by_key["family", "fam", "a"].false_stop_rate is None


@pytest.mark.parametrize(
    ("code", "outcome", "false_stop"),
    [
        (Code.NO_PROGRESS, None, True),
        (None, Outcome.UNSTRUCTURED, True),
        (None, Outcome.CRASHED, True),
        (None, Outcome.DID_NOT_STOP, False),
        (Code.COMPLETED, None, False),
    ],
)
def test_a_false_stop_is_a_control_ended_without_completing(
    code: Code | None, outcome: Outcome | None, false_stop: bool
) -> None:
    control = record(solvable=True, code=code, outcome=outcome, world_complete=True)
    assert is_false_stop(control) is false_stop
    assert not is_false_stop(record(code=code, outcome=outcome)), "never on unsolvable tasks"


def test_false_completion_is_a_claim_the_world_does_not_back() -> None:
    assert is_false_completion(record(code=Code.COMPLETED, world_complete=True))
    assert is_false_completion(record(code=Code.COMPLETED, solvable=True))
    assert not is_false_completion(record(code=Code.COMPLETED, solvable=True, world_complete=True))


def test_pass_k_needs_every_seed_and_exits_are_counted_by_code() -> None:
    records = [
        record(seed=0),
        record(seed=1, passed=False, code=None),
        record(seed=2, outcome=Outcome.DID_NOT_STOP, code=None, steps=200),
        record(scenario="fam/b"),
    ]
    family = measure(records).families[0]
    assert (family.k, family.pass_k, family.scenarios, family.passed) == (3, 1, 2, 2)
    assert family.exits == {"NO_PROGRESS": 2, "did_not_stop": 1, "unstructured": 1}
    assert (family.did_not_stop, family.over_bound, family.steps_per_bound.max) == (1, 1, 20.0)


def test_groups_keep_the_order_records_show_them_in() -> None:
    records = [record(scenario="z/1", agent="b"), record(scenario="a/1", agent="a")]
    metrics = measure(records)
    assert [g.key for g in metrics.agents] == [("agent", "all", "b"), ("agent", "all", "a")]
    assert [g.name for g in metrics.families] == ["z", "a"]
    assert list(metrics) == [*metrics.agents, *metrics.families, *metrics.scenarios]


def test_same_records_same_json_and_seed_order_does_not_matter() -> None:
    records = list(library_records())
    first = json.dumps(measure(records).to_dict(), sort_keys=True)
    assert first == json.dumps(measure(list(records)).to_dict(), sort_keys=True)
    shuffled = sorted(records, key=lambda r: (r.scenario, r.agent, -r.seed))
    assert measure(shuffled).by_key == measure(records).by_key


def test_the_reference_agents_on_the_library() -> None:
    metrics = measure(library_records())
    contract, naive = (
        metrics.by_key["agent", "all", "contract"],
        metrics.by_key["agent", "all", "naive"],
    )
    assert contract.lag_steps == Distribution(count=36, p50=1, p95=1, max=1)
    assert contract.false_stop_rate == 0.0 and contract.pass_k == contract.scenarios
    assert naive.lag_steps is not None and naive.lag_steps.p50 > 20
    assert naive.false_stops == 6, "the 30-chapter control at its cap; the twin it never hints"
    assert contract.premature_stops == 0 and contract.step_cap is not None
    assert naive.step_cap is not None and contract.step_cap.beaten and not naive.step_cap.beaten
    assert naive.step_cap.shortfalls[0].endswith("runs failed their verdicts")
    exits = metrics.by_key["family", "missing-permission", "contract"].exits
    assert exits == {"BLOCKED_INPUT": 12, "COMPLETED": 3}, "the three runs of its twin complete"


def test_lag_is_signed_and_a_stop_before_the_stagnant_step_is_premature() -> None:
    records = [
        record(scenario="fam/a", steps=1, stagnant=3),
        record(scenario="fam/b", steps=6, stagnant=2),
        record(scenario="fam/c", steps=0, stagnant=1),
    ]
    overall = measure(records).agents[0]
    assert overall.lag_steps == Distribution(count=3, p50=-1, p95=4, max=4)
    assert (overall.premature_stops, overall.blind_stops) == (2, 1)
    assert [is_premature_stop(r) for r in records] == [True, False, True]


def test_a_stop_on_a_spent_budget_is_no_guess() -> None:
    spent = record(steps=10, stagnant=41, bound=10, code=Code.BUDGET_STEPS)
    assert spent.observed.detection_lag == -31 and lag(spent) == 0
    assert not is_premature_stop(spent)
    assert lag(record(steps=4, stagnant=41, bound=10, code=Code.BUDGET_STEPS)) == -37


def test_a_finished_control_reported_otherwise_is_counted_apart_from_false_stops() -> None:
    finished = record(solvable=True, code=Code.NO_PROGRESS, world_complete=True)
    group = measure([finished, record(solvable=True, seed=1, code=Code.NO_PROGRESS)]).agents[0]
    assert is_unreported_finish(finished)
    assert (group.unreported_finishes, group.false_stops, group.false_stop_rate) == (1, 1, 0.5)


def test_the_calibrated_step_cap_false_stops_no_more_than_the_agent() -> None:
    records = [
        record(scenario="fam/a", steps=3, stagnant=2),
        record(scenario="fam/b", steps=5, stagnant=4),
        record(scenario="ctl/c", solvable=True, steps=6, code=Code.COMPLETED, world_complete=True),
    ]
    cap = calibrated_step_cap(records)
    assert cap == StepCap(
        cap=6,
        lag_steps=Distribution.of([4, 2]),
        false_stops=0,
        premature_stops=0,
        lag_p95=4,
        agent_lag_p95=1,
        shortfalls=(),
        beaten=True,
    )
    assert measure(records).agents[0].step_cap == cap
    assert calibrated_step_cap(records[:2]) is None, "no controls: nothing to calibrate on"
