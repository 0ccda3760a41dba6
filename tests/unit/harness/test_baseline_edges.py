"""The gate at its edges: it reads p95 (not p50 or max), passes a number equal to baseline plus
margin and fails one above it, skips a number either side lacks, and says the margins."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from tests.reports._records import record
from unsolvable import Code, TerminationRecord
from unsolvable._errors import BaselineError
from unsolvable.reports._baseline import Margins, Regression, gate
from unsolvable.reports._blessed import BASELINE_VERSION, DOCS, Baseline, write_baseline
from unsolvable.reports._metrics import measure

KEY = ("scenario", "f/a", "a")


def _lags(*lags: int) -> list[TerminationRecord]:
    return [record(scenario="f/a", seed=i, steps=2 + lag, stagnant=2) for i, lag in enumerate(lags)]


def _baseline(lag: int | None, rate: float | None = None, *, runs: int = 1) -> Baseline:
    """Blessed over ``runs`` runs: the gate compares a group only with one of as many."""
    return Baseline(entries={KEY: {"runs": runs, "lag_steps_p95": lag, "false_stop_rate": rate}})


def _regressed(records: list[TerminationRecord], baseline: Baseline, **margins: float) -> list:
    result = gate(measure(records), baseline, Margins(**margins))  # type: ignore[arg-type]
    return [(r.name, r.metric, r.baseline, r.now) for r in result.regressions if r.level != "agent"]


def test_the_gate_reads_p95_not_p50_or_max() -> None:
    runs = _lags(*[0] * 18, 5, 9)  # p50 0, p95 (19th of 20) 5, max 9
    assert not _regressed(runs, _baseline(5, runs=20))
    assert _regressed(runs, _baseline(4, runs=20)) == [("f/a", "lag_steps_p95", 4, 5)]


@pytest.mark.parametrize(("margin", "fails"), [(0, True), (1, True), (2, False), (3, False)])
def test_a_lag_up_to_baseline_plus_margin_passes(margin: int, fails: bool) -> None:
    assert bool(_regressed(_lags(3), _baseline(1), lag_steps=margin)) is fails


@pytest.mark.parametrize(("margin", "fails"), [(0.0, True), (0.5, False)])
def test_a_false_stop_rate_up_to_baseline_plus_margin_passes(margin: float, fails: bool) -> None:
    runs = [record(scenario="f/a", solvable=True), record(scenario="f/a", seed=1, solvable=True)]
    regressed = _regressed(runs, _baseline(None, rate=0.5, runs=2), false_stop_rate=margin)
    assert regressed == ([("f/a", "false_stop_rate", 0.5, 1.0)] if fails else [])


def test_a_number_missing_on_either_side_is_not_compared() -> None:
    assert not _regressed(_lags(9), _baseline(None))
    controls = [record(scenario="f/a", solvable=True, code=Code.COMPLETED, world_complete=True)]
    assert not _regressed(controls, _baseline(0, rate=0.0)), "controls have no lag"
    assert not _regressed(_lags(9), Baseline(entries={KEY: {"runs": 1}}))


def test_a_regression_message_says_the_margin_it_was_allowed() -> None:
    regression = Regression(
        agent="a", level="family", name="f", metric="lag_steps_p95", baseline=2, now=6, margin=3
    )
    assert str(regression) == "family f × a: lag_steps_p95 2 → 6 steps (allowed up to 5)"
    rate = Regression(
        agent="a",
        level="agent",
        name="all",
        metric="false_stop_rate",
        baseline=0,
        now=0.5,
        margin=0,
    )
    assert str(rate) == "all runs × a: false_stop_rate 0 → 0.5 (allowed up to 0)"


def test_a_regression_of_a_millionth_of_a_dollar_prints_every_digit_the_gate_compared() -> None:
    """Lag costs keep a millionth of a dollar: at $1 and above that is a seventh significant
    digit, and with six the gate failed on 1.057644 → 1.057645 reading "1.05764 → 1.05764"."""
    regression = Regression(
        agent="a",
        level="agent",
        name="all",
        metric="lag_cost_usd_p95",
        baseline=1.057644,
        now=1.057645,
        margin=0.0012,
    )
    assert str(regression) == (
        "all runs × a: lag_cost_usd_p95 1.057644 → 1.057645 USD (allowed up to 1.058844)"
    )
    summed = dataclasses.replace(regression, baseline=0.006264, now=0.007465)
    assert str(summed).endswith("0.006264 → 0.007465 USD (allowed up to 0.007464)")


def test_the_gate_lines_say_the_margins_and_the_file(tmp_path: Path) -> None:
    baseline = write_baseline(measure(_lags(1)), tmp_path / "b.json")
    loaded = Baseline.load(tmp_path / "b.json")
    margins = Margins(lag_steps=1, false_stop_rate=0.1)
    assert gate(measure(_lags(2)), loaded, margins).lines() == [
        f"unsolvable: baseline gate passed: 3 groups compared against {tmp_path / 'b.json'} "
        "(lag p95 +1 step, false-stop rate +0.1)"
    ]
    failed = gate(measure(_lags(3)), baseline).lines()
    assert failed[0] == (
        "unsolvable: baseline gate FAILED: 3 regression(s) against the baseline "
        "(lag p95 +0 steps, false-stop rate +0):"
    )
    assert failed[1] == "  - all runs × a: lag_steps_p95 1 → 3 steps (allowed up to 1)"


def test_the_file_is_sorted_nested_json_ending_in_a_newline(tmp_path: Path) -> None:
    runs = [*_lags(1), record(scenario="b/z", agent="z"), record(scenario="a/y", agent="y")]
    text = write_baseline(measure(runs), tmp_path / "b.json").to_json()
    assert text == json.dumps(json.loads(text), sort_keys=True, indent=2) + "\n"
    data = json.loads(text)
    assert list(data) == ["agents", "baseline_version"] and list(data["agents"]) == ["a", "y", "z"]
    assert list(data["agents"]["a"]) == ["agent", "family", "scenario"]
    assert data["agents"]["a"]["scenario"]["f/a"] == {
        "false_stop_rate": None,
        "lag_cost_usd_p95": 0.001,
        "lag_steps_p95": 1,
        "runs": 1,
        "scenarios": 1,
        "seeds": [0],
    }
    assert (tmp_path / "b.json").read_text() == text


def test_a_baseline_is_written_into_folders_that_do_not_exist_yet(tmp_path: Path) -> None:
    path = tmp_path / "ci" / "deep" / "baseline.json"
    assert Baseline.load(_written(path)).path == path


def _written(path: Path) -> Path:
    write_baseline(measure(_lags(1)), path)
    return path


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "[1]",
            f"has baseline_version None, this harness reads 3 to {BASELINE_VERSION}; rewrite it "
            "with",
        ),
        (
            f'{{"baseline_version": {BASELINE_VERSION}, "agents": [1]}}',
            "is not a baseline file (AttributeError: ",
        ),
    ],
)
def test_bad_files_are_named_in_the_error(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "b.json"
    path.write_text(text)
    with pytest.raises(BaselineError, match=re.escape(f"baseline {str(path)!r} {message}")):
        Baseline.load(path)


def test_a_missing_or_unreadable_file_names_its_path(tmp_path: Path) -> None:
    path = tmp_path / "none.json"
    with pytest.raises(BaselineError) as missing:
        Baseline.load(path)
    assert str(missing.value) == (
        f"baseline {str(path)!r} does not exist; create it with --baseline {path} "
        f"--update-baseline and commit it ({DOCS})"
    )
    path.write_text("{")
    with pytest.raises(BaselineError, match=re.escape(f"baseline {str(path)!r} is not JSON")):
        Baseline.load(path)


def test_a_version_3_baseline_still_gates_as_naming_no_lost_run(tmp_path: Path) -> None:
    """Version 4 only added the lost runs' seeds: a baseline committed before is read, not
    refused, and gates the next run alike."""
    path = _written(tmp_path / "b.json")
    now = Baseline.load(path)
    data = json.loads(path.read_text())
    data["baseline_version"] = 3
    path.write_text(json.dumps(data))
    old = Baseline.load(path)
    assert (old.entries, old.seeds, old.lost) == (now.entries, now.seeds, {})
    assert gate(measure(_lags(1)), old).passed
    data["baseline_version"] = 2
    path.write_text(json.dumps(data))
    with pytest.raises(BaselineError, match="has baseline_version 2, this harness reads 3 to"):
        Baseline.load(path)


def test_an_agent_that_stops_guessing_is_no_regression() -> None:
    """Blessed while every run stopped three steps before its stagnant step (premature stops,
    lag p95 -3, in dollars below 0 too), the agent now stops on the stagnant step itself, the
    best lag there is: the gate failed it, -3 → 0 read as three steps worse. A premature stop is
    no shorter lag (counted apart): lag p95 is compared counted from 0, as against the step cap."""
    guessed = [record(scenario="f/a", seed=i, steps=1, stagnant=4, lag_tokens=-300) for i in (0, 1)]
    detects = [record(scenario="f/a", seed=i, steps=4, stagnant=4, lag_tokens=0) for i in (0, 1)]
    blessed = Baseline.from_metrics(measure(guessed))
    assert blessed.entries[KEY]["lag_steps_p95"] == -3
    assert gate(measure(detects), blessed).passed
    late = [record(scenario="f/a", seed=i, steps=5, stagnant=4, lag_tokens=100) for i in (0, 1)]
    regressed = gate(measure(late), blessed).regressions
    assert {(r.metric, r.now, r.allowed) for r in regressed if r.level == "scenario"} == {
        ("lag_steps_p95", 1, 0),
        ("lag_cost_usd_p95", 0.001, 0),
    }
