"""The baseline gate: a blessed run passes against itself; lag p95 or false-stop rate beyond the
margin fails, naming group, metric, baseline and now; a bad file says how to make a good one."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.reports._records import library_records, record
from unsolvable import Code, TerminationRecord
from unsolvable._errors import BaselineError
from unsolvable.reports._baseline import Margins, gate
from unsolvable.reports._blessed import BASELINE_VERSION, Baseline, BaselineFlags, write_baseline
from unsolvable.reports._metrics import measure


def _runs(lag: int, *, false_stops: int = 0) -> list[TerminationRecord]:
    unsolvable = [record(scenario="fam/a", seed=s, steps=2 + lag, stagnant=2) for s in range(3)]
    controls = [
        record(scenario="ctl/c", seed=s, solvable=True, code=Code.COMPLETED, world_complete=True)
        for s in range(4 - false_stops)
    ]
    cut = [record(scenario="ctl/c", seed=s, solvable=True) for s in range(4 - false_stops, 4)]
    return [*unsolvable, *controls, *cut]


def test_a_written_baseline_reads_back_and_passes_against_itself(tmp_path: Path) -> None:
    metrics = measure(library_records())
    written = write_baseline(metrics, tmp_path / "ci" / "baseline.json")
    loaded = Baseline.load(tmp_path / "ci" / "baseline.json")
    assert loaded.entries == written.entries and len(loaded.entries) == len(list(metrics))
    assert loaded.seeds == written.seeds
    result = gate(metrics, loaded)
    assert result.passed and result.compared == len(loaded.entries)
    assert result.lines()[0].startswith("unsolvable: baseline gate passed: ")


def test_the_file_is_sorted_stable_json(tmp_path: Path) -> None:
    path = tmp_path / "baseline.json"
    write_baseline(measure(library_records()), path)
    first = path.read_bytes()
    write_baseline(measure(library_records()), path)
    assert path.read_bytes() == first
    data = json.loads(first)
    assert first.decode() == json.dumps(data, sort_keys=True, indent=2) + "\n", "keys sorted"
    assert data["agents"]["contract"]["family"]["missing-permission"] == {
        "false_stop_rate": 0.0,  # its twin, a solvable control, is in the family
        "lag_cost_usd_p95": 0.005697,
        "lag_steps_p95": 1,
        "runs": 15,
        "scenarios": 5,
        "seeds": [0, 1, 2],
    }


def test_lag_beyond_the_margin_fails_naming_what_regressed() -> None:
    baseline = Baseline.from_metrics(measure(_runs(lag=1)))
    result = gate(measure(_runs(lag=3)), baseline)
    assert not result.passed
    assert [str(r) for r in result.regressions] == [
        "all runs × a: lag_steps_p95 1 → 3 steps (allowed up to 1)",
        "family fam × a: lag_steps_p95 1 → 3 steps (allowed up to 1)",
        "scenario fam/a × a: lag_steps_p95 1 → 3 steps (allowed up to 1)",
    ]
    assert gate(measure(_runs(lag=3)), baseline, Margins(lag_steps=2)).passed


def test_false_stops_beyond_the_margin_fail() -> None:
    baseline = Baseline.from_metrics(measure(_runs(lag=1)))
    result = gate(measure(_runs(lag=1, false_stops=1)), baseline)
    assert {(r.name, r.metric, r.baseline, r.now) for r in result.regressions} == {
        ("all", "false_stop_rate", 0.0, 0.25),
        ("ctl", "false_stop_rate", 0.0, 0.25),
        ("ctl/c", "false_stop_rate", 0.0, 0.25),
    }
    assert gate(measure(_runs(1, false_stops=1)), baseline, Margins(false_stop_rate=0.25)).passed
    lines = result.lines()
    assert lines[0].startswith("unsolvable: baseline gate FAILED: 3 regression(s)")
    assert lines[-1].strip().endswith("--update-baseline")


def test_groups_only_one_side_has_are_not_compared() -> None:
    baseline = Baseline.from_metrics(measure([record(scenario="old/x", steps=90)]))
    result = gate(measure([record(scenario="new/y"), record(scenario="old/x")]), baseline)
    assert result.passed and (result.compared, result.partial) == (2, 0)  # old, old/x
    assert result.beyond == 1  # all: new/y's runs the baseline never measured


def test_a_narrowed_run_gates_only_the_groups_it_covers_in_full() -> None:
    blessed = [record(scenario="fam/a", steps=3), record(scenario="fam/b", steps=3)]
    narrowed = [record(scenario="fam/a", steps=3)]
    result = gate(measure(narrowed), Baseline.from_metrics(measure(blessed)))
    assert result.passed and (result.compared, result.partial) == (1, 2)
    assert "2 groups this run covers only in part were not compared" in result.lines()[0]


def test_a_run_of_other_seeds_is_not_compared_with_the_seeds_blessed() -> None:
    """Seed 2's runs are not seed 0's: the same stop logic lags otherwise on them (naive on
    constant-return, blessed on seed 0 and run on seed 2, failed 20 groups it never changed)."""
    blessed = [record(scenario="fam/a", seed=0, steps=3), record(scenario="fam/b", seed=0)]
    other = [record(scenario="fam/a", seed=2, steps=9), record(scenario="fam/b", seed=2)]
    result = gate(measure(other), Baseline.from_metrics(measure(blessed)))
    assert not result.regressions and (result.compared, result.partial) == (0, 4)


def test_a_run_of_more_seeds_or_scenarios_is_not_compared_with_fewer_blessed() -> None:
    """The seeds blessed and more are other runs too: ``naive`` blessed on cost-runaway/plain's
    seed 0 (lag 13) and run with ``--all-seeds`` (lags 13, 14, 15) failed six groups, lag p95
    13 → 15, its stop logic unchanged; so would a family the library gave a new scenario. Such
    groups are left out and counted, as a narrowed run's are."""
    blessed = [record(scenario="fam/a", seed=0, steps=3), record(scenario="fam/b", seed=0)]
    seeds = [*blessed, record(scenario="fam/a", seed=2, steps=9), record(scenario="fam/b", seed=2)]
    result = gate(measure(seeds), Baseline.from_metrics(measure(blessed)))
    assert not result.regressions and (result.compared, result.beyond) == (0, 4)
    scenarios = [*blessed, record(scenario="fam/c", steps=30)]
    result = gate(measure(scenarios), Baseline.from_metrics(measure(blessed)))
    assert result.passed and (result.compared, result.partial, result.beyond) == (2, 0, 2)
    assert result.lines()[0].endswith(
        "; 2 groups this run covers beyond the baseline, on runs it never measured, were not "
        "compared"
    )


