"""Metrics at their edges: each percentile at its exact nearest rank, lag over unsolvable runs in
steps, tokens and cost, false stops over controls, the bound compared strictly."""

from __future__ import annotations

import dataclasses
import math
import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import unsolvable
from tests.reports._records import record
from unsolvable import Code, Outcome, scenarios
from unsolvable.reports._broke import tag
from unsolvable.reports._cells import COLUMNS, cells, false_stops, past_budget
from unsolvable.reports._counted import (
    ending,
    is_false_completion,
    is_premature_stop,
    is_unreported_finish,
    lag,
)
from unsolvable.reports._distribution import Distribution, percentile
from unsolvable.reports._metrics import measure, where
from unsolvable.reports._step_cap import calibrated_step_cap
from unsolvable.reports._table import explain

VALUES = st.lists(st.integers(-50, 50), min_size=1, max_size=60)


@given(values=VALUES, q=st.integers(1, 100))
@example(values=[1, 2, 3], q=67)  # ceil(2.01) = 3: a rank that integer rounding could miss
def test_percentile_is_the_nearest_rank_of_any_list(values: list[int], q: int) -> None:
    assert percentile(values, q) == sorted(values)[math.ceil(q * len(values) / 100) - 1]


@given(values=st.lists(st.integers(), min_size=1, max_size=60, unique=True))
def test_a_distribution_reads_p50_p95_and_max_at_their_ranks(values: list[int]) -> None:
    ranked, n = sorted(values), len(values)
    assert Distribution.of(values) == Distribution(
        count=n,
        p50=ranked[math.ceil(n / 2) - 1],
        p95=ranked[math.ceil(95 * n / 100) - 1],
        max=ranked[-1],
    )


@pytest.mark.parametrize(("n", "p50", "p95"), [(1, 1, 1), (2, 1, 2), (20, 10, 19), (21, 11, 20)])
def test_each_rank_at_its_boundary(n: int, p50: int, p95: int) -> None:
    values = list(range(n, 0, -1))
    assert (percentile(values, 50), percentile(values, 95), percentile(values, 100)) == (
        p50,
        p95,
        n,
    )
    assert percentile(values, 1) == 1
    assert Distribution.of(values) == Distribution(count=n, p50=p50, p95=p95, max=n)


def test_lag_in_steps_tokens_and_cost_is_over_the_unsolvable_runs_only() -> None:
    records = [
        record(scenario="f/a", steps=4, stagnant=2, lag_tokens=100),
        record(scenario="f/b", steps=9, stagnant=3, lag_tokens=300),
        record(scenario="c/c", solvable=True, steps=40, stagnant=1, lag_tokens=9000),
    ]
    overall = measure(records).agents[0]
    assert overall.lag_steps == Distribution(count=2, p50=2, p95=6, max=6)
    assert overall.lag_tokens == Distribution(count=2, p50=100, p95=300, max=300)
    assert overall.lag_cost_usd == Distribution(count=2, p50=0.001, p95=0.003, max=0.003)
    assert overall.steps == Distribution(count=3, p50=9, p95=40, max=40)


def test_the_bound_is_passed_only_by_a_step_beyond_it() -> None:
    records = [record(steps=10, bound=10), record(steps=11, bound=10), record(steps=5, bound=10)]
    overall = measure(records).agents[0]
    assert overall.over_bound == 1
    assert overall.steps_per_bound == Distribution(count=3, p50=1.0, p95=1.1, max=1.1)


@pytest.mark.parametrize(("steps", "shown"), [(50, "0.50"), (51, "0.50")])
def test_step_per_bound_p95_is_rounded_once_from_the_exact_ratio(steps: int, shown: str) -> None:
    """50 of N=101 is 0.49505, printed 0.50: rounded to the JSON's four digits first (0.495),
    then to two, it printed 0.49; and 51 of 101 (0.50495) printed 0.51. The JSON keeps four."""
    metrics = measure([record(steps=steps, bound=101, stagnant=1)])
    assert cells(metrics.agents[0])[COLUMNS.index("step/N p95")] == shown
    assert metrics.to_dict()["agents"][0]["steps_per_bound"]["p95"] == round(steps / 101, 4)


