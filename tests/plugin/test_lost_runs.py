"""A lost run under the plugin (its agent's worker process exits mid-run): its record, JUnit
properties, summary row and snapshot hold what the harness counted, the stagnant step and lag as
they stood, and null for what only the worker counted, serially and through xdist."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.plugin._helpers import Run, outcomes, summary_section
from tests.plugin.test_faults import FAULTS
from unsolvable._unseen import WORKER_COUNTED
from unsolvable.plugin._options import (
    AGENT_OPTION,
    BASELINE_OPTION,
    JSON_OPTION,
    NO_SNAPSHOT_OPTION,
    SCENARIO_OPTION,
    UPDATE_BASELINE_OPTION,
)

CASES = (f"{SCENARIO_OPTION}=constant-return/repeat", "-k", "seed0")
SNAPSHOT = "__unsolvable__/x/constant-return/repeat-seed0.json"
"""The snapshot of the one case under the agent label ``x``."""


def _properties(junit: Path) -> dict[str, str | None]:
    (case,) = ET.parse(junit).getroot().iter("testcase")
    return {p.get("name", ""): p.get("value") for p in case.iter("property")}


def test_a_lost_run_is_recorded_reported_and_snapshotted_with_its_unknowns(
    run: Run, pytester: pytest.Pytester, xdist_args: tuple[str, ...]
) -> None:
    pytester.makepyfile(faults=FAULTS)
    out, junit = pytester.path / "records.json", pytester.path / "junit.xml"
    lost = (f"{AGENT_OPTION}=x=faults:exits", *CASES, f"{JSON_OPTION}={out}", *xdist_args)
    result = run(*lost, f"--junitxml={junit}", "--snapshot-update")
    assert outcomes(result) == {"failed": 1}
    (record,) = json.loads(out.read_text())["records"]
    unknown = dict.fromkeys(WORKER_COUNTED)
    assert {name: record["observed"][name] for name in WORKER_COUNTED} == unknown
    snapshot = json.loads((pytester.path / SNAPSHOT).read_text())
    assert {name: snapshot["observed"][name] for name in WORKER_COUNTED} == unknown
    properties = _properties(junit)
    assert (properties["unsolvable.outcome"], properties["unsolvable.stopped_step"]) == (
        "crashed",
        "1",
    )
    lags = ("first_stagnant_step", "lag_steps", "lag_tokens", "lag_cost_usd")
    # a stop after its one step would have had the same: stagnant at 2, a lag of -1
    assert [properties[f"unsolvable.{name}"] for name in lags] == ["2", "-1", "0", "0.0"]
    assert any("crashed    1/12    2         -1" in line for line in summary_section(result))
    again = run(*lost)
    assert outcomes(again) == {"failed": 1}
    again.stdout.no_fnmatch_line("*snapshot:*")  # the lost run's snapshot matched its record


def test_a_snapshot_of_a_finished_run_says_which_figures_the_lost_run_left_null(
    run: Run, pytester: pytest.Pytester
) -> None:
    """ "0 → none" would say the count is still none, zero: it is unknown, null in the record."""
    pytester.makepyfile(faults=FAULTS)
    assert outcomes(run(f"{AGENT_OPTION}=x=pkg:contract", *CASES, "--snapshot-update")) == {
        "passed": 1
    }
    result = run(f"{AGENT_OPTION}=x=faults:exits", *CASES)
    assert outcomes(result) == {"failed": 1}
    result.stdout.fnmatch_lines(
        ["      snapshot: differs as well (stop changed: step 3 → 1, lag 1 → -1, code "
         "NO_PROGRESS → crashed; also changed: observed.agents, observed.calls_past_budget "
         "0 → null, *"]
    )  # fmt: skip
    result.stdout.no_fnmatch_line("* → none*")


def test_the_plugins_gate_names_a_run_whose_worker_the_baseline_lost(
    run: Run, pytester: pytest.Pytester
) -> None:
    """Blessed on a run lost before its first step, the baseline has no lag for it: the gate
    passes and says so."""
    pytester.makepyfile(faults=FAULTS)
    gate = (*CASES, f"{BASELINE_OPTION}={pytester.path / 'baseline.json'}", NO_SNAPSHOT_OPTION)
    bless = run(f"{AGENT_OPTION}=x=faults:exits_at_once", *gate, UPDATE_BASELINE_OPTION)
    assert outcomes(bless) == {"failed": 1}
    result = run(f"{AGENT_OPTION}=x=pkg:contract", *gate)
    assert outcomes(result) == {"passed": 1}
    result.stdout.fnmatch_lines(
        ["unsolvable: baseline gate passed: * the lag of 1 run was not compared, a worker lost:",
         "  - scenario constant-return/repeat seed 0 × x: its lag was not compared, its worker "
         "lost in the baseline's run (a run lost before its first step has no lag)"],
        consecutive=True,
    )  # fmt: skip