def test_a_failed_gate_says_too_which_groups_it_left_out() -> None:
    blessed = [record(scenario="fam/a", steps=3), record(scenario="fam/b", steps=3)]
    narrowed = [record(scenario="fam/a", steps=30)]
    result = gate(measure(narrowed), Baseline.from_metrics(measure(blessed)))
    assert not result.passed and (result.compared, result.partial) == (1, 2)
    assert "2 groups this run covers only in part were not compared" in result.lines()[0]


def test_built_in_names_match_in_either_spelling() -> None:
    blessed = Baseline.from_metrics(measure([record(scenario="fam/a", agent="contract")]))
    now = measure([record(scenario="fam/a", agent="unsolvable.agents:contract")])
    assert gate(now, blessed).compared == 3


def test_a_gate_that_compares_nothing_fails_naming_both_sides_unless_allowed() -> None:
    baseline = Baseline.from_metrics(measure([record(scenario="old/x", agent="mine:v1")]))
    now = measure([record(scenario="old/x", agent="mine:v2")])
    result = gate(now, baseline)
    assert not result.passed
    assert result.lines()[1:3] == [
        "  - the baseline has agents: mine:v1",
        "  - this run has agents: mine:v2",
    ]
    assert result.lines()[-1].endswith("or allow this with --allow-empty-gate")
    assert gate(now, baseline, allow_empty=True).passed


def test_the_empty_gate_says_its_verdict_where_it_looked_and_both_ways_out(tmp_path: Path) -> None:
    path = tmp_path / "baseline.json"
    baseline = write_baseline(measure([]), path)
    now = measure([record(scenario="old/x", agent="mine:v2")])
    failed = dataclasses.replace(gate(now, baseline), path=path)
    assert failed.lines() == [
        f"unsolvable: baseline gate FAILED: compared no group against {path}",
        "  - the baseline has agents: (none)",
        "  - this run has agents: mine:v2",
        "  run the agents, scenarios and seeds the baseline has, rewrite it with "
        "--update-baseline, or allow this with --allow-empty-gate",
    ]
    two_agents = measure([record(agent="b:v1"), record(agent="a:v1", seed=1)])
    assert gate(two_agents, baseline).lines()[2] == "  - this run has agents: a:v1, b:v1"
    blessed_two = Baseline.from_metrics(two_agents)
    assert gate(now, blessed_two).lines()[1] == "  - the baseline has agents: a:v1, b:v1"
    allowed = gate(measure([]), baseline, allow_empty=True)
    assert allowed.lines()[:3] == [
        "unsolvable: baseline gate passed (allowed empty): compared no group against the baseline",
        "  - the baseline has agents: (none)",
        "  - this run has agents: (none)",
    ]