def test_false_stops_are_counted_over_controls_and_rated_to_four_digits() -> None:
    controls = [record(scenario="c/x", seed=s, solvable=True, code=Code.COMPLETED) for s in (0, 1)]
    stopped = record(scenario="c/x", seed=2, solvable=True, code=Code.NO_PROGRESS)
    unsolvable = record(scenario="f/y", code=Code.NO_PROGRESS)
    overall = measure([*controls, stopped, unsolvable]).agents[0]
    assert (overall.controls, overall.false_stops, overall.false_stop_rate) == (3, 1, 0.3333)


def test_false_completions_are_counted_over_every_run() -> None:
    claims = [
        record(scenario="f/a", code=Code.COMPLETED, world_complete=True),
        record(scenario="c/b", solvable=True, code=Code.COMPLETED, world_complete=False),
        record(scenario="c/b", seed=1, solvable=True, code=Code.COMPLETED, world_complete=True),
        record(scenario="f/a", seed=1, code=Code.NO_PROGRESS),
    ]
    assert [is_false_completion(r) for r in claims] == [True, True, False, False]
    assert measure(claims).agents[0].false_completions == 2


def test_endings_and_group_names() -> None:
    assert ending(record(code=Code.BUDGET_STEPS)) == "BUDGET_STEPS"
    assert ending(record(code=None, outcome=Outcome.CRASHED)) == "crashed"
    assert (where("agent", "all"), where("family", "f")) == ("all runs", "family f")


def test_the_json_form_lists_every_level_and_the_run_count() -> None:
    data = measure([record(), record(seed=1)]).to_dict()
    assert (list(data), data["runs"]) == (["agents", "families", "scenarios", "runs"], 2)
    assert data["families"][0]["lag_steps"] == {"count": 2, "p50": 3, "p95": 3, "max": 3}


def test_no_values_have_no_percentile() -> None:
    message = "percentile() of no values; a group with no runs has no distribution"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        percentile([], 50)


def test_the_step_cap_is_one_step_where_every_control_was_done_before_the_first() -> None:
    """A control its world shows finished at step 0 (a tool call before any model call) needs
    no step: the cap is the least there is, not a search over no steps."""
    records = [
        record(scenario="fam/a", steps=4, stagnant=2),
        record(scenario="ctl/b", solvable=True, steps=0, world_complete=True, code=Code.COMPLETED),
    ]
    cap = calibrated_step_cap(records)
    assert cap is not None and (cap.cap, cap.false_stops) == (1, 0)


def test_blind_stops_are_the_premature_stops_made_blind() -> None:
    """A control stopped before any step is a false stop, not a premature one: it is not among
    the premature stops' blind ones either."""
    records = [
        record(scenario="fam/a", steps=0, stagnant=2),
        record(scenario="ctl/b", solvable=True, steps=0, code=Code.NO_PROGRESS),
    ]
    group = measure(records).agents[0]
    assert (group.premature_stops, group.blind_stops, group.false_stops) == (1, 1, 1)


def test_a_finish_reported_otherwise_is_not_tagged_a_false_stop() -> None:
    unreported = record(scenario="ctl/b", solvable=True, world_complete=True, code=Code.NO_PROGRESS)
    stopped = record(scenario="ctl/b", solvable=True, seed=1, code=Code.NO_PROGRESS)
    assert is_unreported_finish(unreported) and not is_unreported_finish(stopped)
    assert (tag(unreported), tag(stopped)) == ("", "false stop")


@pytest.mark.parametrize(("stops", "controls", "shown"), [(4, 21, "19.0%"), (1, 26, "3.8%"),
                                                        (14, 17, "82.4%")])  # fmt: skip
