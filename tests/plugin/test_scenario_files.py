"""Scenario files in the pytest face: ``--unsolvable-scenario-file`` and the ini key
``unsolvable_scenario_dir`` add imported scenarios to the generated suite, which runs, selects,
snapshots and seeds them like the built-in ones."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.imports._traces import openhands_log
from tests.plugin._helpers import Run
from unsolvable.cli import main
from unsolvable.plugin._options import (
    AGENT_OPTION,
    NO_SNAPSHOT_OPTION,
    SCENARIO_FILE_OPTION,
    SCENARIO_OPTION,
)

CONTRACT, NAIVE = f"{AGENT_OPTION}=pkg:contract", f"{AGENT_OPTION}=pkg:naive"


def _scenario_file(folder: Path) -> Path:
    trace = openhands_log(folder.parent / "conversation")
    out = folder / "ticket-loop.json"
    folder.mkdir(exist_ok=True)
    args = ["import", str(trace), "--format", "openhands", "--name", "incidents/ticket-loop"]
    assert main([*args, "-o", str(out)]) == 0
    return out


def test_a_scenario_file_joins_the_generated_suite(run: Run, pytester: pytest.Pytester) -> None:
    path = _scenario_file(pytester.path / "incidents")
    only = f"{SCENARIO_OPTION}=incidents"
    passed = run(CONTRACT, f"{SCENARIO_FILE_OPTION}={path}", only, NO_SNAPSHOT_OPTION)
    passed.assert_outcomes(passed=1)
    failed = run(NAIVE, f"{SCENARIO_FILE_OPTION}={path}", only, NO_SNAPSHOT_OPTION)
    failed.assert_outcomes(failed=1)
    failed.stdout.fnmatch_lines(["*incidents/ticket-loop (seed 0) × pkg:naive: FAIL*"])


def test_the_ini_folder_is_snapshotted_like_a_built_in(
    run: Run, pytester: pytest.Pytester, xdist_args: tuple[str, ...]
) -> None:
    _scenario_file(pytester.path / "incidents")
    pytester.makeini("[pytest]\nunsolvable_scenario_dir = incidents\n")
    args = (CONTRACT, f"{SCENARIO_OPTION}=incidents", *xdist_args)
    run(*args, "--snapshot-update").assert_outcomes(passed=1)
    snapshot = pytester.path / "__unsolvable__/pkg.contract/incidents/ticket-loop-seed0.json"
    assert json.loads(snapshot.read_text())["scenario"] == "incidents/ticket-loop"
    run(*args).assert_outcomes(passed=1)


def test_a_bad_scenario_file_is_a_usage_error_naming_the_field(
    run: Run, pytester: pytest.Pytester
) -> None:
    path = _scenario_file(pytester.path / "incidents")
    data = json.loads(path.read_text())
    data["step_bound"] = 0
    path.write_text(json.dumps(data))
    result = run(CONTRACT, f"{SCENARIO_FILE_OPTION}={path}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [f"*{SCENARIO_FILE_OPTION}*field 'step_bound' is 0; make it 1 or more*"]
    )