def test_a_value_of_the_wrong_type_is_a_baseline_error_at_load(tmp_path: Path) -> None:
    path = tmp_path / "baseline.json"
    write_baseline(measure([record(scenario="fam/a")]), path)
    data = json.loads(path.read_text())
    data["agents"]["a"]["family"]["fam"]["lag_steps_p95"] = "three"
    path.write_text(json.dumps(data))
    message = f"baseline {str(path)!r}: agents.a.family.fam.lag_steps_p95 = 'three' is a str"
    with pytest.raises(BaselineError, match=re.escape(message)):
        Baseline.load(path)


def _edited(path: Path, edit: Callable[[dict[str, Any]], object]) -> Path:
    """A baseline of one run, written by the harness, then edited by hand."""
    write_baseline(measure([record(scenario="fam/a")]), path)
    data = json.loads(path.read_text())
    edit(data["agents"]["a"])
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        pytest.param(
            lambda agent: agent["family"]["fam"].pop("false_stop_rate"),
            "agents.a.family.fam has no false_stop_rate, which every entry has (null where the "
            "group has no such figure), so the gate would skip it; restore it, or rewrite the "
            "file with --update-baseline",
            id="missing-rate",
        ),
        pytest.param(
            lambda agent: [agent["agent"]["all"].pop(name) for name in ("runs", "seeds")],
            "agents.a.agent.all has no runs and seeds, which every entry has",
            id="missing-counts",
        ),
        pytest.param(
            lambda agent: agent["scenario"]["fam/a"].update(false_stop_rat=0.0),
            "agents.a.scenario.fam/a has false_stop_rat, no field of a baseline entry (runs, "
            "scenarios, lag_steps_p95, false_stop_rate, lag_cost_usd_p95, seeds, lost_seeds); "
            "correct the name",
            id="misspelt",
        ),
        pytest.param(
            lambda agent: agent.update(families=agent.pop("family")),
            "agents.a.families.fam: 'families' is no level of a baseline (agent, family, "
            "scenario), so the gate would compare none of its groups",
            id="level",
        ),
        pytest.param(
            lambda agent: agent["family"]["fam"].update(scenarios=None),
            "agents.a.family.fam.scenarios = None is not a whole number above 0",
            id="null-count",
        ),
    ],
)
def test_a_hand_edited_entry_missing_or_misnaming_a_field_is_a_baseline_error_at_load(
    tmp_path: Path, edit: Callable[[dict[str, Any]], object], message: str
) -> None:
    """A baseline without its ``false_stop_rate`` gated the lag alone, without a word: the
    missing figure read as one the group does not have (null)."""
    path = _edited(tmp_path / "baseline.json", edit)
    with pytest.raises(BaselineError, match=re.escape(f"baseline {str(path)!r}: {message}")):
        Baseline.load(path)


def test_every_baseline_the_harness_writes_reads_back(tmp_path: Path) -> None:
    """The library's records, one run lost: every entry has every field, and no other."""
    runs = library_records()
    path = tmp_path / "baseline.json"
    written = write_baseline(measure([_lost(runs[0]), *runs[1:]]), path)
    loaded = Baseline.load(path)
    assert (loaded.entries, loaded.seeds, loaded.lost) == (
        written.entries,
        written.seeds,
        written.lost,
    )
    assert written.lost


@pytest.mark.parametrize("seeds", ["0", [0, "1"], [True]])
def test_seeds_that_are_no_list_of_whole_numbers_are_a_baseline_error_at_load(
    tmp_path: Path, seeds: object
) -> None:
    path = tmp_path / "baseline.json"
    write_baseline(measure([record(scenario="fam/a")]), path)
    data = json.loads(path.read_text())
    data["agents"]["a"]["scenario"]["fam/a"]["seeds"] = seeds
    path.write_text(json.dumps(data))
    message = f"agents.a.scenario.fam/a.seeds = {seeds!r} is not a list of whole numbers"
    with pytest.raises(BaselineError, match=re.escape(message)):
        Baseline.load(path)


def test_a_missing_file_says_how_to_create_it(tmp_path: Path) -> None:
    with pytest.raises(
        BaselineError, match=r"does not exist; create it with --baseline .* --update-baseline"
    ):
        Baseline.load(tmp_path / "nope.json")