def test_the_false_stop_share_is_printed_from_the_counts(
    stops: int, controls: int, shown: str
) -> None:
    """The stored rate is rounded to four digits; rounding it again to one decimal of a percent
    would print 19.1 % for 4 of 21."""
    records = [
        record(scenario="ctl/b", solvable=True, seed=i, code=Code.NO_PROGRESS)
        if i < stops
        else record(scenario="ctl/b", solvable=True, seed=i, code=Code.COMPLETED)
        for i in range(controls)
    ]
    assert false_stops(measure(records).agents[0]) == f"{stops}/{controls} ({shown})"


@pytest.mark.parametrize(
    ("stops", "shown", "rate"),
    [(1, "<0.1%", 0.0001), (20_000, ">99.9%", 0.9999), (0, "0.0%", 0.0), (20_001, "100.0%", 1.0)],
)
def test_a_false_stop_share_never_rounds_to_none_or_to_all(
    stops: int, shown: str, rate: float
) -> None:
    """One false stop in 20,001 controls is 0.005 %: written to a tenth of a percent it would
    read 0.0 %, no false stop, and stored to four digits the rate would be 0.0, which a baseline
    gate with no margin compares equal to none; nor does every control but one read as all."""
    stopped = record(scenario="ctl/b", solvable=True, code=Code.NO_PROGRESS)
    completed = record(scenario="ctl/b", solvable=True, seed=1, code=Code.COMPLETED)
    group = measure([stopped] * stops + [completed] * (20_001 - stops)).agents[0]
    assert (false_stops(group), group.false_stop_rate) == (f"{stops}/20001 ({shown})", rate)


def test_past_budget_names_each_most_in_positional_notation() -> None:
    """The most tokens and the most dollars any run went past may be two runs' figures: each is
    called a most of its own, and a count of tokens is never written with an exponent."""
    group = dataclasses.replace(
        measure([record()]).agents[0],
        over_budget=2,
        overshoot_tokens=Distribution(count=2, p50=0, p95=1_313_925, max=1_313_925),
        overshoot_cost_usd=Distribution(count=2, p50=0.0, p95=3.0024, max=3.0024),
    )
    assert past_budget(group) == "2, max 1313925 tokens, max $3.0024"


@pytest.mark.parametrize(
    ("tokens", "dollars", "shown"),
    [(0, 0.0381, "2, max $0.0381"), (12_700, 0.0, "2, max 12700 tokens")],
)
def test_past_budget_names_only_the_side_a_run_went_past(
    tokens: int, dollars: float, shown: str
) -> None:
    """Runs past a dollar budget with no token budget to pass went past it by no token: ``max 0
    tokens`` read as a figure where there is none, and so would ``max $0`` for tokens past a
    budget a free model priced at nothing."""
    group = dataclasses.replace(
        measure([record()]).agents[0],
        over_budget=2,
        overshoot_tokens=Distribution(count=2, p50=0, p95=tokens, max=tokens),
        overshoot_cost_usd=Distribution(count=2, p50=0.0, p95=dollars, max=dollars),
    )
    assert past_budget(group) == shown


def test_only_a_step_or_cost_budget_stop_counts_its_lag_from_zero() -> None:
    """A step budget all used chose the stop; a stop naming another budget, made on the same
    step, was a guess the lag keeps negative."""
    steps = record(code=Code.BUDGET_STEPS, steps=10, bound=10, stagnant=12)
    time = record(code=Code.BUDGET_TIME, steps=10, bound=10, stagnant=12)
    assert (lag(steps), lag(time)) == (0, -2)
    assert is_premature_stop(time) and not is_premature_stop(steps)


def test_explain_gives_the_three_lags_as_the_metrics_count_them() -> None:
    """A budget stop the budget chose counts from 0 in steps, tokens and dollars alike, where
    the record keeps the signed figures."""
    stopped = unsolvable.run("contract", scenarios.get("cost-runaway/plain"), seed=0)
    assert stopped.observed.detection_lag is not None and stopped.observed.detection_lag < 0
    assert stopped.observed.lag_tokens is not None and stopped.observed.lag_tokens < 0
    assert "; lag 0 steps, 0 tokens, $0\n" in explain(stopped)