@pytest.mark.parametrize(
    ("text", "match"),
    [("{", "is not JSON"), ('{"baseline_version": 99}', "baseline_version 99")],
)
def test_an_unreadable_file_is_a_baseline_error(tmp_path: Path, text: str, match: str) -> None:
    path = tmp_path / "baseline.json"
    path.write_text(text)
    with pytest.raises(BaselineError, match=match):
        Baseline.load(path)


def test_messages_name_the_flags_of_the_face_that_prints_them(tmp_path: Path) -> None:
    flags = BaselineFlags(prefix="--unsolvable-")
    with pytest.raises(
        BaselineError, match=r"create it with --unsolvable-baseline .* --unsolvable-"
    ):
        Baseline.load(tmp_path / "nope.json", flags=flags)
    result = gate(measure(_runs(lag=3)), Baseline.from_metrics(measure(_runs(lag=1))))
    assert result.lines(flags)[-1].endswith(
        "accept the new numbers with --unsolvable-update-baseline"
    )


def test_a_file_of_another_shape_is_a_baseline_error(tmp_path: Path) -> None:
    path = tmp_path / "baseline.json"
    path.write_text(
        f'{{"baseline_version": {BASELINE_VERSION}, "agents": {{"a": ["not", "levels"]}}}}'
    )
    with pytest.raises(BaselineError, match="is not a baseline file"):
        Baseline.load(path)


def test_margins_are_never_negative() -> None:
    with pytest.raises(BaselineError, match="lag_steps=-1"):
        Margins(lag_steps=-1)
    assert str(Margins(false_stop_rate=0.05)) == "lag p95 +0 steps, false-stop rate +0.05"


def test_lag_that_costs_more_fails_the_gate_and_a_dollar_margin_lets_it_pass() -> None:
    dear = measure(library_records())
    baseline = Baseline(
        entries={
            key: {**entry, "lag_cost_usd_p95": (entry["lag_cost_usd_p95"] or 0) / 2}
            for key, entry in Baseline.from_metrics(dear).entries.items()
        }
    )
    result = gate(dear, baseline)
    assert result.regressions and {r.metric for r in result.regressions} == {"lag_cost_usd_p95"}
    assert str(result.regressions[0]).endswith(
        f" USD (allowed up to {result.regressions[0].baseline:g})"
    )
    assert gate(dear, baseline, Margins(lag_cost_usd=1.0)).passed
    assert str(Margins(lag_cost_usd=0.5)).endswith(", lag cost p95 +$0.5")


def test_a_baseline_from_before_the_cost_was_gated_is_compared_on_the_rest() -> None:
    metrics = measure(library_records())
    older = Baseline(
        entries={
            key: {k: v for k, v in entry.items() if k != "lag_cost_usd_p95"}
            for key, entry in Baseline.from_metrics(metrics).entries.items()
        }
    )
    assert gate(metrics, older).passed


def _lost(made: TerminationRecord) -> TerminationRecord:
    """``made`` as a run whose worker was lost: no stagnant step, so no lag."""
    observed = dataclasses.replace(
        made.observed, first_stagnant_step=None, lag_tokens=None, lag_cost_usd=None
    )
    return dataclasses.replace(made, observed=observed)


def test_a_lost_run_on_either_side_is_named_beside_the_gate_not_passed_over(
    tmp_path: Path,
) -> None:
    """Its lag is null, so its group's p95 is over the other runs: the gate names the run and
    the side that lost it, as it counts the groups it could not compare."""
    runs = _runs(1)
    one_lost = [_lost(r) if (r.scenario, r.seed) == ("fam/a", 1) else r for r in runs]
    path = tmp_path / "baseline.json"
    write_baseline(measure(one_lost), path)
    assert Baseline.load(path).lost == {("scenario", "fam/a", "a"): (1,)}
    result = gate(measure(runs), Baseline.load(path))
    assert result.passed, result.lines()
    assert result.lines() == [
        f"unsolvable: baseline gate passed: {result.compared} groups compared against {path} "
        "(lag p95 +0 steps, false-stop rate +0); the lag of 1 run was not compared, a worker "
        "lost:",
        "  - scenario fam/a seed 1 × a: its lag was not compared, its worker lost in the "
        "baseline's run (a run lost before its first step has no lag)",
        "  a lost run's lag is compared once the run finishes on both sides: run it again, and "
        "rewrite a baseline blessed on a lost run with --update-baseline",
    ]
    assert [(r.here, r.blessed) for r in gate(measure(one_lost), Baseline.load(path)).lost] == [
        (True, True)
    ]
    write_baseline(measure(runs), path)
    assert [
        (r.run.seed, r.here, r.blessed) for r in gate(measure(one_lost), Baseline.load(path)).lost
    ] == [(1, True, False)]