def test_explain_writes_a_premature_stops_lags_with_their_nouns_and_signs() -> None:
    """A stop one step early lags -1 steps, its dollars signed as money is written (it read
    ``$-0.0005``), and a stop one step late 1 step (it read ``1 steps``)."""
    guessed = record(code=Code.NO_PROGRESS, steps=2, bound=10, stagnant=3, lag_tokens=-50)
    late = record(code=Code.NO_PROGRESS, steps=4, bound=10, stagnant=3, lag_tokens=1)
    lines = [
        next(line for line in explain(r).splitlines() if "; lag " in line) for r in (guessed, late)
    ]
    assert lines[0].endswith("; lag -1 steps, -50 tokens, -$0.0005")
    assert lines[1].endswith("; lag 1 step, 1 token, $0.00001")


def test_a_step_per_bound_past_1_is_never_shown_as_1() -> None:
    """201 steps of N=200 went past the bound (over_bound 1): two digits wrote it 1.00, a stop
    at the bound, which passes; the JSON says 1.005."""
    metrics = measure([record(steps=201, bound=200, stagnant=1)])
    overall = metrics.agents[0]
    assert overall.over_bound == 1
    assert cells(overall)[COLUMNS.index("step/N p95")] == "1.01"
    assert metrics.to_dict()["agents"][0]["steps_per_bound"]["p95"] == 1.005


def test_a_step_per_bound_short_of_1_is_never_shown_as_1() -> None:
    """399 steps of N=400 stopped within the bound: two digits wrote it 1.00, a stop at the
    bound itself, a step later than it was."""
    overall = measure([record(steps=399, bound=400, stagnant=1)]).agents[0]
    assert overall.over_bound == 0
    assert cells(overall)[COLUMNS.index("step/N p95")] == "0.99"
    at_the_bound = measure([record(steps=200, bound=200, stagnant=1)]).agents[0]
    assert cells(at_the_bound)[COLUMNS.index("step/N p95")] == "1.00"


@pytest.mark.parametrize(
    ("steps", "bound", "stored", "shown"),
    [
        (100_001, 100_000, 1.0001, "1.01"),
        (9_999, 10_000, 0.9999, "0.99"),
        (19_999, 20_000, 0.9999, "0.99"),
        (10_000, 10_000, 1.0, "1.00"),
        (1, 20_001, 0.0001, "0.01"),
        (1, 300, 0.0033, "0.01"),
    ],
)
def test_a_step_per_bound_never_rounds_onto_the_bound_or_zero(
    steps: int, bound: int, stored: float, shown: str
) -> None:
    """Stored to four digits, a stop at step 100,001 of N=100,000 was ``1.0``, a stop at the
    bound, and 19,999 of 20,000 too, a step later than it was; one step of 20,001 was ``0.0``,
    and one of 300 was ``0.00`` in the tables: a rounded ratio sits on 0 or 1 only when the
    ratio does."""
    metrics = measure([record(steps=steps, bound=bound, stagnant=1)])
    stored_p95 = metrics.to_dict()["agents"][0]["steps_per_bound"]["p95"]
    assert (stored_p95, cells(metrics.agents[0])[COLUMNS.index("step/N p95")]) == (
        stored,
        shown,
    )


@pytest.mark.parametrize(("steps", "cost"), [(5, 4e-7), (1, -4e-7)])
def test_a_dollar_figure_never_rounds_to_none(steps: int, cost: float) -> None:
    """A lag of four ten-millionths of a dollar, as a record read from a file may hold it, kept
    to the millionth was ``0.0``, a stop on the stagnant step itself; it is a millionth, signed
    (a premature stop's is negative)."""
    lagged = record(steps=steps, stagnant=3)
    lagged = dataclasses.replace(
        lagged, observed=dataclasses.replace(lagged.observed, lag_cost_usd=cost)
    )
    group = measure([lagged]).to_dict()["agents"][0]
    assert group["lag_cost_usd"]["p50"] == math.copysign(0.000001, cost)
